// Package testsite starts real murlog sites for tests: a temporary
// directory, a real SQLite file, the real handler behind an httptest
// server, set up through the real wizard over HTTP.
package testsite

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/persona"
	"github.com/murlog/murlog/store"
)

// Password is the owner password of every test site.
const Password = "correct horse battery"

// Site is a running test site.
type Site struct {
	Dir    string // holds murlog.ini, data/, media/
	App    *app.App
	Server *httptest.Server
	Client *client.Client // logged in as the owner when the site is set up
	Env    map[string]string
	Logs   *SyncBuffer // every log line the app wrote
	now    func() time.Time
}

// Options tune a site.
type Options struct {
	Env  map[string]string // MURLOG_* overrides
	Now  func() time.Time
	Bare bool // no ini, no setup: the wizard's starting point
}

var (
	keyOnce       sync.Once
	keyPub, keyPr string
	keyErr        error
)

// KeyPair returns one RSA key pair generated once per test binary, so
// tests do not pay for RSA-2048 generation at every setup.
func KeyPair() (string, string, error) {
	keyOnce.Do(func() { keyPub, keyPr, keyErr = persona.NewKeyPair() })
	return keyPub, keyPr, keyErr
}

// New starts a site that is set up and has a logged-in client.
func New(tb testing.TB) *Site { return Start(tb, Options{}) }

// Start starts a site with options.
func Start(tb testing.TB, o Options) *Site {
	tb.Helper()
	dir := tb.TempDir()
	s := &Site{Dir: dir, Env: map[string]string{"MURLOG_SCHEME": "http"}, Logs: &SyncBuffer{}, now: o.Now}
	for k, v := range o.Env {
		s.Env[k] = v
	}
	s.Server = httptest.NewUnstartedServer(nil)
	base := "http://" + s.Server.Listener.Addr().String()
	var cookies []*http.Cookie
	if !o.Bare {
		// A copy of the site set up once per test binary, not the wizard
		// again: setup and login each cost an argon2 hash (most of a
		// second under -race), and a hundred tests start sites.
		var err error
		if cookies, err = copySetUp(dir, strings.TrimPrefix(base, "http://"), o.Now); err != nil {
			tb.Fatalf("a set-up site: %v", err)
		}
	}
	a, err := app.New(context.Background(), s.options(o.Now))
	if err != nil {
		tb.Fatalf("app.New: %v", err)
	}
	s.App = a
	s.Server.Config.Handler = a
	s.Server.Start()
	tb.Cleanup(func() {
		s.Server.Close()
		s.App.Close()
	})
	s.Client = client.New(s.Server.URL)
	if u, err := url.Parse(s.Server.URL); err == nil && cookies != nil {
		s.Client.HTTP.Jar.SetCookies(u, cookies)
	}
	return s
}

func (s *Site) options(now func() time.Time) app.Options {
	return app.Options{
		ConfigPath: filepath.Join(s.Dir, "murlog.ini"),
		Getenv:     func(k string) string { return s.Env[k] },
		Logger:     slog.New(slog.NewJSONHandler(s.Logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:        now,
		KeyPair:    KeyPair,
		Stderr:     s.Logs,
	}
}

// Domain is the host:port the site answers on.
func (s *Site) Domain() string { return strings.TrimPrefix(s.Server.URL, "http://") }

// NewClient returns a fresh, logged-out client for the site.
func (s *Site) NewClient() *client.Client { return client.New(s.Server.URL) }

// Restart closes the app and opens a new one over the same directory, as
// a process restart would, keeping the same address and clock.
func (s *Site) Restart(tb testing.TB) {
	tb.Helper()
	s.App.Close()
	a, err := app.New(context.Background(), s.options(s.now))
	if err != nil {
		tb.Fatalf("restart: %v", err)
	}
	s.App = a
	s.Server.Config.Handler = a
}

// SyncBuffer is a goroutine-safe log sink.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Discard is a logger that drops everything, for benchmarks.
func Discard() *slog.Logger { return slog.New(slog.NewJSONHandler(io.Discard, nil)) }

// WriteFile writes a file under the site directory.
func (s *Site) WriteFile(tb testing.TB, name, content string, mode os.FileMode) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(s.Dir, name), []byte(content), mode); err != nil {
		tb.Fatal(err)
	}
}

// Rename changes alice's display name in the database directly, behind
// the app's back, as another process would (nothing in this process is
// told).
func (s *Site) Rename(tb testing.TB, name string) {
	tb.Helper()
	if err := s.App.Store().Update(context.Background(), func(tx store.Tx) error {
		p, err := tx.Personas().GetByUsername("alice")
		if err != nil {
			return err
		}
		p.DisplayName = name
		return tx.Personas().Update(p)
	}); err != nil {
		tb.Fatal(err)
	}
}

// Settle renders what writes marked for the public site's artifacts, as
// the site's worker does a moment after a commit: the test of a write
// made behind the app's back (another process, the store directly) reads
// its effect after Settle. The owner's API renders its own writes before
// answering.
func (s *Site) Settle(tb testing.TB) {
	tb.Helper()
	rb, _ := s.App.Artifacts()
	if rb == nil {
		return
	}
	// A run has a budget and hands what is left to a new job, as the
	// worker's does; Settle runs them until no mark is left (a site-wide
	// change on a loaded machine takes more than one).
	for range 100 {
		st, err := rb.Run(context.Background())
		if err != nil {
			tb.Fatalf("rendering the marked artifacts: %v", err)
		}
		if st.Left <= 0 {
			return
		}
	}
	tb.Fatal("marks still left after 100 rebuild runs")
}
