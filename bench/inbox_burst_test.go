package bench

import (
	"bufio"
	"context"
	"database/sql"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/loadgen"
	"github.com/murlog/murlog/internal/waitfor"

	_ "modernc.org/sqlite"
)

// The inbox burst (issue 16, Performance): 2,000 signed POSTs a second
// for 10 s, open loop — each POST starts when it is due, on a connection
// of its own if need be, whatever murlog answers — against `murlog
// serve` while its database writer is slowed. Nothing may answer 500;
// what the writer cannot take answers 503 with Retry-After; every
// accepted (202) activity is processed once the backlog drains.
//
//	MURLOG_BENCH_LOAD=1 go test -run InboxBurst -v ./bench/   (part of make load)
//
// The writer is slowed for real, with no knob in murlog: the test opens
// the site's own database file and holds its write lock (BEGIN
// IMMEDIATE) for burstHold out of every burstHold+burstGap, as a backup,
// a second process or a slow disk would, so murlog's writes wait in
// SQLite's busy handler. murlog's reads (WAL) are not held.
// MURLOG_BENCH_LOAD_SECONDS changes the 10 s, MURLOG_BENCH_INBOX_RATE the
// 2,000 a second.
const (
	burstRate   = 2000
	burstActors = 100 // 20 a second each: within the per-actor limit, so the writer is what refuses
	burstHold   = 150 * time.Millisecond
	burstGap    = 50 * time.Millisecond
)

func TestInboxBurst(t *testing.T) {
	if os.Getenv("MURLOG_BENCH_LOAD") == "" {
		t.Skip("set MURLOG_BENCH_LOAD=1 to load-test an inbox burst with a slowed writer (about 60 s; make load)")
	}
	d := loadSeconds()
	rate := burstRate
	if v, err := strconv.Atoi(os.Getenv("MURLOG_BENCH_INBOX_RATE")); err == nil && v > 0 {
		rate = v
	}
	actors := newActorFarm(t, burstActors)
	s := startServer(t, "MURLOG_ALLOW_PRIVATE_NETWORK=1", "MURLOG_METRICS_TOKEN="+metricsToken, "MURLOG_TRUSTED_PROXY=127.0.0.1/32")
	tr := &http.Transport{MaxIdleConnsPerHost: 1024}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}

	actors.warm(t, hc, s.base)
	signed := actors.creates(t, s.base, int(d.Seconds())*rate)
	drained := func() bool { return metricSum(t, hc, s.base, inboxBacklog...) == 0 }
	waitfor.Until(context.Background(), 100*time.Millisecond, time.Minute, drained) // the warm-up's
	before := metricsSnapshot(t, hc, s.base)

	stopHog := holdWriter(t, s.dir)
	start := time.Now()
	res := openLoop(hc, s.base, signed, rate)
	took := time.Since(start)
	after := metricsSnapshot(t, hc, s.base)
	stopHog()

	// Drain: every accepted activity is processed, none dead.
	drainStart := time.Now()
	waitfor.Until(context.Background(), 200*time.Millisecond, 5*time.Minute, drained)
	drainTook := time.Since(drainStart)
	final := metricsSnapshot(t, hc, s.base)

	accepted := res.byStatus[http.StatusAccepted]
	jobs := final.get(`queue_depth{topic="inbox.process"`) - before.get(`queue_depth{topic="inbox.process"`)
	done := final.get(`queue_depth{topic="inbox.process",state="done"}`) - before.get(`queue_depth{topic="inbox.process",state="done"}`)
	dead := final.get(`queue_depth{topic="inbox.process",state="dead"}`) - before.get(`queue_depth{topic="inbox.process",state="dead"}`)
	inboxStmts := after.get(`db_statements_total{class="inbox"}`) - before.get(`db_statements_total{class="inbox"}`)
	t.Logf("open loop at %d/s for %v (%d POSTs sent in %v), writer held %v of every %v:", rate, d, len(signed), took.Round(time.Millisecond), burstHold, burstHold+burstGap)
	t.Logf("  answers %v; accepted %.0f/s; p50 %.1f ms, p99 %.1f ms (all answers), p99 of 202s %.1f ms, of 503s %.1f ms",
		res.byStatus, float64(accepted)/took.Seconds(), ms(res.p50), ms(res.p99), ms(res.p99ok), ms(res.p99busy))
	t.Logf("  503s without Retry-After: %d; transport errors: %d", res.busyNoRetry, res.byStatus[0])
	t.Logf("  shield drops during the burst: %s", after.sub(before, "shield_drops_total{"))
	t.Logf("  inbox statements %d (%.0f/s, BEGIN and COMMIT included), worker statements %.0f/s",
		inboxStmts, float64(inboxStmts)/took.Seconds(), float64(after.get(`db_statements_total{class="worker"}`)-before.get(`db_statements_total{class="worker"}`))/took.Seconds())
	t.Logf("  backlog drained %v after the burst: %d inbox.process jobs enqueued, %d done, %d dead", drainTook.Round(100*time.Millisecond), jobs, done, dead)

	for st, k := range res.byStatus {
		if st >= 500 && st != http.StatusServiceUnavailable || st == 0 {
			t.Errorf("%d answers of HTTP %d (0: no answer); want none", k, st)
		}
	}
	if res.busyNoRetry > 0 {
		t.Errorf("%d 503s without Retry-After; want none", res.busyNoRetry)
	}
	if accepted == 0 || accepted+res.byStatus[http.StatusServiceUnavailable]+res.byStatus[http.StatusTooManyRequests] != len(signed) {
		t.Errorf("answers %v; want only 202, 503 and 429, some 202", res.byStatus)
	}
	// A sender that gave up waiting may have missed the 202 of an activity
	// that was stored: it retries and the retry is a duplicate. So every
	// 202 is among the jobs enqueued, and every job enqueued is done.
	if jobs < accepted || done != jobs || dead != 0 {
		t.Errorf("%d accepted, %d inbox.process jobs enqueued, %d done, %d dead; want every accepted activity enqueued and every job done", accepted, jobs, done, dead)
	}
}

// loadSeconds is how long a load phase runs: 10 s, or
// MURLOG_BENCH_LOAD_SECONDS.
func loadSeconds() time.Duration {
	if v, err := time.ParseDuration(os.Getenv("MURLOG_BENCH_LOAD_SECONDS") + "s"); err == nil && v > 0 {
		return v
	}
	return 10 * time.Second
}

// warm fills murlog's key cache: one Create per actor.
func (f *actorFarm) warm(t *testing.T, hc *http.Client, base string) {
	t.Helper()
	for i, a := range f.list {
		req := f.sign(t, base, a, a.create(-1-i), a.key)
		if st := do(hc, req.request(base)); st != http.StatusAccepted {
			t.Fatalf("warm-up POST by %s: HTTP %d", a.id, st)
		}
	}
}

// creates signs n Creates in advance, round the actors, on every core.
func (f *actorFarm) creates(t *testing.T, base string, n int) []*signedPost {
	signed := make([]*signedPost, n)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += runtime.GOMAXPROCS(0) {
				a := f.list[i%len(f.list)]
				signed[i] = f.sign(t, base, a, a.create(i), a.key)
			}
		}(w)
	}
	wg.Wait()
	return signed
}

// inboxBacklog are the inbox.process jobs not finished yet.
var inboxBacklog = []string{`queue_depth{topic="inbox.process",state="pending"}`, `queue_depth{topic="inbox.process",state="scheduled"}`,
	`queue_depth{topic="inbox.process",state="running"}`}

// holdWriter opens the site's database beside murlog and holds its write
// lock for burstHold of every burstHold+burstGap until the returned stop
// is called.
func holdWriter(t *testing.T, dir string) (stop func()) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "murlog.db"))
	if len(paths) != 1 {
		t.Fatalf("the site's database under %s: found %v", dir, paths)
	}
	db, err := sql.Open("sqlite", "file:"+paths[0]+"?_busy_timeout=30000")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer db.Close()
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		for ctx.Err() == nil {
			if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
				t.Errorf("hold the writer: %v", err)
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(burstHold):
			}
			conn.ExecContext(context.Background(), "COMMIT")
			select {
			case <-ctx.Done():
			case <-time.After(burstGap):
			}
		}
	}()
	return func() { cancel(); <-done }
}

type burstResult struct {
	byStatus                 map[int]int
	p50, p99, p99ok, p99busy time.Duration
	busyNoRetry              int
}

// openLoop sends posts[i] at i/rate seconds from the start, each in a
// goroutine of its own, and waits for every answer. Latency runs from
// when a POST was due.
func openLoop(hc *http.Client, base string, posts []*signedPost, rate int) burstResult {
	type answer struct {
		status  int
		retry   bool
		latency time.Duration
	}
	answers := make([]answer, len(posts))
	var wg sync.WaitGroup
	start := time.Now()
	for i, p := range posts {
		due := start.Add(time.Duration(i) * time.Second / time.Duration(rate))
		loadgen.Real.SleepUntil(due) // the open loop's clock
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := hc.Do(p.request(base))
			a := answer{latency: time.Since(due)}
			if err == nil {
				a.status, a.retry = resp.StatusCode, resp.Header.Get("Retry-After") != ""
				resp.Body.Close()
			}
			answers[i] = a
		}()
	}
	wg.Wait()
	r := burstResult{byStatus: map[int]int{}}
	var all, ok, busy []time.Duration
	for _, a := range answers {
		r.byStatus[a.status]++
		all = append(all, a.latency)
		switch a.status {
		case http.StatusAccepted:
			ok = append(ok, a.latency)
		case http.StatusServiceUnavailable, http.StatusTooManyRequests:
			busy = append(busy, a.latency)
			if !a.retry {
				r.busyNoRetry++
			}
		}
	}
	p := func(l []time.Duration, q int) time.Duration {
		if len(l) == 0 {
			return 0
		}
		slices.Sort(l)
		return l[len(l)*q/100]
	}
	r.p50, r.p99, r.p99ok, r.p99busy = p(all, 50), p(all, 99), p(ok, 99), p(busy, 99)
	return r
}

// metrics is one reading of /metrics: each sample line's value by its
// name and labels.
type metrics map[string]int

func metricsSnapshot(t *testing.T, hc *http.Client, base string) metrics {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+metricsToken)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	m := metrics{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.LastIndexByte(line, ' '); i > 0 && !strings.HasPrefix(line, "#") {
			v, _ := strconv.ParseFloat(line[i+1:], 64)
			m[line[:i]] = int(v)
		}
	}
	return m
}

// get sums the samples whose name and labels begin with prefix.
func (m metrics) get(prefix string) int {
	n := 0
	for k, v := range m {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}

// sub lists the samples beginning with prefix that moved since before.
func (m metrics) sub(before metrics, prefix string) string {
	var out []string
	for k, v := range m {
		if strings.HasPrefix(k, prefix) && v != before[k] {
			out = append(out, k[len(prefix):len(k)-1]+" "+strconv.Itoa(v-before[k]))
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// metricSum reads /metrics and sums the samples beginning with prefixes.
func metricSum(t *testing.T, hc *http.Client, base string, prefixes ...string) int {
	t.Helper()
	m := metricsSnapshot(t, hc, base)
	n := 0
	for _, p := range prefixes {
		n += m.get(p)
	}
	return n
}
