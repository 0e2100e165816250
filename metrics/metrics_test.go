package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/metrics"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/queue/queuetest"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
)

var ctx = context.Background()

// source is what the app serves /metrics from: depth from the queue,
// counters from the embedded engine's database.
type source struct {
	*queue.Managed
	db *sqlite.DB
}

func (s source) Samples(ctx context.Context) ([]queue.Sample, error) {
	return s.db.Queue().Samples(ctx)
}

func open(t *testing.T) (*sqlite.DB, *queue.Managed, *queuetest.Clock) {
	t.Helper()
	c := queuetest.NewClock()
	db, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), "murlog.db"), sqlite.Options{Now: c.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, queue.New(db.Queue(), queue.Options{}), c
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// run claims every runnable job and acks each with the next result.
func run(t *testing.T, q *queue.Managed, results ...queue.Result) {
	t.Helper()
	js, err := q.DequeueBatch(ctx, nil, len(results))
	must(t, err)
	if len(js) != len(results) {
		t.Fatalf("claimed %d jobs; want %d", len(js), len(results))
	}
	acks := make([]queue.Ack, len(js))
	for i, j := range js {
		acks[i] = queue.Ack{Job: j, Result: results[i]}
	}
	must(t, q.AckBatch(ctx, acks))
}

// TestExposition drives a real SQLite queue through enqueues, runs of
// several durations, a retry and a dead letter, and checks the text
// Prometheus reads: every family with HELP and TYPE, depth for every
// state, counters by topic and result, and a cumulative histogram whose
// +Inf bucket equals its count.
func TestExposition(t *testing.T) {
	t.Parallel()
	db, q, c := open(t)
	var js []queue.Job
	for i := 0; i < 4; i++ {
		js = append(js, queue.NewJob("test.a", []byte(`{}`)))
	}
	must(t, q.EnqueueBatch(ctx, js))
	run(t, q,
		// Durations a float64 holds exactly, so the sum is exact too.
		queue.Result{Status: queue.Success, Duration: time.Second / 256},
		queue.Result{Status: queue.Success, Duration: time.Second / 32},
		queue.Result{Status: queue.Success, Duration: 2 * time.Minute},
		queue.Result{Status: queue.Retry, Err: errors.New("x"), Duration: time.Second / 32})
	dead := queue.NewJob("test.b", []byte(`{}`))
	must(t, q.Enqueue(ctx, dead))
	pending := queue.NewJob("test.b", []byte(`{}`))
	pending.Delay = time.Hour
	must(t, q.Enqueue(ctx, pending))
	run(t, q, queue.Result{Status: queue.Dead, Err: errors.New("gone")})
	c.Add(time.Second)
	must(t, db.Queue().SetGauge(ctx, "worker_concurrency", 8))

	body, err := metrics.Render(ctx, source{q, db})
	must(t, err)
	text := string(body)
	for _, want := range []string{
		"# HELP queue_depth Jobs in the queue by topic and state.\n# TYPE queue_depth gauge\n",
		`queue_depth{topic="test.a",state="pending"} 0`,
		`queue_depth{topic="test.a",state="scheduled"} 1`,
		`queue_depth{topic="test.a",state="done"} 3`,
		`queue_depth{topic="test.b",state="scheduled"} 1`,
		`queue_depth{topic="test.b",state="dead"} 1`,
		"# TYPE queue_enqueued_total counter\n",
		`queue_enqueued_total{topic="test.a"} 4`,
		`queue_enqueued_total{topic="test.b"} 2`,
		`queue_processed_total{topic="test.a",result="success"} 3`,
		`queue_processed_total{topic="test.a",result="retry"} 1`,
		`queue_processed_total{topic="test.b",result="dead"} 1`,
		`queue_dlq_total{topic="test.b"} 1`,
		"# TYPE queue_duration_seconds histogram\n",
		`queue_duration_seconds_bucket{topic="test.a",le="0.005"} 1`,
		`queue_duration_seconds_bucket{topic="test.a",le="0.025"} 1`,
		`queue_duration_seconds_bucket{topic="test.a",le="0.05"} 3`,
		`queue_duration_seconds_bucket{topic="test.a",le="60"} 3`,
		`queue_duration_seconds_bucket{topic="test.a",le="+Inf"} 4`,
		`queue_duration_seconds_count{topic="test.a"} 4`,
		`queue_duration_seconds_sum{topic="test.a"} 120.06640625`,
		`queue_duration_seconds_bucket{topic="test.b",le="0.005"} 1`,
		`queue_duration_seconds_count{topic="test.b"} 1`,
		"worker_concurrency 8\n",
	} {
		if !strings.HasSuffix(want, "\n") {
			want += "\n" // a whole line
		}
		if !strings.Contains(text, want) {
			t.Errorf("exposition lacks %q:\n%s", want, text)
		}
	}
	// Buckets are cumulative: never decreasing in le order.
	prev := -1.0
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, `queue_duration_seconds_bucket{topic="test.a"`) {
			continue
		}
		var v float64
		f := strings.Fields(l)
		if _, err := fmt.Sscan(f[len(f)-1], &v); err != nil || v < prev {
			t.Errorf("bucket line %q after %v: not cumulative", l, prev)
		}
		prev = v
	}
}

// TestCountersSpanProcesses: counts a process holds are written when it
// closes, so a scrape served by another process (a CGI-spawned worker
// ran the jobs) sees them.
func TestCountersSpanProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "murlog.db")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	worker, err := sqlite.Open(ctx, path, sqlite.Options{Logger: quiet})
	must(t, err)
	q := queue.New(worker.Queue(), queue.Options{})
	must(t, q.Enqueue(ctx, queue.NewJob("test.x", []byte(`{}`))))
	run(t, q, queue.Result{Status: queue.Success})
	must(t, worker.Close())

	scraper, err := sqlite.Open(ctx, path, sqlite.Options{Logger: quiet})
	must(t, err)
	defer scraper.Close()
	body, err := metrics.Render(ctx, source{queue.New(scraper.Queue(), queue.Options{}), scraper})
	must(t, err)
	for _, want := range []string{`queue_enqueued_total{topic="test.x"} 1`, `queue_processed_total{topic="test.x",result="success"} 1`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("another process's scrape lacks %q:\n%s", want, body)
		}
	}
}

// TestHandlerToken: no token configured means no endpoint (404); a
// missing or wrong bearer token is 401 with a challenge; the right one
// gets the text format; a source that fails is 503, not a partial page.
func TestHandlerToken(t *testing.T) {
	t.Parallel()
	db, q, _ := open(t)
	src := source{q, db}
	for _, tc := range []struct {
		name, token, auth string
		want              int
	}{
		{"off", "", "Bearer anything", http.StatusNotFound},
		{"no header", "s3cret-token", "", http.StatusUnauthorized},
		{"wrong token", "s3cret-token", "Bearer s3cret-tokem", http.StatusUnauthorized},
		{"not bearer", "s3cret-token", "Basic s3cret-token", http.StatusUnauthorized},
		{"right token", "s3cret-token", "Bearer s3cret-token", http.StatusOK},
	} {
		srv := httptest.NewServer(metrics.Handler(tc.token, src))
		req, _ := http.NewRequest("GET", srv.URL+"/metrics", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		res, err := http.DefaultClient.Do(req)
		must(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		srv.Close()
		if res.StatusCode != tc.want {
			t.Errorf("%s: GET /metrics = %d; want %d", tc.name, res.StatusCode, tc.want)
		}
		switch tc.want {
		case http.StatusUnauthorized:
			if res.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s: 401 without a WWW-Authenticate challenge", tc.name)
			}
		case http.StatusOK:
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
				t.Errorf("%s: Content-Type %q; want the Prometheus text format", tc.name, ct)
			}
			if !strings.Contains(string(body), "# TYPE queue_depth gauge") {
				t.Errorf("%s: body lacks the exposition: %s", tc.name, body)
			}
		}
	}
	must(t, db.Close())
	srv := httptest.NewServer(metrics.Handler("s3cret-token", src))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer s3cret-token")
	res, err := http.DefaultClient.Do(req)
	must(t, err)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET /metrics with the database closed = %d; want 503", res.StatusCode)
	}
}
