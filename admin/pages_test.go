package admin_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/persona"
)

func body(t *testing.T, s *testsite.Site, c interface {
	Do(*http.Request) (*http.Response, error)
}, method, path string, form url.Values, hdr ...string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	if form != nil {
		rd = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, s.Server.URL+path, rd)
	req.Header.Set("Accept", "text/html")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestWizardOfAFinishedSite: once setup is complete the wizard's pages send
// everyone to the site; only the browser that just finished sees the
// completion page, once.
func TestWizardOfAFinishedSite(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	// s.Client finished step 2 and has not looked at the result yet.
	status, _, page, _ := s.Client.Get(ctx, "/admin/setup")
	if status != 200 || !strings.Contains(string(page), "@alice@"+s.Domain()) || !strings.Contains(string(page), "<code>murlog reset</code>") {
		t.Errorf("completion page for the owner = %d; want it once, naming @alice@%s and the reset command", status, s.Domain())
	}
	// Anyone else (get has no cookies), and the owner the second time.
	for _, p := range []string{"/admin/setup", "/admin/setup/server"} {
		if resp := get(t, s, p, "text/html"); resp.StatusCode != 303 || resp.Header.Get("Location") != "/" {
			t.Errorf("GET %s after setup = %d → %q; want 303 → /", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	status, hdr, _, _ := s.Client.Get(ctx, "/admin/setup")
	if status != 303 || hdr.Get("Location") != "/" {
		t.Errorf("the owner's second look = %d → %q; want 303 → /", status, hdr.Get("Location"))
	}
}

// TestConflictPagesShowTheirMessage: the 409 for a wizard step posted to a
// finished site says why (it was an empty box).
func TestConflictPagesShowTheirMessage(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	c := s.NewClient()
	c.Get(ctx, "/admin/reset") // a CSRF cookie
	for _, p := range []string{"/admin/setup", "/admin/setup/server"} {
		form := url.Values{"csrf_token": {c.Cookie(ctx, "csrf_token")}, "domain": {"evil.example"}, "username": {"mallory"},
			"password": {"mallory's pw"}, "password_confirm": {"mallory's pw"}, "data_dir": {"./x"}, "media_path": {"./y"}}
		status, _, b := body(t, s, c.HTTP, "POST", p, form)
		if status != http.StatusConflict || !strings.Contains(b, "<li>Setup is already complete.</li>") {
			t.Errorf("POST %s after setup = %d; want 409 with its message\n%s", p, status, b)
		}
	}
}

// TestPagesHaveNoMarkdown: page text is plain text, so no literal
// backticks; commands are in <code>.
func TestPagesHaveNoMarkdown(t *testing.T) {
	t.Parallel()
	bare := testsite.Start(t, testsite.Options{Bare: true})
	s := testsite.New(t)
	for _, lang := range []string{"en", "ja"} {
		pages := map[string]string{}
		bare.Client.AcceptLanguage, s.Client.AcceptLanguage = lang, lang
		_, _, b, _ := bare.Client.Get(ctx, "/admin/setup/server")
		pages["step 1"] = string(b)
		_, _, b, _ = s.Client.Get(ctx, "/admin/setup")
		pages["done"] = string(b)
		_, _, b, _ = s.Client.Get(ctx, "/admin/reset")
		pages["reset"] = string(b)
		// A refused reset (no reset file was written) shows auth's reason.
		_, _, b, _ = s.Client.SubmitForm(ctx, "/admin/reset", url.Values{"secret": {"x"}, "password": {"a new password"}, "password_confirm": {"a new password"}})
		pages["refused reset"] = string(b)
		if !strings.Contains(pages["refused reset"], "no password reset was requested") {
			t.Errorf("refused reset page (%s) does not give the reason:\n%s", lang, b)
		}
		for name, p := range pages {
			if strings.Contains(p, "`") {
				t.Errorf("%s page (%s) has a literal backtick", name, lang)
			}
		}
		if !strings.Contains(pages["reset"], "<code>murlog reset</code>") {
			t.Errorf("reset page (%s) does not show the command in <code>", lang)
		}
	}
}

// TestUsernameHelpMatchesThePattern: the form's pattern, its help text and
// the server's rule accept the same names.
func TestUsernameHelpMatchesThePattern(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	submit(t, s, "/admin/setup/server", step1(s.Dir))
	_, _, b, _ := s.Client.Get(ctx, "/admin/setup")
	page := string(b)
	m := regexp.MustCompile(`name="username"[^>]* pattern="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no pattern on the username field")
	}
	re := regexp.MustCompile("^(?:" + m[1] + ")$")
	for _, u := range []string{"alice", "Alice_99", "ALICE", "_", strings.Repeat("a", persona.MaxUsername),
		strings.Repeat("a", persona.MaxUsername+1), "al-ice", "al ice", "älice", ""} {
		if form, server := re.MatchString(u), persona.ValidateUsername(u) == nil; form != server {
			t.Errorf("username %q: the form's pattern says %v, the server %v", u, form, server)
		}
	}
	help := regexp.MustCompile(`<p class="help">([^<]*)</p>`).FindAllStringSubmatch(page, -1)
	var usernameHelp string
	for _, h := range help {
		if strings.Contains(h[1], "underscore") {
			usernameHelp = h[1]
		}
	}
	if !strings.Contains(usernameHelp, "A–Z") || !strings.Contains(usernameHelp, fmt.Sprint(persona.MaxUsername)) {
		t.Errorf("username help %q; want it to name upper-case letters and the %d-character limit", usernameHelp, persona.MaxUsername)
	}
}

// TestHealthzOnlyWhenReady: /healthz is 503 until setup step 2 is done and
// when the database cannot be written, 200 otherwise.
func TestHealthzOnlyWhenReady(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	health := func() (int, string) {
		_, _, b := body(t, s, http.DefaultClient, "GET", "/healthz", nil)
		resp := get(t, s, "/healthz", "")
		return resp.StatusCode, b
	}
	if st, b := health(); st != 503 || !strings.Contains(b, "not configured") {
		t.Errorf("before step 1: %d %q; want 503", st, b)
	}
	submit(t, s, "/admin/setup/server", step1(s.Dir))
	if st, b := health(); st != 503 || !strings.Contains(b, "setup is not complete") {
		t.Errorf("after step 1: %d %q; want 503 saying setup is not complete", st, b)
	}
	if err := s.Client.Setup(ctx, s.Domain(), "alice", testsite.Password); err != nil {
		t.Fatal(err)
	}
	if st, b := health(); st != 200 {
		t.Errorf("after step 2: %d %q; want 200", st, b)
	}
	data := filepath.Join(s.Dir, "data")
	if err := os.Rename(data, data+".moved"); err != nil {
		t.Fatal(err)
	}
	st, b := health()
	os.Rename(data+".moved", data)
	if st != 503 || !strings.Contains(b, "not writable") {
		t.Errorf("with the data folder gone: %d %q; want 503 saying the database is not writable", st, b)
	}
}
