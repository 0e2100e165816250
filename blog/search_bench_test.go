package blog_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/storetest"
	"github.com/murlog/murlog/theme"
)

// BenchmarkSearchAdversarial serves the crafted searches of storetest
// (every trigram and no match, terms the index cannot narrow, many
// terms, common words) from a site of 5,000 adversarial posts (long runs
// of one letter or pattern, notes of 3,000 characters, articles of 20,000
// and 100,000), through the handler with nothing kept between requests,
// as CGI serves them: load, search, KWIC lines, render. Each search must
// answer within 100 ms, with hits or with the 400 that says it is too
// expensive; the benchmark fails when one takes longer on average, and
// reports the slowest request and how many were stopped at the budget:
//
//	go test -run '^$' -bench SearchAdversarial -benchtime 20x ./blog/
func BenchmarkSearchAdversarial(b *testing.B) {
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	db, err := sqlite.Open(ctx, b.TempDir()+"/"+sqlite.FileName, sqlite.Options{Now: clock, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	storetest.SeedAdversarial(b, db, now, "alice", 5000, storetest.AdversarialRuns, storetest.AdversarialSize)
	l := &blog.Loader{Site: murlog.Site{Scheme: "https", Domain: "blog.example"}, Store: db,
		Themes: theme.NewSet(shippedThemes(b), theme.Options{Log: quiet}), Log: quiet, Now: clock}
	h := blog.NewHandler(l, blog.HandlerOptions{SearchBurst: 1e9})
	// The baseline, to compare runs on a noisy machine: the site page in
	// Plain mode (20 posts) from the same database.
	b.Run("baseline site page plain", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodGet, "/?mode=plain", nil)
		for b.Loop() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("GET / = %d", w.Code)
			}
		}
	})
	for _, c := range storetest.CraftedSearches {
		for _, mode := range []string{"kwic", "rich"} {
			b.Run(c.Name+"/"+mode, func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, "/search?mode="+mode+"&q="+url.QueryEscape(c.Q), nil)
				var slowest time.Duration
				stopped := 0
				for b.Loop() {
					start := time.Now()
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					slowest = max(slowest, time.Since(start))
					switch w.Code {
					case http.StatusOK:
					case http.StatusBadRequest:
						stopped++
					default:
						b.Fatalf("GET %s = %d", req.URL, w.Code)
					}
				}
				b.ReportMetric(float64(slowest)/1e6, "max-ms")
				b.ReportMetric(float64(stopped)/float64(b.N), "stopped/op")
				if avg := b.Elapsed() / time.Duration(b.N); avg > 100*time.Millisecond {
					b.Errorf("%s (%s): %v a search on average; want ≤ 100 ms", c.Name, mode, avg)
				}
			})
		}
	}
}
