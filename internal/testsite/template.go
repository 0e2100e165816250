package testsite

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the driver the store uses, to point a copy at its address

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/client"
)

// setUp is the site every test starts from: set up through the real
// wizard over HTTP and logged in once per test binary, then kept as the
// bytes of its files and the owner's cookies.
type setUp struct {
	files   map[string][]byte // path relative to the site directory
	cookies []*http.Cookie
	err     error
}

var (
	setUpOnce sync.Once
	setUpSite setUp
)

// copySetUp writes the set-up site into dir and points it at domain: the
// domain setting is the only place a site's address is stored, and the
// owner's sessions are moved to now on the site's clock so that a test
// clock far from today still finds them valid. It returns the owner's
// cookies, which the copied sessions accept.
func copySetUp(dir, domain string, now func() time.Time) ([]*http.Cookie, error) {
	setUpOnce.Do(func() { setUpSite = buildSetUp() })
	if setUpSite.err != nil {
		return nil, setUpSite.err
	}
	for name, b := range setUpSite.files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "media"), 0o755); err != nil {
		return nil, err
	}
	t := time.Now()
	if now != nil {
		t = now()
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "data", "murlog.db"))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	us := t.UnixMicro()
	if _, err := db.Exec(`UPDATE settings SET value = ? WHERE key = 'domain'`, domain); err != nil {
		return nil, fmt.Errorf("point the copy at %s: %w", domain, err)
	}
	if _, err := db.Exec(`UPDATE sessions SET expires_at = ? + (expires_at - created_at), created_at = ?, last_seen_at = ?`, us, us, us); err != nil {
		return nil, fmt.Errorf("move the owner's sessions to the site's clock: %w", err)
	}
	out := make([]*http.Cookie, len(setUpSite.cookies))
	for i, c := range setUpSite.cookies {
		cc := *c
		out[i] = &cc
	}
	return out, nil
}

// buildSetUp runs the wizard and a login against a real site in a
// directory of its own, then keeps its files.
func buildSetUp() setUp {
	dir, err := os.MkdirTemp("", "murlog-testsite-")
	if err != nil {
		return setUp{err: err}
	}
	defer os.RemoveAll(dir)
	logs := &SyncBuffer{}
	env := map[string]string{"MURLOG_SCHEME": "http"}
	a, err := app.New(context.Background(), app.Options{
		ConfigPath: filepath.Join(dir, "murlog.ini"),
		Getenv:     func(k string) string { return env[k] },
		Logger:     slog.New(slog.NewJSONHandler(logs, nil)),
		KeyPair:    KeyPair,
		Stderr:     logs,
	})
	if err != nil {
		return setUp{err: fmt.Errorf("app.New: %w", err)}
	}
	srv := httptest.NewServer(a)
	c := client.New(srv.URL)
	// The cookies as they were set, path included (the jar answers only
	// names and values): the completion page's cookie lives under /admin.
	rec := &cookieRecorder{next: http.DefaultTransport}
	c.HTTP.Transport = rec
	ctx := context.Background()
	err = c.Setup(ctx, strings.TrimPrefix(srv.URL, "http://"), "alice", Password)
	if err == nil {
		err = c.Login(ctx, Password)
	}
	if err == nil {
		// A set-up site in its steady state: what setup marked for the
		// artifacts is rendered, not left to every test's worker.
		if rb, _ := a.Artifacts(); rb != nil {
			_, err = rb.Run(ctx)
		}
	}
	srv.Close()
	a.Close()
	if err != nil {
		return setUp{err: fmt.Errorf("setup and login: %w\nlogs:\n%s", err, logs)}
	}
	s := setUp{files: map[string][]byte{}, cookies: rec.latest()}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		s.files[rel] = b
		return nil
	})
	if err != nil {
		return setUp{err: err}
	}
	return s
}

// cookieRecorder keeps the last Set-Cookie of each name and path.
type cookieRecorder struct {
	next  http.RoundTripper
	mu    sync.Mutex
	order []string
	set   map[string]*http.Cookie
}

func (r *cookieRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.set == nil {
		r.set = map[string]*http.Cookie{}
	}
	for _, c := range resp.Cookies() {
		k := c.Name + " " + c.Path
		if _, ok := r.set[k]; !ok {
			r.order = append(r.order, k)
		}
		r.set[k] = c
	}
	return resp, nil
}

// latest answers the cookies a browser would still hold: deleted ones
// (MaxAge < 0) left out.
func (r *cookieRecorder) latest() []*http.Cookie {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*http.Cookie
	for _, k := range r.order {
		if c := r.set[k]; c.MaxAge >= 0 && c.Value != "" {
			out = append(out, c)
		}
	}
	return out
}
