package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/internal/testsite"
)

// benchSite is a set-up murlog site on a file database, seeded with posts,
// whose handler the benchmarks call in process.
type benchSite struct {
	handler http.Handler // the app: logger, guard, auth middleware, JSON-RPC
	token   string       // an API token of the owner ("Bearer <token>")
	public  []string     // ids of published public posts (anonymous readers see them)
	all     []string     // ids of every seeded post
}

// seedBatch is the number of posts.create calls per JSON-RPC batch while
// seeding; api.MaxBatch is the limit.
const seedBatch = 100

// newBenchSite starts a site with testsite (temporary directory, real
// SQLite file, real wizard), creates an API token, swaps in an app whose
// logger formats every line but discards it, and seeds n posts through
// JSON-RPC batches of posts.create. It fails tb on any error.
func newBenchSite(tb testing.TB, n int) *benchSite {
	tb.Helper()
	ctx := context.Background()
	s := testsite.Start(tb, testsite.Options{})
	var tok struct {
		Token string `json:"token"`
	}
	if err := s.Client.Call(ctx, "tokens.create", map[string]string{"name": "bench"}, &tok); err != nil {
		tb.Fatalf("tokens.create: %v", err)
	}
	if !strings.HasPrefix(tok.Token, "mlg_") {
		tb.Fatalf("tokens.create returned %q", tok.Token)
	}

	// testsite's logger keeps every line in memory at debug level; a long
	// benchmark would grow it without bound. Reopen the same directory (as
	// a process restart would) with the production format and level, JSON
	// at info, written to io.Discard: the formatting cost stays measured.
	s.App.Close()
	a, err := app.New(ctx, app.Options{
		ConfigPath: filepath.Join(s.Dir, "murlog.ini"),
		Getenv:     func(k string) string { return s.Env[k] },
		Logger:     testsite.Discard(),
		KeyPair:    testsite.KeyPair,
	})
	if err != nil {
		tb.Fatalf("reopen app: %v", err)
	}
	s.App = a // testsite's cleanup closes s.App
	s.Server.Config.Handler = a

	bs := &benchSite{handler: a, token: tok.Token}
	t0 := time.Now()
	bs.seed(tb, n)
	tb.Logf("seeded %d posts (%d public) in %v", len(bs.all), len(bs.public), time.Since(t0).Round(time.Millisecond))
	return bs
}

// noteContent returns a typical note of about 200 characters with two
// hashtags and a link; i makes each one different.
func noteContent(i int) string {
	return fmt.Sprintf("Note %05d: spent the evening tuning the read pool of my little ActivityPub server. "+
		"WAL mode and one writer keep it simple; the write-up is at https://blog.example/posts/%d #golang #sqlite", i, i)
}

// seed creates n posts through the handler: every 25th is a draft and every
// 10th unlisted, so the anonymous predicate has rows to skip.
func (bs *benchSite) seed(tb testing.TB, n int) {
	tb.Helper()
	type call struct {
		JSONRPC string         `json:"jsonrpc"`
		Method  string         `json:"method"`
		Params  map[string]any `json:"params"`
		ID      int            `json:"id"`
	}
	var resp []struct {
		Result *struct {
			ID         string `json:"id"`
			Visibility string `json:"visibility"`
			State      string `json:"state"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	for start := 0; start < n; start += seedBatch {
		batch := make([]call, 0, seedBatch)
		for i := start; i < min(n, start+seedBatch); i++ {
			p := map[string]any{"content": noteContent(i), "language": "en"}
			if i%10 == 9 {
				p["visibility"] = "unlisted"
			}
			if i%25 == 24 {
				p["published_at"] = nil // a draft
			}
			batch = append(batch, call{JSONRPC: "2.0", Method: "posts.create", Params: p, ID: i})
		}
		body, err := json.Marshal(batch)
		if err != nil {
			tb.Fatal(err)
		}
		rec := bs.serve(body, true)
		if rec.Code != http.StatusOK {
			tb.Fatalf("seed batch at %d: HTTP %d: %s", start, rec.Code, rec.Body)
		}
		resp = resp[:0]
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
			tb.Fatalf("seed batch at %d: %v", start, err)
		}
		if len(resp) != len(batch) {
			tb.Fatalf("seed batch at %d: %d responses for %d calls", start, len(resp), len(batch))
		}
		for _, r := range resp {
			if r.Result == nil {
				tb.Fatalf("seed batch at %d: error %s", start, r.Error)
			}
			bs.all = append(bs.all, r.Result.ID)
			if r.Result.Visibility == "public" && r.Result.State == "published" {
				bs.public = append(bs.public, r.Result.ID)
			}
		}
	}
}

// serve sends one JSON-RPC request body through the app's handler, as the
// owner (bearer token) or anonymously, and returns the recorded response.
func (bs *benchSite) serve(body []byte, owner bool) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	bs.handler.ServeHTTP(rec, bs.request(body, owner))
	return rec
}

func (bs *benchSite) request(body []byte, owner bool) *http.Request {
	req := httptest.NewRequest(http.MethodPost, httpd.RPCPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if owner {
		req.Header.Set("Authorization", "Bearer "+bs.token)
	}
	return req
}

// respBufs recycles response buffers. A real server writes a response
// through a pooled 4 KB bufio.Writer into the socket; without the pool the
// recorder would allocate and grow a fresh buffer to the size of each
// response (24 KB for a 20-post page) and inflate the garbage collector's
// share of every figure with work only the harness does.
var respBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// call serves body and returns an error unless the answer is HTTP 200 (a
// single call's JSON-RPC error always sets another status). It is safe for
// concurrent use.
func (bs *benchSite) call(body []byte, owner bool) error {
	rec := httptest.NewRecorder()
	buf := respBufs.Get().(*bytes.Buffer)
	buf.Reset()
	rec.Body = buf
	bs.handler.ServeHTTP(rec, bs.request(body, owner))
	var err error
	if rec.Code != http.StatusOK {
		err = fmt.Errorf("HTTP %d: %s", rec.Code, rec.Body)
	}
	respBufs.Put(buf)
	return err
}

// rpc marshals one JSON-RPC request object.
func rpc(method string, params any) []byte {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params, "id": 1})
	if err != nil {
		panic(err)
	}
	return b
}

// getBodies returns posts.get requests for ids in a fixed pseudo-random
// order, so reads spread over the whole table instead of one hot row.
func getBodies(ids []string, n int) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([][]byte, n)
	for i := range out {
		out[i] = rpc("posts.get", map[string]string{"id": ids[r.IntN(len(ids))]})
	}
	return out
}

// listBody is posts.list for the newest page of the primary persona.
func listBody(limit int) []byte { return rpc("posts.list", map[string]int{"limit": limit}) }

// cursorBodies returns posts.list requests starting after random posts.
func cursorBodies(ids []string, limit, n int) [][]byte {
	r := rand.New(rand.NewPCG(3, 4))
	out := make([][]byte, n)
	for i := range out {
		out[i] = rpc("posts.list", map[string]any{"limit": limit, "cursor": ids[r.IntN(len(ids))]})
	}
	return out
}

// createBody is posts.create of a typical note.
func createBody(i int) []byte {
	return rpc("posts.create", map[string]string{"content": noteContent(i), "language": "en"})
}

// latencies collects per-call durations.
type latencies []time.Duration

// quantile returns the q-quantile (0 ≤ q ≤ 1) of sorted samples, by the
// nearest-rank method.
func quantile(sorted latencies, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// report adds p50, p90 and p99 in microseconds and the sample count to the
// benchmark result.
func (l latencies) report(b *testing.B) {
	s := slices.Clone(l)
	slices.Sort(s)
	b.ReportMetric(us(quantile(s, 0.50)), "p50-µs")
	b.ReportMetric(us(quantile(s, 0.90)), "p90-µs")
	b.ReportMetric(us(quantile(s, 0.99)), "p99-µs")
	b.ReportMetric(float64(len(s)), "samples")
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// median returns the median of xs (which it sorts).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}
