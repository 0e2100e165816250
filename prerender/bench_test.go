package prerender_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/internal/testsite"
)

// BenchmarkHit is a public read answered from the micro-cache through the
// whole app handler (request log, guard, artifact layer), a WebFinger
// answer, a post page and a pointer in turn, with a logger that discards:
// what a hit costs beside the bytes.
func BenchmarkHit(b *testing.B) {
	s := testsite.Start(b, testsite.Options{})
	var post struct{ ID string }
	if err := s.Client.Call(ctx, "posts.create", map[string]any{"content": "a post"}, &post); err != nil {
		b.Fatal(err)
	}
	id := post.ID
	a, err := app.New(ctx, app.Options{ConfigPath: filepath.Join(s.Dir, "murlog.ini"), Getenv: func(k string) string { return s.Env[k] },
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), KeyPair: testsite.KeyPair})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	paths := []struct{ p, a string }{
		{"/.well-known/webfinger?resource=acct:alice@" + s.Domain(), ""},
		{"/@alice/" + id, "text/html"},
		{"/api/pub/personas/alice/posts?limit=5", ""},
	}
	for _, p := range paths {
		req := httptest.NewRequest("GET", p.p, nil)
		req.Host = s.Domain()
		if p.a != "" {
			req.Header.Set("Accept", p.a)
		}
		req.RemoteAddr = "127.0.0.1:1234"
		a.ServeHTTP(httptest.NewRecorder(), req)
		a.ServeHTTP(httptest.NewRecorder(), req)
	}
	for i := 0; b.Loop(); i++ {
		p := paths[i%len(paths)]
		req := httptest.NewRequest("GET", p.p, nil)
		req.Host = s.Domain()
		if p.a != "" {
			req.Header.Set("Accept", p.a)
		}
		req.RemoteAddr = "127.0.0.1:1234"
		w := httptest.NewRecorder()
		a.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d", p.p, w.Code)
		}
	}
}
