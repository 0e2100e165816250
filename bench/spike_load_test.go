package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/loadgen"
)

// Load harness for issue 16's boost spike: open loop (internal/loadgen),
// a new connection per visitor, 5,000 remote servers (actor JSON, note
// JSON, the post's HTML for a link preview) and 1,000 readers (the post
// page, its theme assets, the home page) evenly interleaved over 60 s,
// while the owner posts a note a second through the API, against a real
// `murlog serve` of 200 posts; then the same schedule against a trivial
// server replaying the bytes murlog answered for the same requests, in
// the same run.
//
//	MURLOG_BENCH_LOAD=1 go test -run SpikeLoad -v ./bench/   (part of make load)
//
// MURLOG_SPIKE_SECONDS (60) and MURLOG_SPIKE_SCALE (1: 100 visitors a
// second) size it, MURLOG_SPIKE_POSTS (200) the site.
func TestSpikeLoad(t *testing.T) {
	if os.Getenv("MURLOG_BENCH_LOAD") == "" {
		t.Skip("set MURLOG_BENCH_LOAD=1 to run the boost spike of issue 16 against murlog serve and a trivial server (about 2.5 minutes; make load)")
	}
	seconds, rate := loadgen.SpikeSize(os.Getenv)
	visitors := int(seconds * rate)
	s, sp := newSpikeSite(t, envInt("MURLOG_SPIKE_POSTS", 200))
	trivial, trivialPid := startReplay(t, s.base, sp)

	m, owner, mcpu := spikeRun(t, "murlog serve", s, s.pid, sp, rate, visitors)
	b, _, bcpu := spikeRun(t, "trivial", &server{base: trivial}, trivialPid, sp, rate, visitors)
	t.Logf("murlog against trivial, same schedule: p99 %s against %s (%.1f×), p50 %s against %s, CPU %.2f s against %.2f s (%.1f×)",
		loadgen.Ms(m.P99), loadgen.Ms(b.P99), ratio(m.P99, b.P99), loadgen.Ms(m.P50), loadgen.Ms(b.P50),
		mcpu.Seconds(), bcpu.Seconds(), ratio(mcpu, bcpu))

	if want := sp.Requests(visitors); m.Requests != want || b.Requests != want {
		t.Errorf("requests sent: %d to murlog, %d to trivial; want %d each", m.Requests, b.Requests, want)
	}
	if b.OK != b.Requests {
		t.Errorf("the trivial server failed %d of %d requests: the machine (or the generator) is overloaded, the run says nothing", b.Requests-b.OK, b.Requests)
	}
	checkSpikeTarget(t, "murlog serve", m, true)
	if owner.OK != owner.Requests {
		t.Errorf("the owner's posts.create: %d of %d failed: %v", owner.Requests-owner.OK, owner.Requests, owner.Kinds)
	}
}

// TestSpikeLimitLoad finds the machine's ceiling with the spike's mix: the
// visitor rate is raised ×1.25 every 10 s step against the trivial server
// until its first failed request or a p99 over 100 ms (or until the
// generator falls 100 ms behind its schedule, which it then says); the last rate
// that held is R. Then murlog serve on a 5,000-post site meets the spike
// at 60% of R, with the owner posting, for MURLOG_SPIKE_SECONDS.
//
//	MURLOG_BENCH_LOAD=1 go test -run SpikeLimitLoad -v ./bench/   (part of make load)
//
// MURLOG_LIMIT_POSTS (5,000), MURLOG_LIMIT_START (400 visitors a second)
// and MURLOG_LIMIT_STEP_SECONDS (10) tune it; MURLOG_LIMIT_CEILING gives R
// instead of searching for it (a ceiling an earlier run found).
func TestSpikeLimitLoad(t *testing.T) {
	if os.Getenv("MURLOG_BENCH_LOAD") == "" {
		t.Skip("set MURLOG_BENCH_LOAD=1 to find the visitor rate a trivial server holds and run murlog serve at 60% of it (about 4 minutes; make load)")
	}
	seconds, _ := loadgen.SpikeSize(os.Getenv)
	s, sp := newSpikeSite(t, envInt("MURLOG_LIMIT_POSTS", 5000))
	trivial, _ := startReplay(t, s.base, sp)
	step := float64(envInt("MURLOG_LIMIT_STEP_SECONDS", 10))
	var ceiling float64
	reason := "no step failed up to the last"
	given := envInt("MURLOG_LIMIT_CEILING", 0)
	if given > 0 {
		// A ceiling measured before, to meet its 60% again.
		ceiling, reason = float64(given), "MURLOG_LIMIT_CEILING gave it (no search this run)"
	}
	for rate, i := float64(envInt("MURLOG_LIMIT_START", 400)), 0; given == 0 && i < 25; rate, i = rate*1.25, i+1 {
		r := loadgen.Run(context.Background(), loadgen.Config{Addr: hostOf(trivial), Rate: rate, Visitors: int(rate * step), Visitor: sp.Visitor})
		sum := r.Summary()
		t.Logf("limit step %d, trivial at %.0f visitors/s:\n%s", i, rate, sum)
		if sum.OK != sum.Requests || sum.P99 > loadgen.SpikeP99 {
			reason = fmt.Sprintf("at %.0f visitors/s the trivial server failed %d requests, p99 %s", rate, sum.Requests-sum.OK, loadgen.Ms(sum.P99))
			break
		}
		// A lag as long as the p99 target: noise on a shared machine gives
		// a p99 of tens of milliseconds at any rate; a generator that
		// cannot keep up falls behind by far more.
		if sum.Lag.P99 > loadgen.SpikeP99 {
			reason = fmt.Sprintf("at %.0f visitors/s the generator fell behind (lag p99 %s): the ceiling found is the generator's, not the server's", rate, loadgen.Ms(sum.Lag.P99))
			break
		}
		ceiling = rate
	}
	if ceiling == 0 {
		t.Fatalf("the trivial server failed at the first step (%s): lower MURLOG_LIMIT_START", reason)
	}
	t.Logf("ceiling R = %.0f visitors/s (%.0f requests/s) with the trivial server; stopped because %s", ceiling, ceiling*float64(sp.Requests(600))/600, reason)

	rate := 0.6 * ceiling
	m, owner, _ := spikeRun(t, fmt.Sprintf("murlog serve at 60%% of R (%.0f visitors/s)", rate), s, s.pid, sp, rate, int(rate*seconds))
	checkSpikeTarget(t, "murlog serve at 60% of R", m, true)
	if owner.OK != owner.Requests {
		t.Errorf("the owner's posts.create: %d of %d failed: %v", owner.Requests-owner.OK, owner.Requests, owner.Kinds)
	}
}

// checkSpikeTarget logs whether sum meets the spike's target and, when
// strict, fails the test if it does not, unless every request succeeded
// and only the p99 missed while the generator was late too.
func checkSpikeTarget(t *testing.T, label string, sum loadgen.Summary, strict bool) {
	t.Helper()
	t.Log(sum.Verdict(label))
	if !sum.MeetsSpikeTarget() && strict && sum.OK == sum.Requests && sum.GeneratorBound() {
		// The generator could not keep its own schedule: the machine was
		// busy with more than this test, and so was the server.
		t.Logf("%s: p99 %s is not held against murlog: the generator itself started visitors late (lag p99 %s); run it on a quieter machine",
			label, loadgen.Ms(sum.P99), loadgen.Ms(sum.Lag.P99))
		return
	}
	if !sum.MeetsSpikeTarget() && strict {
		t.Errorf("%s: %.3f%% success, p99 %s; want 100%% and p99 ≤ %s", label, sum.Success(), loadgen.Ms(sum.P99), loadgen.Ms(loadgen.SpikeP99))
	}
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(max(b, 1)) }

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func hostOf(base string) string { return strings.TrimPrefix(base, "http://") }

// newSpikeSite is a murlog serve with posts posts, and the spike on one of
// its notes (seedBlog makes every third post an article).
func newSpikeSite(t *testing.T, posts int) (*server, loadgen.Spike) {
	t.Helper()
	s := startServer(t, "MURLOG_METRICS_TOKEN="+metricsToken)
	t0 := time.Now()
	ids := seedBlog(t, s, posts)
	i := len(ids) / 2
	if i%3 == 0 && i+1 < len(ids) {
		i++
	}
	sp := loadgen.Spike{Actor: "/@owner", Post: "/@owner/" + ids[i]}
	_, page := fetchOnce(t, s.base+sp.Post, loadgen.AcceptPage)
	sp.Assets = loadgen.ThemeAssets(page)
	if len(sp.Assets) == 0 {
		t.Fatalf("the post page links no theme asset under /themes/:\n%.2000s", page)
	}
	t.Logf("site of %d posts seeded in %.1f s; boosted post %s; its page loads %d theme assets: %s",
		posts, time.Since(t0).Seconds(), sp.Post, len(sp.Assets), strings.Join(sp.Assets, " "))
	return s, sp
}

// spikeRun runs the spike against s (with the owner posting when s has an
// owner) and logs the summaries; cpu is what process pid used meanwhile.
func spikeRun(t *testing.T, label string, s *server, pid int, sp loadgen.Spike, rate float64, visitors int) (crowd, owner loadgen.Summary, cpu time.Duration) {
	t.Helper()
	var post func(context.Context) (int, error)
	if s.owner != nil {
		post = loadgen.PostNotes(s.owner)
	}
	var public0 int
	if s.owner != nil {
		public0 = metricsSnapshot(t, http.DefaultClient, s.base)[`db_statements_total{class="public"}`]
	}
	cpu0, gen0 := procCPU(t, pid), procCPU(t, os.Getpid())
	c, o := sp.Run(context.Background(), hostOf(s.base), rate, visitors, post, time.Second)
	cpu, gen := procCPU(t, pid)-cpu0, procCPU(t, os.Getpid())-gen0
	if s.owner != nil {
		// The read path's promise: readers answered from artifacts cost
		// no statement, even with the owner posting meanwhile (what a
		// post renders counts as the worker's).
		m := metricsSnapshot(t, http.DefaultClient, s.base)
		t.Logf("public database statements during the spike: %d (artifact hits %d, misses %d, rebuilds %d since the server started)",
			m[`db_statements_total{class="public"}`]-public0, m["artifact_hits_total"], m["artifact_misses_total"], m["artifact_rebuilds_total"])
	}
	crowd = c.Summary()
	if !crowd.MeetsSpikeTarget() {
		t.Logf("the spike against %s second by second (a miss: when it fell behind, and why):\n%s", label, c.Timeline(time.Second))
	}
	t.Logf("spike against %s: %d visitors at %.0f/s; over the %.1f s the server used %.2f s of CPU (%.0f%% of one core), the generator (this test process) %.2f s (%.0f%%)\n%s",
		label, visitors, rate, crowd.Wall.Seconds(), cpu.Seconds(), 100*cpu.Seconds()/crowd.Wall.Seconds(), gen.Seconds(), 100*gen.Seconds()/crowd.Wall.Seconds(), crowd)
	if o != nil {
		owner = o.Summary()
		t.Logf("the owner's posts during it: %s", owner.ByName[0])
	}
	return crowd, owner, cpu
}

// replayFile, in the trivial server's folder, holds recorded responses to
// replay by request (TestTrivialServerProcess).
const replayFile = "replay.json"

// replayed is one recorded response and the request it answered.
type replayed struct {
	Key    string      `json:"key"`
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// replayKey is what the trivial server answers by: the target and the
// headers that select a representation.
func replayKey(target, accept, encoding string) string {
	return target + "\n" + accept + "\n" + encoding
}

// startReplay records murlog's answer to each distinct request of sp (as
// sent, compression included) and starts the trivial server replaying
// them; it returns its base URL and pid.
func startReplay(t *testing.T, base string, sp loadgen.Spike) (string, int) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	seen := map[string]bool{}
	var rec []replayed
	for _, r := range append(sp.Server(), sp.Reader()...) {
		key := replayKey(r.Path, r.Header.Get("Accept"), r.Header.Get("Accept-Encoding"))
		if seen[key] {
			continue
		}
		seen[key] = true
		req, _ := http.NewRequest(http.MethodGet, base+r.Path, nil)
		req.Header = r.Header.Clone()
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode >= 400 {
			t.Fatalf("recording %s %q: HTTP %d, %v", r.Name, r.Path, resp.StatusCode, err)
		}
		// Every header murlog sent (the same bytes: the security headers
		// too), but the date, which net/http writes for both.
		h := resp.Header.Clone()
		h.Del("Date")
		rec = append(rec, replayed{Key: key, Status: resp.StatusCode, Header: h, Body: body})
		t.Logf("recorded %-12s %-45s HTTP %d, %6d bytes, %s %s", r.Name, r.Path, resp.StatusCode, len(body), h.Get("Content-Type"), h.Get("Content-Encoding"))
	}
	dir := t.TempDir()
	b, _ := json.Marshal(rec)
	if err := os.WriteFile(filepath.Join(dir, replayFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return startTrivialProcess(t, dir)
}

// serveReplay is the trivial server of the spike: recorded bytes from
// memory, by replayKey, 404 for anything else.
func serveReplay(t *testing.T, recorded []byte) {
	var rec []replayed
	if err := json.Unmarshal(recorded, &rec); err != nil {
		t.Fatal(err)
	}
	by := map[string]replayed{}
	for _, r := range rec {
		by[r.Key] = r
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("addr=" + ln.Addr().String())
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x, ok := by[replayKey(r.URL.RequestURI(), r.Header.Get("Accept"), r.Header.Get("Accept-Encoding"))]
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range x.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(x.Status)
		w.Write(x.Body)
	}))
}
