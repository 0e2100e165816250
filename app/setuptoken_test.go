package app_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/internal/testsite"
)

// browser drives the app's handler as one browser at one remote address,
// keeping its cookies.
type browser struct {
	t       *testing.T
	a       *app.App
	remote  string
	host    string // the Host header; httptest's example.com when empty
	header  http.Header
	cookies map[string]*http.Cookie
}

func (b *browser) do(method, target string, form url.Values) *httptest.ResponseRecorder {
	b.t.Helper()
	var req *http.Request
	if form != nil {
		if ck := b.cookies["csrf_token"]; ck != nil {
			form.Set("csrf_token", ck.Value)
		}
		req = httptest.NewRequest(method, target, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	req.RemoteAddr = b.remote
	if b.host != "" {
		req.Host = b.host
	}
	req.Header.Set("Accept", "text/html")
	for k, v := range b.header {
		req.Header[k] = v
	}
	for _, ck := range b.cookies {
		req.AddCookie(ck)
	}
	rec := httptest.NewRecorder()
	b.a.ServeHTTP(rec, req)
	for _, ck := range rec.Result().Cookies() {
		if ck.MaxAge < 0 {
			delete(b.cookies, ck.Name)
		} else {
			b.cookies[ck.Name] = ck
		}
	}
	return rec
}

// serveBare runs `murlog serve` (app.Serve) over a directory with no ini
// and returns the app, the address and what it printed.
func serveBare(t *testing.T) (*app.App, string, *testsite.SyncBuffer, string) {
	t.Helper()
	dir := t.TempDir()
	out := &testsite.SyncBuffer{}
	a, err := app.New(ctx, app.Options{ConfigPath: filepath.Join(dir, "murlog.ini"), Getenv: func(k string) string {
		if k == "MURLOG_SCHEME" {
			return "http"
		}
		return ""
	}, Logger: testsite.Discard(), Stderr: out, KeyPair: testsite.KeyPair})
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- app.Serve(sctx, a, "127.0.0.1:0", func(ad net.Addr) { addrc <- ad }) }()
	addr := (<-addrc).String()
	t.Cleanup(func() { cancel(); <-done; a.Close() })
	return a, addr, out, dir
}

// TestSetupTokenInServeMode: a fresh `murlog serve` prints a setup link
// with a one-time token; the wizard then refuses (403, saying where the
// token is) anyone but a direct local request without it, including a
// local reverse proxy, and works for someone with it.
func TestSetupTokenInServeMode(t *testing.T) {
	t.Parallel()
	a, addr, out, dir := serveBare(t)
	m := regexp.MustCompile(`http://` + regexp.QuoteMeta(addr) + `/admin/setup/server\?token=([A-Za-z0-9_-]{32})`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("serve printed %q; want a setup link with a token for %s", out.String(), addr)
	}
	token := m[1]
	ini := filepath.Join(dir, "murlog.ini")
	step1 := func() url.Values {
		return url.Values{"data_dir": {"./data"}, "media_path": {"./media"}, "scheme": {"http"}}
	}

	// Someone elsewhere on the internet, without the token.
	stranger := &browser{t: t, a: a, remote: "203.0.113.9:40000", cookies: map[string]*http.Cookie{}}
	if rec := stranger.do("GET", "/", nil); rec.Code != 303 {
		t.Errorf("GET / = %d; want the usual redirect to the wizard", rec.Code)
	}
	rec := stranger.do("GET", "/admin/setup/server", nil)
	if rec.Code != 403 || !strings.Contains(rec.Body.String(), "printed when it started") || strings.Contains(rec.Body.String(), token) {
		t.Errorf("wizard without token = %d %s; want 403 saying where the token is printed (and not the token)", rec.Code, rec.Body)
	}
	if rec := stranger.do("POST", "/admin/setup/server", step1()); rec.Code != 403 {
		t.Errorf("step 1 POST without token = %d; want 403", rec.Code)
	}
	if rec := stranger.do("GET", "/admin/setup/server?token=wrong"+token[5:], nil); rec.Code != 403 || !strings.Contains(rec.Body.String(), "token is wrong") {
		t.Errorf("wrong token = %d; want 403 saying it is wrong", rec.Code)
	}
	if _, err := os.Stat(ini); err == nil {
		t.Fatal("murlog.ini written without the token")
	}

	// A reverse proxy on the same machine: loopback, but forwarded.
	proxied := &browser{t: t, a: a, remote: "127.0.0.1:50000", header: http.Header{"X-Forwarded-For": {"203.0.113.9"}}, cookies: map[string]*http.Cookie{}}
	if rec := proxied.do("GET", "/admin/setup/server", nil); rec.Code != 403 {
		t.Errorf("loopback with X-Forwarded-For = %d; want 403 (needs the token)", rec.Code)
	}
	proxied.header = http.Header{"Forwarded": {"for=203.0.113.9"}}
	if rec := proxied.do("GET", "/admin/setup/server", nil); rec.Code != 403 {
		t.Errorf("loopback with Forwarded = %d; want 403 (needs the token)", rec.Code)
	}
	// A proxy that adds no header but passes the site's name on (nginx's
	// proxy_set_header Host $host): loopback, yet not a local browser.
	proxied.header = nil
	for _, host := range []string{"blog.example.com", "203.0.113.5:8080"} {
		proxied.host = host
		if rec := proxied.do("GET", "/admin/setup/server", nil); rec.Code != 403 {
			t.Errorf("loopback asking for Host %s = %d; want 403 (needs the token)", host, rec.Code)
		}
	}
	for _, host := range []string{"127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST"} {
		proxied.host = host
		if rec := proxied.do("GET", "/admin/setup/server", nil); rec.Code != 200 {
			t.Errorf("loopback asking for Host %s = %d; want 200 (a local browser)", host, rec.Code)
		}
	}

	// The owner, with the link: both steps work, the token kept in a cookie.
	owner := &browser{t: t, a: a, remote: "203.0.113.7:40001", cookies: map[string]*http.Cookie{}}
	if rec := owner.do("GET", "/admin/setup/server?token="+token, nil); rec.Code != 200 {
		t.Fatalf("wizard with the token = %d; want 200", rec.Code)
	}
	if ck := owner.cookies["murlog_setup"]; ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode {
		t.Errorf("token cookie = %+v; want an HttpOnly SameSite=Strict cookie", ck)
	}
	if rec := owner.do("POST", "/admin/setup/server", step1()); rec.Code != 303 {
		t.Fatalf("step 1 with the token = %d %s; want 303", rec.Code, rec.Body)
	}
	// Step 2 still needs it: the stranger cannot take over between steps.
	site := url.Values{"domain": {"example.com"}, "username": {"alice"}, "password": {"long enough pw"}, "password_confirm": {"long enough pw"}}
	stranger.do("GET", "/admin/setup", nil)
	if rec := stranger.do("POST", "/admin/setup", site); rec.Code != 403 {
		t.Errorf("step 2 POST without token = %d; want 403", rec.Code)
	}
	owner.do("GET", "/admin/setup", nil)
	if rec := owner.do("POST", "/admin/setup", site); rec.Code != 303 {
		t.Fatalf("step 2 with the token = %d %s; want 303", rec.Code, rec.Body)
	}
}

// TestSetupTokenNotNeededLocally: the README's local trial (a browser on
// the same machine, no proxy) stays one click; the hidden field works for
// a browser that refuses the cookie.
func TestSetupTokenNotNeededLocally(t *testing.T) {
	t.Parallel()
	a, addr, out, _ := serveBare(t)
	resp, err := http.Get("http://" + addr + "/admin/setup/server")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("local GET of the wizard = %d; want 200 without a token", resp.StatusCode)
	}
	token := regexp.MustCompile(`token=([A-Za-z0-9_-]{32})`).FindStringSubmatch(out.String())[1]
	b := &browser{t: t, a: a, remote: "[2001:db8::1]:40000", cookies: map[string]*http.Cookie{}}
	rec := b.do("GET", "/admin/setup/server?token="+token, nil)
	if !strings.Contains(rec.Body.String(), `name="setup_token" value="`+token+`"`) {
		t.Errorf("the form lacks the hidden setup_token field")
	}
	delete(b.cookies, "murlog_setup")
	form := url.Values{"data_dir": {"./data"}, "media_path": {"./media"}, "setup_token": {token}}
	if rec := b.do("POST", "/admin/setup/server", form); rec.Code != 303 {
		t.Errorf("step 1 with the token in the form only = %d; want 303", rec.Code)
	}
}

// TestNoSetupTokenUnderCGI: CGI installs keep today's flow (an app not
// started by Serve asks no token, from anywhere).
func TestNoSetupTokenUnderCGI(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	b := &browser{t: t, a: s.App, remote: "203.0.113.9:40000", cookies: map[string]*http.Cookie{}}
	if rec := b.do("GET", "/admin/setup/server", nil); rec.Code != 200 {
		t.Errorf("wizard from a remote address without Serve = %d; want 200", rec.Code)
	}
}
