package app_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

// delta runs f and returns the statements counted meanwhile, by class.
func delta(s *testsite.Site, f func()) map[dbstat.Class]uint64 {
	before := s.App.Statements()
	f()
	after := s.App.Statements()
	out := map[dbstat.Class]uint64{}
	for c, v := range after {
		if d := v - before[c]; d > 0 {
			out[c] = d
		}
	}
	return out
}

// TestStatementsCountedByClass: every public read route counts its
// statements as "public", the owner's API as "owner", a job as "worker",
// and none leaves a statement unclassified ("system"). Until issue 16's
// artifacts serve them, public reads do run statements: the load harness
// will hold that count still.
func TestStatementsCountedByClass(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Env: map[string]string{"MURLOG_METRICS_TOKEN": "metrics-token-0123456789"}})
	var post struct {
		ID string `json:"id"`
	}
	d := delta(s, func() {
		if err := s.Client.Call(ctx, "posts.create", map[string]any{"content": "counted #things"}, &post); err != nil {
			t.Fatal(err)
		}
	})
	// The owner's call, and the rendering of its pages it waits for.
	if d[dbstat.Owner] == 0 || d[dbstat.Public] != 0 || d[dbstat.System] != 0 {
		t.Errorf("posts.create counted %v; want owner statements (and the worker's rendering) only", d)
	}
	get := func(path, accept string) int {
		req, _ := http.NewRequest("GET", s.Server.URL+path, nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	const ap = "application/activity+json"
	host := strings.TrimPrefix(s.Server.URL, "http://")
	for _, r := range []struct{ path, accept string }{
		{"/", "text/html"}, {"/@alice", "text/html"}, {"/@alice/" + post.ID, "text/html"}, {"/tags/things", "text/html"},
		{"/@alice/search?q=counted", "text/html"}, {"/@alice/feed.rss", ""}, {"/@alice/feed.atom", ""},
		{"/sitemap.xml", ""}, {"/robots.txt", ""},
		{"/@alice", ap}, {"/@alice/" + post.ID, ap}, {"/@alice/outbox", ap}, {"/@alice/followers", ap},
		{"/@alice/following", ap}, {"/@alice/featured", ap},
		{"/.well-known/webfinger?resource=acct:alice@" + host, ""}, {"/.well-known/nodeinfo", ""}, {"/nodeinfo/2.1", ""},
		{"/api/pub/v1/posts?limit=3", ""}, {"/@nobody", "text/html"},
	} {
		var status int
		d := delta(s, func() { status = get(r.path, r.accept) })
		if status >= 500 {
			t.Errorf("GET %s (%s): %d", r.path, r.accept, status)
		}
		for c, n := range d {
			if c != dbstat.Public {
				t.Errorf("GET %s (%s) counted %d statements as %s; want public only", r.path, r.accept, n, c)
			}
		}
	}
	// A job's statements are the worker's, whoever runs the batch.
	s.App.Registry().Handle("test.counted", func(ctx context.Context, j *queue.Job) error {
		return s.App.Store().View(ctx, func(tx store.Tx) error { _, err := tx.Settings().Get("site_name"); return err })
	}, queue.Policy{})
	s.App.Store().Update(dbstat.With(ctx, dbstat.Owner), func(tx store.Tx) error {
		return tx.Jobs().Enqueue(queue.NewJob("test.counted", nil))
	})
	d = delta(s, func() { s.App.NewWorker("test").RunBatch(ctx, 20, 5*time.Second) })
	if d[dbstat.Worker] == 0 || len(d) != 1 {
		t.Errorf("a worker batch counted %v; want worker statements only", d)
	}
	// Every process's counts reach /metrics: this one's directly, a closed
	// one's through the counts file.
	req, _ := http.NewRequest("GET", s.Server.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer metrics-token-0123456789")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, c := range dbstat.Classes() {
		if !strings.Contains(string(body), `db_statements_total{class="`+c.String()+`"} `) {
			t.Errorf("/metrics has no db_statements_total for %s:\n%s", c, body)
		}
	}
	if !strings.Contains(string(body), "\nwrite_breaker_open 0\n") {
		t.Errorf("/metrics has no closed write breaker gauge:\n%s", body)
	}
	public := s.App.Statements()[dbstat.Public]
	s.Restart(t)
	if got := metricValue(t, s, `db_statements_total{class="public"}`); got < public {
		t.Errorf("after a restart /metrics counts %d public statements; want at least the closed process's %d", got, public)
	}
}

// metricValue scrapes /metrics and returns the value of the series name.
func metricValue(t *testing.T, s *testsite.Site, name string) uint64 {
	t.Helper()
	req, _ := http.NewRequest("GET", s.Server.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer metrics-token-0123456789")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /metrics:\n%s", name, body)
	return 0
}

// TestSearchShieldDropsAreCounted: past the search shield's burst, each
// 429 is a search drop in shield_drops_total.
func TestSearchShieldDropsAreCounted(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Env: map[string]string{"MURLOG_METRICS_TOKEN": "metrics-token-0123456789"}})
	refused := 0
	for i := range 30 {
		resp, err := http.Get(s.Server.URL + "/@alice/search?q=word" + strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("30 searches at once met no shield")
	}
	if got := s.App.Drops()[dbstat.ShieldSearch]; got != uint64(refused) {
		t.Errorf("search drops %d; want %d (one per 429)", got, refused)
	}
	if got := metricValue(t, s, `shield_drops_total{shield="search"}`); got != uint64(refused) {
		t.Errorf("/metrics shield_drops_total search %d; want %d", got, refused)
	}
}
