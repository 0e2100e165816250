package bench

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"
)

// seedPosts is the size of the database every benchmark runs against.
const seedPosts = 5000

// warmup calls precede each timed loop, so the statement caches and the
// reader pool are warm and the loop measures the steady state.
const warmup = 200

// measure times every call of the benchmark loop, cycling through bodies,
// and reports p50/p90/p99 latency and throughput next to Go's mean ns/op.
func measure(b *testing.B, bs *benchSite, owner bool, bodies [][]byte) {
	for i := range warmup {
		if err := bs.call(bodies[len(bodies)-1-i%len(bodies)], owner); err != nil {
			b.Fatalf("warm-up: %v", err)
		}
	}
	b.ReportAllocs()
	lat := make(latencies, 0, 1<<15)
	i := 0
	for b.Loop() {
		body := bodies[i%len(bodies)]
		t0 := time.Now()
		err := bs.call(body, owner)
		lat = append(lat, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
	lat.report(b)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// callers are the two kinds of client the figures are taken for.
var callers = []struct {
	name  string
	owner bool
}{{"owner", true}, {"anon", false}}

// BenchmarkPostsGet is posts.get of a random post. Target: p50 ≤ 150 µs.
func BenchmarkPostsGet(b *testing.B) {
	bs := newBenchSite(b, seedPosts)
	for _, c := range callers {
		ids := bs.all // the owner sees drafts and unlisted posts too
		if !c.owner {
			ids = bs.public
		}
		bodies := getBodies(ids, 4096)
		b.Run(c.name, func(b *testing.B) { measure(b, bs, c.owner, bodies) })
	}
}

// BenchmarkPostsList is posts.list with limit 20: the newest page, and a
// page after a random cursor. Target: p50 ≤ 400 µs.
func BenchmarkPostsList(b *testing.B) {
	bs := newBenchSite(b, seedPosts)
	for _, c := range callers {
		b.Run(c.name, func(b *testing.B) { measure(b, bs, c.owner, [][]byte{listBody(20)}) })
	}
	for _, c := range callers {
		ids := bs.all
		if !c.owner {
			ids = bs.public
		}
		bodies := cursorBodies(ids, 20, 4096)
		b.Run(c.name+"-cursor", func(b *testing.B) { measure(b, bs, c.owner, bodies) })
	}
}

// BenchmarkPostsCreate is posts.create of a ~200-character note with
// hashtags and a link, as the owner with an API token. Target: p50 ≤ 1 ms.
func BenchmarkPostsCreate(b *testing.B) {
	bs := newBenchSite(b, seedPosts)
	bodies := make([][]byte, 1024)
	for i := range bodies {
		bodies[i] = createBody(seedPosts + i)
	}
	b.Run("owner", func(b *testing.B) { measure(b, bs, true, bodies) })
}

// BenchmarkHarness is the cost the in-process harness itself adds to every
// figure: httptest.NewRequest, httptest.NewRecorder (with a pooled body
// buffer) and a 24 KB response, the size of a 20-post page, around a
// handler that does nothing else. Subtract it to estimate murlog's share.
func BenchmarkHarness(b *testing.B) {
	page := bytes.Repeat([]byte("x"), 24<<10)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(page)
	})
	bs := &benchSite{handler: h, token: "mlg_x"}
	measure(b, bs, true, [][]byte{listBody(20)})
}
