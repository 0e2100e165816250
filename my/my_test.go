package my_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/my"
)

const (
	indexHTML = `<!doctype html><html><head><script type="module" src="/my/assets/index-Abc123.js"></script></head><body></body></html>`
	entryJS   = `console.log("app")`
	secret    = "SECRET-OUTSIDE-WEB-DIR"
)

// dist is a built app in <tmp>/web/dist with secrets beside and above
// it, as in a checkout: murlog.ini two folders up, a file one up, a
// dot-file and a symbolic link pointing out inside.
func dist(t *testing.T) (root, dir string) {
	t.Helper()
	root = t.TempDir()
	dir = filepath.Join(root, "web", "dist")
	files := map[string]string{
		"murlog.ini":                          secret,
		"web/x":                               secret,
		"web/dist/index.html":                 indexHTML,
		"web/dist/assets/index-Abc123.js":     entryJS,
		"web/dist/assets/index-Def456.css":    "body{}",
		"web/dist/assets/.hidden":             secret,
		"web/dist/sw.js":                      "self.addEventListener('fetch', () => {})",
		"web/dist/manifest.webmanifest":       `{"name":"murlog"}`,
		"web/dist/icon.svg":                   `<svg xmlns="http://www.w3.org/2000/svg"/>`,
		"web/dist/icon-192.png":               "\x89PNG",
		"web/dist/.env":                       secret,
		"web/dist/.git/config":                secret,
		"web/dist/assets/sub/chunk-Ghi789.js": "export {}",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "murlog.ini"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(dir, "assets", "up")); err != nil {
		t.Fatal(err)
	}
	return root, dir
}

type result struct {
	status int
	header http.Header
	body   string
}

// fetch sends a request for the raw path (dot segments and escapes as
// written: the client does not clean them) to srv.
func fetch(t *testing.T, srv *httptest.Server, method, path string, hdr ...string) result {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
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
	return result{res.StatusCode, res.Header, string(b)}
}

func serve(t *testing.T, dir string, secure bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(my.New(my.Options{WebDir: dir, Cookies: httpd.Cookies{Secure: secure}}))
	t.Cleanup(srv.Close)
	return srv
}

const wantCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: https: http:; " +
	"media-src 'self' https: http:; connect-src 'self'; frame-src 'self'; worker-src 'self'; manifest-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func checkSecurity(t *testing.T, what string, r result) {
	t.Helper()
	if got := r.header.Get("Content-Security-Policy"); got != wantCSP {
		t.Errorf("%s: CSP = %q; want %q", what, got, wantCSP)
	}
	if r.header.Get("X-Content-Type-Options") != "nosniff" || r.header.Get("Referrer-Policy") != "same-origin" {
		t.Errorf("%s: nosniff %q, Referrer-Policy %q; want nosniff, same-origin", what,
			r.header.Get("X-Content-Type-Options"), r.header.Get("Referrer-Policy"))
	}
}

func csrfCookie(r result) *http.Cookie {
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == httpd.CSRFCookie {
			return c
		}
	}
	return nil
}

// TestAppRoutesServeIndex: every path whose last segment has no dot is
// index.html, revalidated on each use, with the strict CSP and a CSRF
// cookie the app's scripts can read; a revalidation is a 304.
func TestAppRoutesServeIndex(t *testing.T) {
	t.Parallel()
	_, dir := dist(t)
	srv := serve(t, dir, true)
	for _, p := range []string{"/my/", "/my/compose", "/my/posts/0195f0c2a1b2/", "/my/settings/theme", "/my/index.html", "/my/assets"} {
		r := fetch(t, srv, "GET", p)
		if r.status != 200 || r.body != indexHTML || r.header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("GET %s = %d %q %.80q; want index.html", p, r.status, r.header.Get("Content-Type"), r.body)
			continue
		}
		checkSecurity(t, "GET "+p, r)
		if got := r.header.Get("Cache-Control"); got != "no-cache" {
			t.Errorf("GET %s: Cache-Control %q; want no-cache", p, got)
		}
		c := csrfCookie(r)
		if c == nil || len(c.Value) < 32 || c.HttpOnly || c.SameSite != http.SameSiteStrictMode || !c.Secure || c.Path != "/" {
			t.Errorf("GET %s: csrf cookie %+v; want a readable (not HttpOnly), SameSite=Strict, Secure cookie for /", p, c)
		}
	}

	// A browser that has the cookie keeps it.
	r := fetch(t, srv, "GET", "/my/", "Cookie", httpd.CSRFCookie+"="+strings.Repeat("k", 43))
	if c := csrfCookie(r); c != nil {
		t.Errorf("GET /my/ with a CSRF cookie set another: %+v", c)
	}
	tag := r.header.Get("ETag")
	if tag == "" || r.header.Get("Last-Modified") == "" {
		t.Fatalf("index.html has ETag %q, Last-Modified %q; want both", tag, r.header.Get("Last-Modified"))
	}
	if r := fetch(t, srv, "GET", "/my/compose", "If-None-Match", tag); r.status != 304 || r.body != "" {
		t.Errorf("revalidation with the ETag = %d %q; want 304 and no body", r.status, r.body)
	}

	// A rebuilt app shows at the next request, with a new ETag.
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(indexHTML+"<!-- v2 -->"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = fetch(t, srv, "GET", "/my/", "If-None-Match", tag)
	if r.status != 200 || !strings.HasSuffix(r.body, "<!-- v2 -->") || r.header.Get("ETag") == tag {
		t.Errorf("after a rebuild = %d ETag %q (was %q) %.40q; want the new index.html", r.status, r.header.Get("ETag"), tag, r.body)
	}

	r = fetch(t, srv, "HEAD", "/my/compose")
	if r.status != 200 || r.body != "" || r.header.Get("Content-Length") != strconv.Itoa(len(indexHTML+"<!-- v2 -->")) || r.header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("HEAD /my/compose = %d len %q %q body %q; want 200 with the headers and no body", r.status,
			r.header.Get("Content-Length"), r.header.Get("Content-Type"), r.body)
	}
	if r := fetch(t, srv, "POST", "/my/"); r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /my/ = %d Allow %q; want 405, GET, HEAD", r.status, r.header.Get("Allow"))
	}
}

// TestFilesAndTheirCaching: hashed assets are immutable, the worker,
// manifest and icons revalidated, each with its content type.
func TestFilesAndTheirCaching(t *testing.T) {
	t.Parallel()
	_, dir := dist(t)
	srv := serve(t, dir, false)
	for _, c := range []struct{ path, ctype, cache, body string }{
		{"/my/assets/index-Abc123.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", entryJS},
		{"/my/assets/index-Def456.css", "text/css; charset=utf-8", "public, max-age=31536000, immutable", "body{}"},
		{"/my/assets/sub/chunk-Ghi789.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", "export {}"},
		{"/my/sw.js", "text/javascript; charset=utf-8", "no-cache", "self.addEventListener('fetch', () => {})"},
		{"/my/manifest.webmanifest", "application/manifest+json", "no-cache", `{"name":"murlog"}`},
		{"/my/icon.svg", "image/svg+xml", "no-cache", `<svg xmlns="http://www.w3.org/2000/svg"/>`},
		{"/my/icon-192.png", "image/png", "no-cache", "\x89PNG"},
	} {
		r := fetch(t, srv, "GET", c.path)
		if r.status != 200 || r.body != c.body || r.header.Get("Content-Type") != c.ctype || r.header.Get("Cache-Control") != c.cache {
			t.Errorf("GET %s = %d %q %q %q; want 200 %q %q", c.path, r.status, r.header.Get("Content-Type"),
				r.header.Get("Cache-Control"), r.body, c.ctype, c.cache)
		}
		checkSecurity(t, "GET "+c.path, r)
		if csrfCookie(r) != nil {
			t.Errorf("GET %s set a CSRF cookie; only index.html does", c.path)
		}
		if c.cache == "no-cache" && r.header.Get("ETag") == "" {
			t.Errorf("GET %s: no ETag on a revalidated file", c.path)
		}
	}
	if r := fetch(t, srv, "GET", "/my/sw.js"); r.header.Get("Service-Worker-Allowed") != "/my/" {
		t.Errorf("sw.js Service-Worker-Allowed = %q; want /my/", r.header.Get("Service-Worker-Allowed"))
	}
	if r := fetch(t, srv, "HEAD", "/my/assets/index-Abc123.js"); r.status != 200 || r.body != "" || r.header.Get("Content-Length") != "18" {
		t.Errorf("HEAD of an asset = %d len %q body %q; want 200, 18, no body", r.status, r.header.Get("Content-Length"), r.body)
	}
	for _, p := range []string{"/my/assets/nope-123.js", "/my/assets/", "/my/assets/sub", "/my/nope.png", "/my/assets/sub/"} {
		if r := fetch(t, srv, "GET", p); r.status != 404 {
			t.Errorf("GET %s = %d; want 404", p, r.status)
		}
	}
}

// TestNothingOutsideWebDir: dot segments (plain or percent-encoded),
// backslashes, dot-files and links pointing out are all 404, and nothing
// outside web_dir is ever sent — through a bare handler, which sees the
// raw path, and through a ServeMux as the app mounts it.
func TestNothingOutsideWebDir(t *testing.T) {
	t.Parallel()
	_, dir := dist(t)
	h := my.New(my.Options{WebDir: dir})
	mux := http.NewServeMux()
	mux.Handle(my.Prefix, h)
	for name, srv := range map[string]*httptest.Server{"bare": httptest.NewServer(h), "mux": httptest.NewServer(mux)} {
		defer srv.Close()
		for _, p := range []string{
			"/my/../murlog.ini", "/my/../../murlog.ini", "/my/assets/../../x", "/my/assets/../../../murlog.ini",
			"/my/%2e%2e/murlog.ini", "/my/%2E%2E/%2e%2e/murlog.ini", "/my/assets/%2e%2e/%2e%2e/x",
			"/my/..%2f..%2fmurlog.ini", "/my/assets/..%2f..%2fx", "/my/..%5c..%5cmurlog.ini", "/my/assets%5c..%5c..%5cx",
			"/my/.env", "/my/.git/config", "/my/.git/", "/my/assets/.hidden", "/my/%2eenv",
			"/my/link.txt", "/my/assets/up/murlog.ini", "/my/assets/up/web/x", "/my//etc/passwd", "/my/assets//etc/passwd",
		} {
			r := fetch(t, srv, "GET", p)
			if strings.Contains(r.body, secret) || r.status == 200 && r.body != indexHTML {
				t.Errorf("%s: GET %s = %d %.80q; want nothing from outside web_dir", name, p, r.status, r.body)
			}
			if name == "bare" && r.status != 404 {
				t.Errorf("bare: GET %s = %d; want 404", p, r.status)
			}
		}
	}
}

// TestNotBuilt: without index.html the app routes answer a 503 page that
// says how to build the app and where murlog looks for it (escaped),
// with no script; files are 404.
func TestNotBuilt(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), `we<b>b&"dist`)
	srv := serve(t, dir, false)
	for _, lang := range []string{"en", "ja"} {
		r := fetch(t, srv, "GET", "/my/compose", "Accept-Language", lang)
		if r.status != 503 || r.header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("GET /my/compose (%s) without a build = %d %q; want a 503 page", lang, r.status, r.header.Get("Content-Type"))
		}
		checkSecurity(t, "not built", r)
		if !strings.Contains(r.body, "<code>make web</code>") || !strings.Contains(r.body, "we&lt;b&gt;b&amp;&#34;dist</code>") ||
			strings.Contains(r.body, "<b>") || strings.Contains(r.body, "<script") {
			t.Errorf("not-built page (%s) = %s; want make web and the escaped web_dir, no script", lang, r.body)
		}
		if r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("not-built page Cache-Control = %q; want no-store", r.header.Get("Cache-Control"))
		}
	}
	if r := fetch(t, srv, "GET", "/my/", "Accept-Language", "en"); !strings.Contains(r.body, "The owner&#39;s app is not built yet: run <code>make web</code>") {
		t.Errorf("English not-built page = %s", r.body)
	}
	if r := fetch(t, srv, "GET", "/my/", "Accept-Language", "ja"); !strings.Contains(r.body, `lang="ja"`) || !strings.Contains(r.body, "ビルド") {
		t.Errorf("Japanese not-built page = %s", r.body)
	}
	if r := fetch(t, srv, "HEAD", "/my/"); r.status != 503 || r.body != "" {
		t.Errorf("HEAD /my/ without a build = %d %q; want 503, no body", r.status, r.body)
	}
	if r := fetch(t, srv, "GET", "/my/assets/index-Abc123.js"); r.status != 404 {
		t.Errorf("an asset without a build = %d; want 404", r.status)
	}
	// An empty web_dir (it exists, no index.html) is not built either.
	empty := t.TempDir()
	if r := fetch(t, serve(t, empty, false), "GET", "/my/"); r.status != 503 {
		t.Errorf("GET /my/ of an empty web_dir = %d; want 503", r.status)
	}
}
