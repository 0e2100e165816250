package app_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murlog/murlog/internal/testsite"
)

// request sends one request to the site without a cookie jar (unless
// cookie is set) and without following redirects.
func request(t *testing.T, s *testsite.Site, method, path string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.Server.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/html")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// TestOwnerAppRoutes: /my/ serves the built app of web_dir through the
// app's one handler, /admin and /admin/ lead there, the wizard's and the
// reset page's addresses keep working, and nothing beside web_dir (such
// as murlog.ini) is reachable by a dot segment.
func TestOwnerAppRoutes(t *testing.T) {
	t.Parallel()
	web := filepath.Join(t.TempDir(), "dist")
	if err := os.MkdirAll(filepath.Join(web, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	const index = "<!doctype html><title>murlog app</title>"
	os.WriteFile(filepath.Join(web, "index.html"), []byte(index), 0o644)
	os.WriteFile(filepath.Join(web, "assets", "index-Abc.js"), []byte("export {}"), 0o644)
	s := testsite.Start(t, testsite.Options{Env: map[string]string{"MURLOG_WEB_DIR": web}})

	for _, p := range []string{"/my/", "/my/timeline", "/my/posts/new"} {
		res, body := request(t, s, "GET", p)
		if res.StatusCode != 200 || body != index || res.Header.Get("Cache-Control") != "no-cache" ||
			!strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("GET %s = %d %q %.60q; want index.html, no-cache, the app's CSP", p, res.StatusCode, res.Header.Get("Cache-Control"), body)
		}
		if !strings.Contains(res.Header.Get("Set-Cookie"), "csrf_token=") {
			t.Errorf("GET %s without cookies set no csrf_token cookie: %q", p, res.Header.Get("Set-Cookie"))
		}
	}
	if res, _ := request(t, s, "GET", "/my/assets/index-Abc.js"); res.StatusCode != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("GET an asset = %d %q; want 200 immutable", res.StatusCode, res.Header.Get("Cache-Control"))
	}
	if res, _ := request(t, s, "GET", "/my"); res.StatusCode/100 != 3 || res.Header.Get("Location") != "/my/" {
		t.Errorf("GET /my = %d → %q; want a redirect to /my/", res.StatusCode, res.Header.Get("Location"))
	}
	ini, err := os.ReadFile(filepath.Join(s.Dir, "murlog.ini"))
	if err != nil || len(ini) == 0 {
		t.Fatalf("murlog.ini: %v", err)
	}
	for _, p := range []string{"/my/../murlog.ini", "/my/%2e%2e/murlog.ini", "/my/assets/../../murlog.ini", "/my/assets/%2e%2e/%2e%2e/murlog.ini"} {
		res, body := request(t, s, "GET", p)
		if strings.Contains(body, "data_dir") || res.StatusCode == 200 && body != index {
			t.Errorf("GET %s = %d %.80q; want nothing of murlog.ini", p, res.StatusCode, body)
		}
	}

	for _, p := range []string{"/admin", "/admin/"} {
		if res, _ := request(t, s, "GET", p); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/my/" {
			t.Errorf("GET %s = %d → %q; want 303 → /my/", p, res.StatusCode, res.Header.Get("Location"))
		}
	}
	if res, body := request(t, s, "GET", "/admin/reset"); res.StatusCode != 200 || !strings.Contains(body, "murlog reset") {
		t.Errorf("GET /admin/reset = %d; want the reset page", res.StatusCode)
	}
	if res, _ := request(t, s, "GET", "/admin/setup"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Errorf("GET /admin/setup of a finished site = %d → %q; want 303 → /", res.StatusCode, res.Header.Get("Location"))
	}
	if res, _ := request(t, s, "GET", "/admin/nothing"); res.StatusCode != 404 {
		t.Errorf("GET /admin/nothing = %d; want 404 (only /admin and /admin/ lead to the app)", res.StatusCode)
	}
}

// TestOwnerAppNotBuiltAndBeforeSetup: with the default web_dir of a
// fresh site (nothing built) /my/ is the 503 page naming make web and the
// folder; before setup it is the wizard, like every other page.
func TestOwnerAppNotBuiltAndBeforeSetup(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	res, body := request(t, s, "GET", "/my/")
	if want := filepath.Join(s.Dir, "web", "dist"); res.StatusCode != 503 || !strings.Contains(body, "<code>make web</code>") || !strings.Contains(body, want) {
		t.Errorf("GET /my/ unbuilt = %d\n%s\nwant 503 naming make web and %s", res.StatusCode, body, want)
	}
	bare := testsite.Start(t, testsite.Options{Bare: true})
	for _, p := range []string{"/my/", "/admin", "/my/preview/default"} {
		res, _ := request(t, bare, "GET", p)
		if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || loc != "/admin/setup/server" {
			t.Errorf("GET %s before setup = %d → %q; want 303 → /admin/setup/server", p, res.StatusCode, loc)
		}
	}
	if res, _ := request(t, bare, "GET", "/admin/"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/my/" {
		t.Errorf("GET /admin/ before setup = %d → %q; want 303 → /my/ (whence the guard sends it on)", res.StatusCode, res.Header.Get("Location"))
	}
}

// TestThemePreview: the preview is the owner's browser session's only:
// 401 page without one or with an API token; the newest post in the theme
// asked for, never stored, framable by the site's own pages; 404 for a
// theme that does not exist.
func TestThemePreview(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	ctx := context.Background()
	var made struct{ ID string }
	if err := s.Client.Call(ctx, "posts.create", map[string]any{"content": "preview me"}, &made); err != nil {
		t.Fatal(err)
	}

	res, body := request(t, s, "GET", "/my/preview/dark")
	if res.StatusCode != 401 || !strings.Contains(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(body, `href="/my/"`) ||
		strings.Contains(body, "preview me") {
		t.Errorf("preview without a session = %d %q\n%s\nwant the 401 page linking to /my/", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'self'") || strings.Contains(csp, "script-src 'self' 'unsafe") {
		t.Errorf("401 preview page CSP = %q; want the app's, framable by the site", csp)
	}
	var tok struct{ Token string }
	if err := s.Client.Call(ctx, "tokens.create", map[string]any{"name": "script"}, &tok); err != nil {
		t.Fatal(err)
	}
	if res, body := request(t, s, "GET", "/my/preview/dark", "Authorization", "Bearer "+tok.Token); res.StatusCode != 401 || strings.Contains(body, "preview me") {
		t.Errorf("preview with an API token = %d; want 401", res.StatusCode)
	}

	status, hdr, page, err := s.Client.Get(ctx, "/my/preview/dark")
	if err != nil {
		t.Fatal(err)
	}
	if status != 200 || !strings.Contains(string(page), "preview me") || !strings.Contains(string(page), "/themes/dark/") {
		t.Errorf("owner's preview of dark = %d\n%.400s\nwant the newest post in dark", status, page)
	}
	if hdr.Get("Cache-Control") != "no-store" || hdr.Get("X-Frame-Options") != "SAMEORIGIN" ||
		!strings.Contains(hdr.Get("Content-Security-Policy"), "frame-ancestors 'self'") || !strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("preview headers: Cache-Control %q, X-Frame-Options %q, CSP %q; want no-store, SAMEORIGIN, the blog's CSP framable by self",
			hdr.Get("Cache-Control"), hdr.Get("X-Frame-Options"), hdr.Get("Content-Security-Policy"))
	}
	// The public page keeps the persona's theme.
	if _, _, pub, _ := s.NewClient().Get(ctx, "/@alice/"+made.ID); strings.Contains(string(pub), "/themes/dark/") || !strings.Contains(string(pub), "preview me") {
		t.Errorf("the public post page after a preview is not in the persona's theme:\n%.300s", pub)
	}
	for _, name := range []string{"no-such-theme", "%2e%2e", "default.css", "de%20fault", "default/x"} {
		if status, _, _, _ := s.Client.Get(ctx, "/my/preview/"+name); status != 404 {
			t.Errorf("owner's preview of %q = %d; want 404", name, status)
		}
	}
}
