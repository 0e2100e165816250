package blog_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/theme"
)

// TestRoutes: every route answers its status and content type, with the
// security headers on every response.
func TestRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := e.note("hello #golang world")
	a := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "An article", Content: "Body of the **article** #golang"})
	e.clock.Advance(time.Second)
	const html, js = "text/html; charset=utf-8", "application/json"
	for _, c := range []struct {
		path   string
		status int
		ctype  string
	}{
		{"/", 200, html},
		{"/?mode=plain&order=oldest", 200, html},
		{"/?mode=bogus&order=sideways&after=garbage", 200, html},
		{"/@alice", 200, html},
		{"/@ALICE", 200, html},
		{e.postPath(n), 200, html},
		{e.postPath(a), 200, html},
		{"/@alice/search?q=hello", 200, html},
		{"/@alice/search", 200, html},
		{"/search?q=article&mode=plain", 200, html},
		{"/tags/golang", 200, html},
		{"/tags/GoLang?mode=plain", 200, html},
		{"/tags/nothing-here", 200, html},
		{"/@alice/feed.rss", 200, "application/rss+xml; charset=utf-8"},
		{"/@alice/feed.atom", 200, "application/atom+xml; charset=utf-8"},
		{"/tags/golang/feed.rss", 200, "application/rss+xml; charset=utf-8"},
		{"/tags/golang/feed.atom", 200, "application/atom+xml; charset=utf-8"},
		{"/sitemap.xml", 200, "application/xml; charset=utf-8"},
		{"/robots.txt", 200, "text/plain; charset=utf-8"},
		{"/api/pub/posts/" + n.ID, 200, js},
		{"/api/pub/personas/alice/posts", 200, js},
		{"/api/pub/personas/alice/posts?limit=1&order=oldest", 200, js},
		{"/api/pub/personas/alice/config", 200, js},
		{"/api/pub/posts/by-ids?ids=" + n.ID + "," + a.ID, 200, js},
		{"/nope", 404, html},
		{"/@bob", 404, html},
		{"/@bob/" + n.ID, 404, html},
		{"/@alice/" + murlog.NewID(), 404, html},
		{"/@alice/not-an-id", 404, html},
		{"/@alice/" + n.ID + "/extra", 404, html},
		{"/api/pub/personas/bob/posts", 404, js},
		{"/api/pub/personas/bob/config", 404, js},
		{"/api/pub/posts/" + murlog.NewID(), 404, js},
		{"/api/pub/nothing", 404, js},
		{"/api/pub/personas/alice/posts?limit=21", 400, js},
		{"/api/pub/personas/alice/posts?limit=0", 400, js},
		{"/api/pub/personas/alice/posts?after=nope", 400, js},
		{"/themes/default/nothing.css", 404, ""},
	} {
		r := e.get(c.path, "Accept", "text/html")
		if strings.HasPrefix(c.path, "/api/") {
			r = e.get(c.path)
		}
		if r.status != c.status || c.ctype != "" && r.header.Get("Content-Type") != c.ctype {
			t.Errorf("GET %s = %d %q; want %d %q\n%.300s", c.path, r.status, r.header.Get("Content-Type"), c.status, c.ctype, r.body)
		}
		if r.header.Get("X-Content-Type-Options") != "nosniff" || r.header.Get("Content-Security-Policy") == "" ||
			r.header.Get("Referrer-Policy") != "strict-origin-when-cross-origin" {
			t.Errorf("GET %s: security headers nosniff=%q csp=%q referrer=%q", c.path, r.header.Get("X-Content-Type-Options"),
				r.header.Get("Content-Security-Policy"), r.header.Get("Referrer-Policy"))
		}
	}
	// The post itself shows on its page, with the article's title.
	if r := e.get(e.postPath(a)); !strings.Contains(r.body, "An article") || !strings.Contains(r.body, "<strong>article</strong>") {
		t.Errorf("article page lacks its title or content:\n%.2000s", r.body)
	}
	if r := e.get("/@alice"); r.header.Get("Vary") != "Accept" {
		t.Errorf("GET /@alice Vary = %q; want Accept (the URL answers ActivityPub too)", r.header.Get("Vary"))
	}
}

// TestHashedAssets: the stylesheet a page links is served, immutable.
func TestHashedAssets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	page := e.get("/")
	m := regexp.MustCompile(`href="((?:https?://[^/"]+)?/themes/[^"]+\.css)"`).FindStringSubmatch(page.body)
	if m == nil {
		t.Fatalf("the site page links no theme stylesheet:\n%.1500s", page.body)
	}
	r := e.get(m[1])
	if r.status != 200 || !strings.Contains(r.header.Get("Cache-Control"), "immutable") {
		t.Errorf("GET %s = %d Cache-Control %q; want 200 immutable", m[1], r.status, r.header.Get("Cache-Control"))
	}
}

// TestETagAndHEAD: pages, feeds and the API carry a strong ETag and
// no-cache; a matching If-None-Match gets 304 with no body; HEAD answers
// the headers alone.
func TestETagAndHEAD(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := e.note("cache me")
	for _, path := range []string{"/", e.postPath(n), "/@alice/feed.atom", "/api/pub/personas/alice/posts", "/sitemap.xml"} {
		r := e.get(path)
		tag := r.header.Get("ETag")
		if r.status != 200 || !strings.HasPrefix(tag, `"`) || r.header.Get("Cache-Control") != "no-cache" {
			t.Errorf("GET %s = %d ETag %q Cache-Control %q; want 200, a strong tag, no-cache", path, r.status, tag, r.header.Get("Cache-Control"))
			continue
		}
		if again := e.get(path); again.header.Get("ETag") != tag {
			t.Errorf("GET %s twice: ETag %q then %q; want the same for the same bytes", path, tag, again.header.Get("ETag"))
		}
		for _, inm := range []string{tag, "W/" + tag, `"other", ` + tag, "*"} {
			if nm := e.get(path, "If-None-Match", inm); nm.status != http.StatusNotModified || nm.body != "" {
				t.Errorf("GET %s If-None-Match %s = %d (%d bytes); want 304, empty", path, inm, nm.status, len(nm.body))
			}
		}
		if nm := e.get(path, "If-None-Match", `"stale"`); nm.status != 200 {
			t.Errorf("GET %s with a stale tag = %d; want 200", path, nm.status)
		}
		h := e.do(http.MethodHead, path, "")
		if h.status != 200 || h.body != "" || h.header.Get("ETag") != tag {
			t.Errorf("HEAD %s = %d, %d bytes, ETag %q; want 200, none, %q", path, h.status, len(h.body), h.header.Get("ETag"), tag)
		}
	}
	// A new post changes the site page, so its tag.
	before := e.get("/").header.Get("ETag")
	e.note("new one")
	if after := e.get("/").header.Get("ETag"); after == before {
		t.Errorf("ETag unchanged (%s) after a new post", after)
	}
}

// TestCSP: every page has a CSP without inline scripts; share widgets add
// their hosts only on pages that show them.
func TestCSP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := e.note("share me")
	plain := e.get(e.postPath(n)).header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(plain, want) {
			t.Errorf("CSP %q lacks %q", plain, want)
		}
	}
	if strings.Contains(plain, "unsafe-inline") || strings.Contains(plain, "twitter") {
		t.Errorf("CSP of a page without share buttons = %q; want no unsafe-inline, no widget hosts", plain)
	}
	e.config(func(c *murlog.PubConfig) { c.Extensions = `{"shareButtons":["hatena","x","mystery"]}` })
	r := e.get(e.postPath(n))
	csp := r.header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "https://platform.twitter.com") || !strings.Contains(csp, "https://b.st-hatena.com") ||
		strings.Contains(csp, "facebook") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP with X and Hatena on = %q; want their hosts, no facebook, no unsafe-inline", csp)
	}
	ix, ih := strings.Index(r.body, "twitter.com"), strings.Index(r.body, "hatena.ne.jp")
	if ix < 0 || ih < 0 || ix > ih {
		t.Errorf("share area: X at %d, Hatena at %d; want both, X first (the fixed order)", ix, ih)
	}
	if site := e.get("/").header.Get("Content-Security-Policy"); strings.Contains(site, "twitter") {
		t.Errorf("site page CSP = %q; share widgets are on post pages only", site)
	}
	if strings.Contains(e.get("/").body, "twitter.com/intent") {
		t.Error("the site page shows share buttons; want them on post pages only")
	}
	// Google Analytics: gtag.js and the theme's analytics script, and
	// their hosts in the CSP.
	e.config(func(c *murlog.PubConfig) {
		c.Extensions = `{"analytics":{"googleAnalytics":{"measurementId":"G-TEST1"}}}`
	})
	for _, path := range []string{"/", e.postPath(n)} {
		r := e.get(path)
		csp := r.header.Get("Content-Security-Policy")
		if !strings.Contains(r.body, "googletagmanager.com/gtag/js?id=G-TEST1") || !strings.Contains(r.body, `data-measurement-id="G-TEST1"`) ||
			!strings.Contains(csp, "https://www.googletagmanager.com") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("GET %s with GA: gtag and analytics.js in the page, the GA hosts in the CSP %q", path, csp)
		}
	}
}

// TestGoneAndNotFound: a deleted post is the theme's 410 page, an unknown
// one its 404 page.
func TestGoneAndNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := e.note("soon gone")
	if err := e.posts.Delete(ctx, n.ID); err != nil {
		t.Fatal(err)
	}
	r := e.get(e.postPath(n))
	if r.status != http.StatusGone || !strings.Contains(r.header.Get("Content-Type"), "text/html") || !strings.Contains(r.body, "<html") {
		t.Errorf("GET deleted post = %d %q; want the themed 410 page\n%.500s", r.status, r.header.Get("Content-Type"), r.body)
	}
	if strings.Contains(r.body, "soon gone") {
		t.Error("the 410 page shows the deleted post's text")
	}
	r = e.get("/no/such/page", "Accept", "text/html")
	if r.status != 404 || !strings.Contains(r.body, "<html") || !strings.Contains(r.body, "Page not found") {
		t.Errorf("GET unknown path = %d; want the themed 404 page\n%.500s", r.status, r.body)
	}
	if r := e.do(http.MethodPost, "/@alice", "x"); r.status != 404 {
		t.Errorf("POST /@alice = %d; want 404", r.status)
	}
}

// TestInjectionIsEscaped: markup in the site name, introduction, post
// title, display name and profile fields reaches the page as text.
func TestInjectionIsEscaped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const evil = `<script>alert(1)</script><img src=x onerror=alert(2)>`
	e.alice.DisplayName = "Al" + evil
	e.alice.Summary = "bio" + evil
	e.alice.Fields = []murlog.Field{{Name: "n" + evil, Value: "v" + evil}, {Name: "site", Value: `https://example.com/"><script>x</script>`}}
	e.update(func(tx store.Tx) error { return tx.Personas().Update(e.alice) })
	e.config(func(c *murlog.PubConfig) { c.SiteName, c.Introduction, c.Subtitle = "S"+evil, "I"+evil, "T"+evil })
	a := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "Title" + evil, Content: "text " + evil})
	e.clock.Advance(time.Second)
	for _, path := range []string{"/", "/@alice", e.postPath(a), "/search?q=Title", "/tags/x", "/@alice/feed.rss", "/api/pub/posts/" + a.ID,
		"/api/pub/personas/alice/config"} {
		r := e.get(path)
		for _, bad := range []string{"<script>alert", "<img src=x", "<script>x"} {
			if strings.Contains(r.body, bad) {
				i := strings.Index(r.body, bad)
				t.Errorf("GET %s carries %q unescaped: …%s…", path, bad, r.body[max(0, i-120):min(len(r.body), i+60)])
			}
		}
	}
	if r := e.get("/@alice"); !strings.Contains(r.body, "&lt;script&gt;alert(1)") {
		t.Error("the site page does not show the escaped text at all")
	}
}

// TestSiteCache: with SiteTTL the site settings are reused until
// Invalidate, which the app calls on every change.
func TestSiteCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.loader.SiteTTL = time.Hour
	e.config(func(c *murlog.PubConfig) { c.SiteName = "Before" })
	if r := e.get("/"); !strings.Contains(r.body, "Before") {
		t.Fatal("site name not shown")
	}
	e.config(func(c *murlog.PubConfig) { c.SiteName = "After" })
	if r := e.get("/"); !strings.Contains(r.body, "Before") {
		t.Error("the cached settings were not reused")
	}
	e.loader.Invalidate()
	if r := e.get("/"); !strings.Contains(r.body, "After") {
		t.Error("Invalidate did not drop the cached settings")
	}
}

// TestStoreFailureIs503: a store that cannot be read gives a 503 naming
// nothing of the cause but that (the site is down, not broken: come back
// later), HTML and API alike.
func TestStoreFailureIs503(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.note("x")
	e.db.Close()
	for _, path := range []string{"/", "/@alice", "/api/pub/personas/alice/posts", "/sitemap.xml"} {
		r := e.get(path)
		if r.status != 503 || strings.Contains(strings.ToLower(r.body), "sql") {
			t.Errorf("GET %s with the store closed = %d %q; want 503 with no detail", path, r.status, r.body)
		}
	}
}

// TestPostListCache: a post page's recent list and neighbours are reused
// while nothing changes, dropped by Invalidate (the app calls it after a
// post write), and end on their own when a scheduled post goes public —
// a moment no write marks.
func TestPostListCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.loader.SiteTTL = time.Hour
	first := e.post(post.CreateInput{Content: "firstnote"})
	e.clock.Advance(time.Minute)
	if r := e.get(e.postPath(first)); r.status != 200 || strings.Contains(r.body, "secondnote") {
		t.Fatalf("GET first post = %d", r.status)
	}
	e.clock.Advance(time.Minute)
	second := e.post(post.CreateInput{Content: "secondnote"})
	e.clock.Advance(time.Minute)
	if r := e.get(e.postPath(first)); strings.Contains(r.body, "secondnote") {
		t.Error("the cached recent list and neighbours were not reused")
	}
	e.loader.Invalidate()
	if r := e.get(e.postPath(first)); !strings.Contains(r.body, "secondnote") || !strings.Contains(r.body, e.postPath(second)) {
		t.Error("after Invalidate the recent list and the newer link do not show the new post")
	}
	later := e.post(post.CreateInput{Content: "scheduledbird", PublishedAt: post.Schedule{Mode: post.PublishAt, At: e.clock.Now().Add(time.Hour)}})
	e.loader.Invalidate() // the write; the post is not public yet
	if r := e.get(e.postPath(second)); strings.Contains(r.body, "scheduledbird") {
		t.Fatal("a scheduled post shows before its time")
	}
	e.clock.Advance(time.Hour + time.Second) // no write, no Invalidate
	if r := e.get(e.postPath(second)); !strings.Contains(r.body, "scheduledbird") || !strings.Contains(r.body, e.postPath(later)) {
		t.Error("the cached lists outlived the scheduled post's publication")
	}
}

// TestCachedPostFollowsWrites: a post kept by a resident server shows its
// edit and its deletion as soon as the write's Invalidate runs.
func TestCachedPostFollowsWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.loader.SiteTTL = time.Hour
	p := e.post(post.CreateInput{Content: "beforeedit"})
	if r := e.get(e.postPath(p)); !strings.Contains(r.body, "beforeedit") {
		t.Fatal("post page does not show the post")
	}
	text := "afteredit"
	if _, err := e.posts.Update(ctx, post.UpdateInput{ID: p.ID, Content: &text}); err != nil {
		t.Fatal(err)
	}
	e.loader.Invalidate()
	if r := e.get(e.postPath(p)); !strings.Contains(r.body, "afteredit") {
		t.Error("the edit does not show after Invalidate")
	}
	if err := e.posts.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	e.loader.Invalidate()
	if r := e.get(e.postPath(p)); r.status != 410 {
		t.Errorf("GET a deleted post = %d; want 410", r.status)
	}
}

// TestNoThemeChosenIsTheDefault: a site that never chose a theme (an
// empty design_theme, as a new site has) is rendered with the default
// theme, and nothing is logged as a fallback.
func TestNoThemeChosenIsTheDefault(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, nil))
	e.loader.Log = log
	e.loader.Themes = theme.NewSet(shippedThemes(t), theme.Options{Log: log})
	e.srv = httptest.NewServer(blog.NewHandler(e.loader))
	t.Cleanup(e.srv.Close)
	e.config(func(c *murlog.PubConfig) { c.DesignTheme = "" })
	p := e.note("hello")
	for _, path := range []string{"/", "/@alice/" + p.ID} {
		r := e.get(path)
		if r.status != 200 || !strings.Contains(r.body, "/themes/default/") {
			t.Errorf("GET %s = %d; want the default theme's page\n%.300s", path, r.status, r.body)
		}
	}
	if logs.Len() != 0 {
		t.Errorf("a site with no theme chosen logged:\n%s", logs.String())
	}
}

// TestAReadFromBeforeAnEditIsNotKept: a page whose read transaction began
// before an edit committed — and so reads the post as it was — while the
// edit's Invalidate ran before the page first asked the cache, does not
// keep the old post for the epoch: the next page shows the edit.
func TestAReadFromBeforeAnEditIsNotKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.loader.SiteTTL = time.Hour
	p := e.post(post.CreateInput{Content: "beforeedit"})
	e.loader.Invalidate()
	once := true
	e.loader.Store = beganEarly{e.db, func() {
		if !once {
			return
		}
		once = false
		text := "afteredit"
		if _, err := e.posts.Update(ctx, post.UpdateInput{ID: p.ID, Content: &text}); err != nil {
			t.Error(err)
		}
		e.loader.Invalidate()
	}}
	if r := e.get(e.postPath(p)); !strings.Contains(r.body, "beforeedit") {
		t.Fatal("the page whose transaction began before the edit should show the post as it was")
	}
	if r := e.get(e.postPath(p)); !strings.Contains(r.body, "afteredit") {
		t.Error("the next page shows the post as it was before the edit: an older read was kept")
	}
}

// beganEarly is a store whose read transactions take their snapshot, then
// let meanwhile run (a write in another goroutine) before reading on.
type beganEarly struct {
	*sqlite.DB
	meanwhile func()
}

func (b beganEarly) View(ctx context.Context, fn func(store.Tx) error) error {
	return b.DB.View(ctx, func(tx store.Tx) error {
		if _, err := tx.Personas().List(); err != nil { // the snapshot begins with the first read
			return err
		}
		b.meanwhile()
		return fn(tx)
	})
}
