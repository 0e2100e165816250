package blog_test

import (
	"context"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/internal/testclock"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
	"github.com/murlog/murlog/store/storetest"
	"github.com/murlog/murlog/theme"
)

var ctx = context.Background()

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// env is the blog over a real SQLite file with the shipped themes behind
// a real HTTP server, one primary persona (alice) and a settable clock.
type env struct {
	t      *testing.T
	clock  *testclock.Clock
	db     *sqlite.DB
	site   murlog.Site
	posts  *post.Service
	alice  *murlog.Persona
	loader *blog.Loader
	h      *blog.Handler
	srv    *httptest.Server
}

// shippedThemes is the repository's web/themes folder; before the
// shipped designs exist, the theme package's test themes.
func shippedThemes(t testing.TB) fs.FS {
	t.Helper()
	for _, dir := range []string{filepath.Join("..", "web", "themes"), filepath.Join("..", "theme", "testdata", "themes")} {
		if _, err := os.Stat(filepath.Join(dir, theme.Default, "theme.json")); err == nil {
			return os.DirFS(dir)
		}
	}
	t.Fatal("no themes: neither web/themes/default nor theme/testdata/themes/default exists")
	return nil
}

func newEnv(t *testing.T) *env {
	t.Helper()
	c := testclock.New(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))
	path := filepath.Join(t.TempDir(), sqlite.FileName)
	schema.CopyTo(t, path)
	db, err := sqlite.Open(ctx, path, sqlite.Options{Now: c.Now, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &env{t: t, clock: c, db: db, site: murlog.Site{Scheme: "https", Domain: "blog.example"}}
	e.alice = storetest.NewPersona("alice", true, c.Now())
	e.alice.Summary = "I write.\nSometimes."
	e.update(func(tx store.Tx) error { return tx.Personas().Create(e.alice) })
	e.posts = post.New(db, e.site)
	// A search's budget is wall time: a loaded machine running -race
	// must not turn a test's search into "too expensive" (the budget has
	// its own tests).
	e.loader = &blog.Loader{Site: e.site, Store: db, Themes: theme.NewSet(shippedThemes(t), theme.Options{Log: quiet}), Log: quiet, Now: c.Now,
		SearchBudget: time.Minute}
	// Tests search from one address far more than a reader would; the
	// shield has its own test.
	e.h = blog.NewHandler(e.loader, blog.HandlerOptions{SearchBurst: 1e6})
	e.srv = httptest.NewServer(e.h)
	t.Cleanup(e.srv.Close)
	return e
}

func (e *env) update(fn func(tx store.Tx) error) {
	e.t.Helper()
	if err := e.db.Update(ctx, fn); err != nil {
		e.t.Fatal(err)
	}
}

// config stores alice's site settings, starting from the defaults.
func (e *env) config(edit func(c *murlog.PubConfig)) {
	e.t.Helper()
	c := murlog.DefaultPubConfig(e.alice.ID)
	edit(c)
	c.UpdatedAt = e.clock.Now()
	e.update(func(tx store.Tx) error { return tx.PubConfigs().Put(c) })
}

// post creates one of alice's posts through the post service.
func (e *env) post(in post.CreateInput) *murlog.Post {
	e.t.Helper()
	p, err := e.posts.Create(ctx, in)
	if err != nil {
		e.t.Fatalf("Create(%+v): %v", in, err)
	}
	return p
}

// note publishes a public note now and moves the clock on a second, so
// posts have distinct publication times.
func (e *env) note(text string) *murlog.Post {
	e.t.Helper()
	p := e.post(post.CreateInput{Content: text})
	e.clock.Advance(time.Second)
	return p
}

type resp struct {
	status int
	header http.Header
	body   string
}

// get fetches path (a path with query, or an absolute URL of the site,
// whose path and query are used) with headers given as name, value pairs.
func (e *env) get(path string, hdr ...string) resp {
	e.t.Helper()
	return e.do(http.MethodGet, path, "", hdr...)
}

func (e *env) do(method, path, body string, hdr ...string) resp {
	e.t.Helper()
	if u, err := url.Parse(path); err == nil && u.IsAbs() {
		path = u.RequestURI()
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := e.client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp{res.StatusCode, res.Header, string(b)}
}

// client follows redirects to the site's absolute URLs (https://blog.example/…)
// on the test server.
func (e *env) client() *http.Client {
	c := *e.srv.Client()
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return http.ErrUseLastResponse
		}
		if req.URL.Host == e.site.Domain {
			srv, _ := url.Parse(e.srv.URL)
			req.URL.Scheme, req.URL.Host, req.Host = srv.Scheme, srv.Host, srv.Host
		}
		return nil
	}
	return &c
}

// postPath is a post's page: its slug address, or its id's without one.
func (e *env) postPath(p *murlog.Post) string { return "/@alice/" + url.PathEscape(seg(p)) }

// seg is the last segment of a post's page address.
func seg(p *murlog.Post) string {
	if p.Slug != "" {
		return p.Slug
	}
	return p.ID
}

func urlQuery(s string) string { return url.QueryEscape(s) }

// schema is the migrated database tests copy (migrating a file per test
// cost about a second under -race).
var schema = sqlitetest.Template{Build: func(path string) error {
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	return db.Close()
}}
