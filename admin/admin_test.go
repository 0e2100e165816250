package admin_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

var ctx = context.Background()

func get(t *testing.T, s *testsite.Site, path, accept string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", s.Server.URL+path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func TestGuardBeforeSetup(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	for _, tc := range []struct {
		path, accept string
		status       int
		location     string
	}{
		{"/", "text/html,application/xhtml+xml", 303, "/admin/setup/server"},
		{"/@alice", "text/html", 303, "/admin/setup/server"},
		{"/admin/setup", "text/html", 303, "/admin/setup/server"},
		{"/admin/setup/server", "text/html", 200, ""},
		{"/", "application/activity+json", 503, ""},
		{"/.well-known/webfinger?resource=acct:a@b", "", 503, ""},
		{"/healthz", "", 503, ""},
	} {
		resp := get(t, s, tc.path, tc.accept)
		if resp.StatusCode != tc.status || resp.Header.Get("Location") != tc.location {
			t.Errorf("GET %s (Accept %q) = %d → %q; want %d → %q", tc.path, tc.accept, resp.StatusCode, resp.Header.Get("Location"), tc.status, tc.location)
		}
	}
	// The RPC endpoint answers a JSON-RPC error, not a redirect.
	status, _, body, _ := s.Client.Get(ctx, "/")
	_ = body
	if status != 303 {
		t.Errorf("browser GET / = %d; want 303", status)
	}
	code, raw, err := s.Client.Post(ctx, "/api/mur/v1/rpc", "application/json", []byte(`{"jsonrpc":"2.0","method":"posts.list","id":1}`))
	if err != nil || code != 503 || !strings.Contains(string(raw), `"code":-32005`) || !strings.Contains(string(raw), "/admin/setup/server") {
		t.Errorf("RPC before setup = %d %s %v; want 503 with a JSON-RPC error naming the setup page", code, raw, err)
	}
}

func submit(t *testing.T, s *testsite.Site, path string, v url.Values) (int, string, string) {
	t.Helper()
	status, hdr, body, err := s.Client.SubmitForm(ctx, path, v)
	if err != nil {
		t.Fatalf("submit %s: %v", path, err)
	}
	return status, hdr.Get("Location"), string(body)
}

func step1(dir string) url.Values {
	return url.Values{"data_dir": {"./data"}, "media_path": {"./media"}, "scheme": {"http"}}
}

func TestSetupWizardFromNothing(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	ini := filepath.Join(s.Dir, "murlog.ini")
	status, _, page, _ := s.Client.Get(ctx, "/admin/setup/server")
	if status != 200 || strings.Contains(string(page), "<script") || !strings.Contains(string(page), `name="csrf_token"`) {
		t.Fatalf("step 1 page = %d; want a script-free form with csrf_token", status)
	}
	status, loc, _ := submit(t, s, "/admin/setup/server", step1(s.Dir))
	if status != 303 || loc != "/admin/setup" {
		t.Fatalf("step 1 = %d → %q; want 303 → /admin/setup", status, loc)
	}
	st, err := os.Stat(ini)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("murlog.ini: %v mode %v; want it written with 0600", err, st.Mode().Perm())
	}
	for _, d := range []string{"data", "media", "data/murlog.db"} {
		if _, err := os.Stat(filepath.Join(s.Dir, d)); err != nil {
			t.Errorf("%s missing after step 1: %v", d, err)
		}
	}
	if resp := get(t, s, "/", "text/html"); resp.Header.Get("Location") != "/admin/setup" {
		t.Errorf("after step 1, GET / → %q; want /admin/setup", resp.Header.Get("Location"))
	}
	if resp := get(t, s, "/admin/setup/server", "text/html"); resp.StatusCode != 303 || resp.Header.Get("Location") != "/admin/setup" {
		t.Errorf("step 1 page after step 1 = %d → %q; want skipped", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, _, page, _ = s.Client.Get(ctx, "/admin/setup")
	if !strings.Contains(string(page), `name="domain" value="`+s.Domain()+`"`) {
		t.Errorf("step 2 domain not prefilled from Host (with port) %q", s.Domain())
	}
	status, loc, _ = submit(t, s, "/admin/setup", url.Values{"domain": {s.Domain()}, "username": {"alice"},
		"display_name": {"Alice"}, "password": {"long enough pw"}, "password_confirm": {"long enough pw"}})
	if status != 303 || loc != "/admin/setup" {
		t.Fatalf("step 2 = %d → %q; want 303", status, loc)
	}
	status, _, page, _ = s.Client.Get(ctx, "/admin/setup")
	if status != 200 || !strings.Contains(string(page), "@alice@"+s.Domain()) {
		t.Errorf("after step 2 the page = %d; want the completion page naming @alice@%s", status, s.Domain())
	}
	if err := s.Client.Login(ctx, "long enough pw"); err != nil {
		t.Errorf("login after setup: %v", err)
	}
	if resp := get(t, s, "/healthz", ""); resp.StatusCode != 200 {
		t.Errorf("/healthz = %d; want 200 once set up", resp.StatusCode)
	}
	// Survives a restart: the ini and database are all it needs.
	s.Restart(t)
	if err := s.NewClient().Login(ctx, "long enough pw"); err != nil {
		t.Errorf("login after restart: %v", err)
	}
}

// postWithCookieToken posts a form carrying the CSRF cookie's value, as a
// script that kept the token from an earlier page would.
func postWithCookieToken(t *testing.T, s *testsite.Site, path string, v url.Values) int {
	t.Helper()
	c := s.NewClient()
	c.Get(ctx, path)
	v.Set("csrf_token", c.Cookie(ctx, "csrf_token"))
	req, _ := http.NewRequest("POST", s.Server.URL+path, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestSetupRefusedAfterCompletion(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	status := postWithCookieToken(t, s, "/admin/setup", url.Values{"domain": {"evil.example"}, "username": {"mallory"},
		"password": {"mallory's pw"}, "password_confirm": {"mallory's pw"}})
	if status != http.StatusConflict {
		t.Errorf("step 2 re-posted after completion = %d; want 409", status)
	}
	var n int
	s.App.Store().View(ctx, func(tx store.Tx) error {
		ps, err := tx.Personas().List()
		n = len(ps)
		d, _ := tx.Settings().Get(murlog.SettingDomain)
		if d != s.Domain() {
			t.Errorf("domain changed to %q", d)
		}
		return err
	})
	if n != 1 {
		t.Errorf("personas = %d; want 1", n)
	}
	if err := s.NewClient().Login(ctx, "mallory's pw"); err == nil {
		t.Error("the re-posted password works")
	}
	// Step 1 re-posted: the page redirects, a raw POST is refused.
	req, _ := http.NewRequest("POST", s.Server.URL+"/admin/setup/server", strings.NewReader("data_dir=/tmp/x&media_path=/tmp/y"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("step 1 re-posted = %d; want 409", resp.StatusCode)
	}
}

func TestWizardCSRF(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	for _, tc := range []struct {
		name  string
		token string
	}{{"missing", ""}, {"wrong", strings.Repeat("x", 43)}} {
		c := s.NewClient()
		c.Get(ctx, "/admin/setup/server") // has a cookie now
		v := step1(s.Dir)
		if tc.token != "" {
			v.Set("csrf_token", tc.token)
		}
		req, _ := http.NewRequest("POST", s.Server.URL+"/admin/setup/server", strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := c.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s csrf_token = %d; want 403", tc.name, resp.StatusCode)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "murlog.ini")); !os.IsNotExist(err) {
		t.Error("murlog.ini was written by a request without a valid CSRF token")
	}
}

func TestStep1BadDirectories(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	os.WriteFile(filepath.Join(s.Dir, "afile"), []byte("x"), 0o644)
	for _, tc := range []struct {
		name string
		v    url.Values
		want string
	}{
		{"data dir is a file", url.Values{"data_dir": {"./afile"}, "media_path": {"./media"}}, "data_dir"},
		{"data dir under a file", url.Values{"data_dir": {"./afile/data"}, "media_path": {"./media"}}, "data_dir"},
		{"missing data dir", url.Values{"data_dir": {""}, "media_path": {"./media"}}, "data_dir"},
		{"bad scheme", url.Values{"data_dir": {"./data"}, "media_path": {"./media"}, "scheme": {"gopher"}}, "scheme"},
	} {
		status, _, body := submit(t, s, "/admin/setup/server", tc.v)
		if status != 400 || !strings.Contains(body, `class="err"`) {
			t.Errorf("%s: status %d; want 400 with a field error", tc.name, status)
		}
		if _, err := os.Stat(filepath.Join(s.Dir, "murlog.ini")); !os.IsNotExist(err) {
			t.Fatalf("%s: murlog.ini written despite the error", tc.name)
		}
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(s.Dir, "ro")
		os.Mkdir(ro, 0o500)
		status, _, body := submit(t, s, "/admin/setup/server", url.Values{"data_dir": {"./ro/data"}, "media_path": {"./media"}})
		if status != 400 || !strings.Contains(body, "cannot be created") {
			t.Errorf("unwritable parent: %d; want 400 'cannot be created'", status)
		}
	}
}

func TestStep2ValidationInBothLanguages(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	submit(t, s, "/admin/setup/server", step1(s.Dir))
	bad := url.Values{"domain": {"not a domain"}, "username": {"al ice"}, "password": {"short"}, "password_confirm": {"short"}}
	for _, tc := range []struct {
		lang  string
		wants []string
	}{
		{"", []string{"Enter a host name", "Use only letters", "at least 8 characters"}},
		{"ja,en;q=0.5", []string{"ホスト名を入力", "英字・数字・アンダースコア", "8 文字以上"}},
	} {
		s.Client.AcceptLanguage = tc.lang
		status, _, body := submit(t, s, "/admin/setup", bad)
		if status != 400 {
			t.Errorf("lang %q: status %d; want 400", tc.lang, status)
		}
		for _, w := range tc.wants {
			if !strings.Contains(body, w) {
				t.Errorf("lang %q: page lacks %q", tc.lang, w)
			}
		}
		if strings.Contains(body, `value="short"`) {
			t.Error("the password was echoed back into the form")
		}
	}
	s.Client.AcceptLanguage = ""
	long := strings.Repeat("x", 257)
	if status, _, body := submit(t, s, "/admin/setup", url.Values{"domain": {s.Domain()}, "username": {"alice"},
		"password": {long}, "password_confirm": {long}}); status != 400 || !strings.Contains(body, "at most 256 characters") {
		t.Errorf("a 257-character password: %d; want 400 saying at most 256 characters (not 'at least 8')", status)
	}
	status, _, body := submit(t, s, "/admin/setup", url.Values{"domain": {s.Domain()}, "username": {"alice"},
		"password": {"long enough pw"}, "password_confirm": {"different pw"}})
	if status != 400 || !strings.Contains(body, "do not match") {
		t.Errorf("mismatched passwords: %d; want 400 'do not match'", status)
	}
	var done string
	s.App.Store().View(ctx, func(tx store.Tx) error { done, _ = tx.Settings().Get(murlog.SettingSetupComplete); return nil })
	if done != "" {
		t.Error("setup_complete set by refused submissions")
	}
}

// TestStep2IsAtomic makes step 2 fail inside its transaction (the username
// is already taken, so the persona insert fails after nothing else has
// failed) and checks that nothing of it remains.
func TestStep2IsAtomic(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	submit(t, s, "/admin/setup/server", step1(s.Dir))
	squatter := storetest.NewPersona("alice", false, time.Now())
	if err := s.App.Store().Update(ctx, func(tx store.Tx) error { return tx.Personas().Create(squatter) }); err != nil {
		t.Fatal(err)
	}
	status, _, _ := submit(t, s, "/admin/setup", url.Values{"domain": {s.Domain()}, "username": {"alice"},
		"password": {"long enough pw"}, "password_confirm": {"long enough pw"}})
	if status != http.StatusConflict {
		t.Errorf("step 2 with a taken username = %d; want 409", status)
	}
	s.App.Store().View(ctx, func(tx store.Tx) error {
		m, _ := tx.Settings().GetMany(murlog.SettingDomain, murlog.SettingPasswordHash, murlog.SettingSetupComplete)
		if len(m) != 0 {
			t.Errorf("settings after the failed step 2: %v; want none", m)
		}
		if _, err := tx.Personas().Primary(); murlog.ErrorCode(err) != murlog.ENotFound {
			t.Errorf("a primary persona exists after the failed step 2 (%v)", err)
		}
		return nil
	})
	status, _, _ = submit(t, s, "/admin/setup", url.Values{"domain": {s.Domain()}, "username": {"bob"},
		"password": {"long enough pw"}, "password_confirm": {"long enough pw"}})
	if status != 303 {
		t.Errorf("step 2 retried with a free username = %d; want 303", status)
	}
}

func TestConcurrentStep2OnlyOneWins(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	submit(t, s, "/admin/setup/server", step1(s.Dir))
	var wg sync.WaitGroup
	statuses := make(chan int, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := s.NewClient()
			st, _, _, err := c.SubmitForm(ctx, "/admin/setup", url.Values{"domain": {s.Domain()}, "username": {"user" + string(rune('a'+i))},
				"password": {"long enough pw"}, "password_confirm": {"long enough pw"}})
			if err != nil {
				t.Error(err)
			}
			statuses <- st
		}(i)
	}
	wg.Wait()
	close(statuses)
	wins := 0
	for st := range statuses {
		if st == 303 {
			wins++
		} else if st != http.StatusConflict {
			t.Errorf("a losing step 2 answered %d; want 409", st)
		}
	}
	var n int
	s.App.Store().View(ctx, func(tx store.Tx) error { ps, err := tx.Personas().List(); n = len(ps); return err })
	if wins != 1 || n != 1 {
		t.Errorf("%d step 2 submissions won and %d personas exist; want exactly 1 and 1", wins, n)
	}
}

// TestSetupLogsTheOwnerIn: step 2's answer carries a session cookie
// (HttpOnly) and a new CSRF token, as auth.login's does, so the browser
// that set the site up is the owner at once: no auth.login call needed.
// The completion page opens the app at /my/ (a link and a refresh, no
// script) in both languages.
func TestSetupLogsTheOwnerIn(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "ja"} {
		s := testsite.Start(t, testsite.Options{Bare: true})
		s.Client.AcceptLanguage = lang
		submit(t, s, "/admin/setup/server", step1(s.Dir))
		formCSRF := s.Client.Cookie(ctx, "csrf_token")
		status, hdr, _, err := s.Client.SubmitForm(ctx, "/admin/setup", url.Values{"domain": {s.Domain()}, "username": {"alice"},
			"display_name": {"Alice"}, "password": {"long enough pw"}, "password_confirm": {"long enough pw"}})
		if err != nil || status != 303 {
			t.Fatalf("step 2 = %d %v; want 303", status, err)
		}
		var session, csrf *http.Cookie
		for _, c := range (&http.Response{Header: hdr}).Cookies() {
			switch c.Name {
			case "murlog_session":
				session = c
			case "csrf_token":
				csrf = c
			}
		}
		if session == nil || session.Value == "" || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Path != "/" {
			t.Errorf("step 2's session cookie = %+v; want an HttpOnly, SameSite=Strict session cookie for /", session)
		}
		if csrf == nil || csrf.Value == formCSRF || len(csrf.Value) < 32 {
			t.Errorf("step 2's csrf cookie = %+v; want a new token (the wizard's was %q)", csrf, formCSRF)
		}
		// The owner's methods answer without a login.
		if err := s.Client.Call(ctx, "tokens.list", nil, nil); err != nil {
			t.Errorf("tokens.list right after setup: %v; want the owner logged in", err)
		}
		_, _, page, _ := s.Client.Get(ctx, "/admin/setup")
		done := string(page)
		if !strings.Contains(done, `<meta http-equiv="refresh" content="3; url=/my/">`) || !strings.Contains(done, `<a href="/my/">`) {
			t.Errorf("completion page (%s) does not open /my/:\n%s", lang, done)
		}
		if strings.Contains(done, "auth.login") || strings.Contains(done, "/api/mur/v1/rpc") || strings.Contains(done, "<script") {
			t.Errorf("completion page (%s) still sends the owner to the RPC endpoint, or has a script:\n%s", lang, done)
		}
		if loggedIn := map[string]string{"en": "You are logged in", "ja": "ログインしました"}[lang]; !strings.Contains(done, loggedIn) {
			t.Errorf("completion page (%s) does not say the owner is logged in (%q):\n%s", lang, loggedIn, done)
		}
		if !strings.Contains(done, "<code>murlog reset</code>") {
			t.Errorf("completion page (%s) lost the reset command", lang)
		}
		// A browser that holds no session (the login failed) is told to
		// log in in the app.
		_, _, b := body(t, s, http.DefaultClient, "GET", "/admin/setup", nil, "Cookie", "murlog_setup_done=1", "Accept-Language", lang)
		if logIn := map[string]string{"en": "log in there", "ja": "ログインしてください"}[lang]; !strings.Contains(b, logIn) || !strings.Contains(b, `href="/my/"`) {
			t.Errorf("completion page without a session (%s) does not ask for a login (%q):\n%s", lang, logIn, b)
		}
	}
}
