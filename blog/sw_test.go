package blog_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/controls"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
)

// withControls serves e's blog with c as its controls, in place of the
// env's handler without them.
func withControls(e *env, c blog.Controls) {
	e.t.Helper()
	srv := httptest.NewServer(blog.NewHandler(e.loader, blog.HandlerOptions{SearchBurst: 1e6, Controls: c}))
	e.t.Cleanup(srv.Close)
	e.srv = srv
}

// runtimeDoc fetches the runtime pointer, which must answer 200.
func runtimeDoc(t *testing.T, e *env) (blog.RuntimeDoc, resp) {
	t.Helper()
	r := e.get(blog.RuntimePath)
	if r.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s; want 200", blog.RuntimePath, r.status, r.body)
	}
	var d blog.RuntimeDoc
	if err := json.Unmarshal([]byte(r.body), &d); err != nil {
		t.Fatalf("GET %s: %v in %s", blog.RuntimePath, err, r.body)
	}
	return d, r
}

// TestRuntimePointer: the pointer publishes the switches a reader's page
// obeys and whether lockdown is in force, as stored in the real database
// by the controls service; no-cache normally, a minute's caching while
// lockdown holds (scheduled: only from its start); an ETag that answers
// 304; the worker's version.
func TestRuntimePointer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := controls.New(e.db, e.clock.Now)
	withControls(e, c)
	_, version := blog.ServiceWorker(e.loader.Themes)

	d, r := runtimeDoc(t, e)
	if want := (blog.RuntimeDoc{ServiceWorker: true, Comments: true, PageViews: true, LinkPreviews: true, Version: version}); d != want {
		t.Errorf("a site that never set a switch: got %+v; want %+v", d, want)
	}
	if got := r.header.Get("Cache-Control"); got != "no-cache" {
		t.Errorf("Cache-Control %q; want no-cache", got)
	}
	if got := r.header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q; want application/json", got)
	}
	if r2 := e.get(blog.RuntimePath, "If-None-Match", r.header.Get("ETag")); r2.status != http.StatusNotModified {
		t.Errorf("If-None-Match with its ETag: %d; want 304", r2.status)
	}
	if strings.Contains(r.body, "inbox") || strings.Contains(r.body, "delivery") || strings.Contains(r.body, "reason") {
		t.Errorf("the pointer names server-only controls: %s", r.body)
	}

	for _, tc := range []struct {
		name string
		sw   controls.Switches
	}{
		{"worker off", controls.Switches{Comments: true, PageViews: true, LinkPreviews: true, Inbox: true, Delivery: true}},
		{"all off", controls.Switches{}},
		{"previews and views off", controls.Switches{Comments: true, ServiceWorker: true}},
	} {
		if _, err := c.SetSwitches(ctx, tc.sw); err != nil {
			t.Fatal(err)
		}
		d, r := runtimeDoc(t, e)
		want := blog.RuntimeDoc{ServiceWorker: tc.sw.ServiceWorker, Comments: tc.sw.Comments, PageViews: tc.sw.PageViews,
			LinkPreviews: tc.sw.LinkPreviews, Version: version}
		if d != want {
			t.Errorf("%s: got %+v; want %+v", tc.name, d, want)
		}
		if got := r.header.Get("Cache-Control"); got != "no-cache" {
			t.Errorf("%s: Cache-Control %q; want no-cache", tc.name, got)
		}
	}

	// A lockdown scheduled an hour from now is not in force yet.
	from := e.clock.Now().Add(time.Hour)
	if _, err := c.SetLockdown(ctx, controls.Lockdown{On: true, From: &from, Reason: "launch day"}); err != nil {
		t.Fatal(err)
	}
	if d, r := runtimeDoc(t, e); d.Lockdown || r.header.Get("Cache-Control") != "no-cache" {
		t.Errorf("before a scheduled lockdown: lockdown %v, Cache-Control %q; want false, no-cache", d.Lockdown, r.header.Get("Cache-Control"))
	}
	e.clock.Advance(2 * time.Hour)
	d, r = runtimeDoc(t, e)
	if !d.Lockdown {
		t.Errorf("during lockdown: got %+v; want lockdown true", d)
	}
	if got := r.header.Get("Cache-Control"); got != "public, max-age=60" {
		t.Errorf("during lockdown: Cache-Control %q; want public, max-age=60", got)
	}
	if strings.Contains(r.body, "launch day") {
		t.Errorf("the pointer carries the lockdown's reason: %s", r.body)
	}
}

// TestRuntimePointerUnreadable: controls never read and unreadable now
// answer 503 with Retry-After, never a guess; once read, a database that
// stops answering keeps the last known switches (a switched-off worker
// stays off).
func TestRuntimePointerUnreadable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	open := func() *sqlite.DB {
		db, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), sqlite.FileName), sqlite.Options{Now: e.clock.Now, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}

	cold := open()
	cold.Close()
	withControls(e, controls.New(cold, e.clock.Now))
	r := e.get(blog.RuntimePath)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Errorf("never read, database closed: %d, Retry-After %q, %s; want 503 with Retry-After", r.status, r.header.Get("Retry-After"), r.body)
	}

	warm := open()
	c := controls.New(warm, e.clock.Now)
	if _, err := c.SetSwitches(ctx, controls.Switches{Comments: true}); err != nil {
		t.Fatal(err)
	}
	withControls(e, c)
	warm.Close()
	e.clock.Advance(2 * controls.TTL) // past the cache: the next read fails
	d, _ := runtimeDoc(t, e)
	if d.ServiceWorker || !d.Comments {
		t.Errorf("read once, database closed since: got %+v; want the last known switches (worker off, comments on)", d)
	}
}

// TestServiceWorkerScript: /sw.js is served at the root as JavaScript,
// revalidated on every update check, with a policy that lets it fetch
// only from the site; its settings name every theme's stylesheets and
// scripts with the SRI values of the bytes served, and the version the
// runtime pointer gives.
func TestServiceWorkerScript(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.get(blog.WorkerPath)
	for _, h := range []struct{ name, want string }{
		{"Content-Type", "text/javascript; charset=utf-8"},
		{"Cache-Control", "no-cache"},
		{"Content-Security-Policy", blog.WorkerCSP},
		{"X-Content-Type-Options", "nosniff"},
		{"Service-Worker-Allowed", ""}, // its scope is its folder, the root
	} {
		if got := r.header.Get(h.name); got != h.want {
			t.Errorf("GET /sw.js: %s %q; want %q", h.name, got, h.want)
		}
	}
	if r.status != http.StatusOK || r.header.Get("ETag") == "" {
		t.Fatalf("GET /sw.js: %d, ETag %q", r.status, r.header.Get("ETag"))
	}
	head, rest, ok := strings.Cut(r.body, "\n")
	js, ok2 := strings.CutPrefix(head, "self.MURLOG_SW = ")
	if !ok || !ok2 || !strings.HasSuffix(js, ";") || !strings.Contains(rest, "addEventListener('fetch'") {
		t.Fatalf("GET /sw.js does not start with its settings then the worker:\n%.300s", r.body)
	}
	var st struct {
		Version  string `json:"version"`
		Precache []struct {
			URL       string `json:"url"`
			Integrity string `json:"integrity"`
		} `json:"precache"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSuffix(js, ";")), &st); err != nil {
		t.Fatalf("the worker's settings: %v in %s", err, js)
	}
	if d, _ := runtimeDoc(t, e); len(st.Version) != 10 || d.Version != st.Version {
		t.Errorf("worker version %q, runtime pointer's %q; want the same 10 digits", st.Version, d.Version)
	}
	var urls []string
	for _, a := range st.Precache {
		urls = append(urls, a.URL)
		if got := sri(t, e, a.URL); got != a.Integrity {
			t.Errorf("precache %s: integrity %q; the served bytes are %q", a.URL, a.Integrity, got)
		}
	}
	for _, name := range e.loader.Themes.Names() {
		in := e.loader.Themes.Info(name)
		for _, u := range append(in.Stylesheets, in.Scripts...) {
			if !slices.Contains(urls, u) {
				t.Errorf("theme %s's %s is not precached (%v)", name, u, urls)
			}
		}
	}
	if again := e.get(blog.WorkerPath); again.body != r.body {
		t.Error("/sw.js differs between two requests of one deploy")
	}
}

// sri is the SRI value of the bytes GET path answers (200 required).
func sri(t *testing.T, e *env, path string) string {
	t.Helper()
	r := e.get(path)
	if r.status != http.StatusOK {
		t.Fatalf("GET %s: %d", path, r.status)
	}
	d := sha256.Sum256([]byte(r.body))
	return "sha256-" + base64.StdEncoding.EncodeToString(d[:])
}

// themedAsset matches the tags that load a hashed theme asset, with or
// without integrity.
var themedAsset = regexp.MustCompile(`<(?:link|script)\b[^>]*(?:href|src)="(/themes/[^"]+)"[^>]*>`)

var integrityAttr = regexp.MustCompile(`\bintegrity="([^"]*)"`)

// TestSRIMatchesServedBytes: in every theme, each stylesheet and script
// of a page, and the analytics script of a page that sends a page_view,
// carries integrity="sha256-…" equal to the SHA-256 of the bytes the
// site serves at that URL (a mismatch would block it in the browser).
// The page's CSP allows the worker (script-src 'self') and its pointer
// (connect-src 'self').
func TestSRIMatchesServedBytes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.note("A note with assets.")
	for _, name := range e.loader.Themes.Names() {
		e.config(func(c *murlog.PubConfig) {
			c.DesignTheme = name
			c.Extensions = `{"analytics":{"googleAnalytics":{"measurementId":"G-TEST1"}}}`
		})
		e.loader.Invalidate()
		r := e.get(e.postPath(p))
		if r.status != http.StatusOK {
			t.Fatalf("%s: post page %d", name, r.status)
		}
		tags := themedAsset.FindAllStringSubmatch(r.body, -1)
		var scripts, analytics int
		for _, m := range tags {
			if strings.HasPrefix(m[0], "<script") {
				scripts++
			}
			if strings.Contains(m[1], "/analytics.") {
				analytics++
			}
			if strings.HasPrefix(m[0], "<link") && !strings.Contains(m[0], `rel="stylesheet"`) {
				continue // a hashed image named by a <link> (none today) loads no code
			}
			a := integrityAttr.FindStringSubmatch(m[0])
			if a == nil {
				t.Errorf("%s: %s has no integrity", name, m[0])
				continue
			}
			if want := sri(t, e, m[1]); a[1] != want {
				t.Errorf("%s: %s: integrity %q; the served bytes are %q", name, m[1], a[1], want)
			}
		}
		if scripts < 3 || analytics != 1 {
			t.Errorf("%s: %d hashed scripts, %d analytics; want the theme's 3 and analytics.js (%q)", name, scripts, analytics, tags)
		}
		csp := r.header.Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self'", "connect-src 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", name, csp, want)
			}
		}
		if strings.Contains(csp, "worker-src") {
			t.Errorf("%s: CSP %q sets worker-src: it must allow /sw.js ('self')", name, csp)
		}
	}
}
