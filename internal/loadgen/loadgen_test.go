package loadgen

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/testclock"
)

// stepClock is a settable clock whose sleeps end overshoot after the time
// asked for: a generator descheduled on a busy machine. Only the
// scheduler sleeps, so reading and advancing need no lock between them.
type stepClock struct {
	*testclock.Clock
	overshoot time.Duration
}

func newStepClock(overshoot time.Duration) stepClock {
	return stepClock{testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), overshoot}
}

func (c stepClock) SleepUntil(t time.Time) {
	if now := c.Now(); t.After(now) {
		c.Advance(t.Sub(now) + c.overshoot)
	}
}

// The schedule is open loop: call i is due at t0 + i×every whatever came
// before, so a late generator starts the overdue calls at once (and says
// how late) instead of pushing the whole schedule back.
func TestScheduleIsOpenLoop(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	for _, tc := range []struct {
		name      string
		overshoot time.Duration
		starts    []time.Duration
		lags      []time.Duration
	}{
		{"on time", 0, []time.Duration{0, 100 * ms, 200 * ms, 300 * ms, 400 * ms}, []time.Duration{0, 0, 0, 0, 0}},
		{"a little late each time, never accumulating", 30 * ms,
			[]time.Duration{0, 130 * ms, 230 * ms, 330 * ms, 430 * ms}, []time.Duration{0, 30 * ms, 30 * ms, 30 * ms, 30 * ms}},
		{"later than the interval: the overdue start at once", 250 * ms,
			[]time.Duration{0, 350 * ms, 350 * ms, 350 * ms, 650 * ms}, []time.Duration{0, 250 * ms, 150 * ms, 50 * ms, 250 * ms}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := newStepClock(tc.overshoot)
			r := Calls(context.Background(), clock, "call", 100*ms, 5, func(context.Context) (int, error) { return 200, nil })
			if !slices.Equal(r.Starts, tc.starts) {
				t.Errorf("starts %v; want %v", r.Starts, tc.starts)
			}
			if !slices.Equal(r.Lag, tc.lags) {
				t.Errorf("lags %v; want %v", r.Lag, tc.lags)
			}
		})
	}
}

// Visitor i of a run starts at i/rate on the run's clock, and its requests
// follow in order.
func TestRunStartsVisitorsOnSchedule(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	t.Cleanup(srv.Close)
	clock := newStepClock(0)
	r := Run(context.Background(), Config{Addr: srv.Listener.Addr().String(), Rate: 250, Visitors: 8, Clock: clock,
		Visitor: func(int) []Request { return []Request{{Name: "a", Path: "/a"}, {Name: "b", Path: "/b"}} }})
	if len(r.Samples) != 16 {
		t.Fatalf("%d samples; want 16", len(r.Samples))
	}
	for i := 0; i < 8; i++ {
		want := time.Duration(i) * 4 * time.Millisecond
		if a, b := r.Samples[2*i], r.Samples[2*i+1]; a.Name != "a" || b.Name != "b" || r.Starts[i] != want || r.Lag[i] != 0 {
			t.Errorf("visitor %d: %s then %s, started at %v (lag %v); want a then b, at %v", i, a.Name, b.Name, r.Starts[i], r.Lag[i], want)
		}
	}
	if got := r.Summary().AchievedRate; got != 250 {
		t.Errorf("achieved rate %v; want 250", got)
	}
	if r.PeakInFlight < 1 || r.PeakInFlight > 8 {
		t.Errorf("peak in flight %d; want 1 to 8", r.PeakInFlight)
	}
}

// Each visitor dials its own connection and keeps it for its requests; a
// request that fails is counted by kind and the next one dials again.
func TestRunCountsOutcomesAndConnections(t *testing.T) {
	t.Parallel()
	var dialled atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) })
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	mux.HandleFunc("/cut", func(w http.ResponseWriter, r *http.Request) {
		c, _, _ := w.(http.Hijacker).Hijack()
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"))
		c.Close()
	})
	mux.HandleFunc("/reset", func(w http.ResponseWriter, r *http.Request) {
		c, _, _ := w.(http.Hijacker).Hijack()
		c.(*net.TCPConn).SetLinger(0) // close with RST
		c.Close()
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialled.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	reqs := []Request{{Name: "ok", Path: "/ok"}, {Name: "missing", Path: "/missing"}, {Name: "ok", Path: "/ok"},
		{Name: "slow", Path: "/slow"}, {Name: "cut", Path: "/cut"}, {Name: "reset", Path: "/reset"}, {Name: "ok", Path: "/ok"}}
	r := Run(context.Background(), Config{Addr: srv.Listener.Addr().String(), Rate: 1000, Visitors: 4,
		Timeout: 200 * time.Millisecond, Visitor: func(int) []Request { return reqs }})
	s := r.Summary()
	want := map[string]struct {
		requests, ok int
		kinds        map[string]int
	}{
		"ok":      {12, 12, map[string]int{}},
		"missing": {4, 0, map[string]int{"status 404": 4}},
		"slow":    {4, 0, map[string]int{KindTimeout: 4}},
		"cut":     {4, 0, map[string]int{KindClosed: 4}},
		"reset":   {4, 0, map[string]int{KindReset: 4}},
	}
	for _, g := range s.ByName {
		w := want[g.Name]
		if g.Requests != w.requests || g.OK != w.ok || !equalKinds(g.Kinds, w.kinds) {
			t.Errorf("%s: %d requests, %d ok, errors %v; want %d, %d, %v", g.Name, g.Requests, g.OK, g.Kinds, w.requests, w.ok, w.kinds)
		}
		if g.Name == "slow" && g.P50 < 200*time.Millisecond {
			t.Errorf("slow: p50 %v; want at least the 200 ms deadline", g.P50)
		}
		if g.Name == "ok" && g.Bytes != 12*5 {
			t.Errorf("ok: %d bytes; want %d", g.Bytes, 12*5)
		}
	}
	if s.Requests != 28 || s.OK != 12 || s.Timeouts() != 4 {
		t.Errorf("all: %d requests, %d ok, %d timeouts; want 28, 12, 4", s.Requests, s.OK, s.Timeouts())
	}
	// Per visitor: one connection for ok, missing, ok, slow; then one each
	// for cut, reset and the last ok, each after a broken one.
	if r.Conns != 16 || dialled.Load() != 16 {
		t.Errorf("connections: %d dialled by the generator, %d seen by the server; want 16 and 16", r.Conns, dialled.Load())
	}
}

func equalKinds(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestRunCountsRefusedConnections(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r := Run(context.Background(), Config{Addr: addr, Rate: 1000, Visitors: 3,
		Visitor: func(int) []Request { return []Request{{Name: "x", Path: "/"}} }})
	if s := r.Summary(); s.Requests != 3 || s.Kinds[KindRefused] != 3 {
		t.Errorf("against a closed port: %d requests, errors %v; want 3 refused", s.Requests, s.Kinds)
	}
}

// Calls name an error by its kind, and an HTTP failure by its status.
func TestCallsRecordErrors(t *testing.T) {
	t.Parallel()
	results := []struct {
		status int
		err    error
	}{{200, nil}, {503, errors.New("unavailable")}, {0, syscall.ECONNREFUSED}, {500, nil}}
	var i atomic.Int64
	r := Calls(context.Background(), newStepClock(0), "posts.create", time.Second, len(results), func(context.Context) (int, error) {
		x := results[i.Add(1)-1]
		return x.status, x.err
	})
	s := r.Summary()
	if want := map[string]int{"status 503": 1, KindRefused: 1, "status 500": 1}; s.OK != 1 || !equalKinds(s.Kinds, want) {
		t.Errorf("calls: %d ok, errors %v; want 1 ok, %v", s.OK, s.Kinds, want)
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	seq := func(n int) []time.Duration {
		s := make([]time.Duration, n)
		for i := range s {
			s[i] = time.Duration(i + 1)
		}
		return s
	}
	for _, tc := range []struct {
		n    int
		p    float64
		want time.Duration
	}{
		{0, 50, 0},
		{1, 50, 1}, {1, 99, 1}, {1, 100, 1},
		{4, 50, 2}, {4, 75, 3}, {4, 76, 4},
		{10, 90, 9}, {10, 99, 10},
		{100, 50, 50}, {100, 99, 99}, {100, 100, 100},
		{1000, 99, 990}, {1001, 99, 991},
		{21000, 99, 20790}, {21000, 50, 10500},
	} {
		if got := Percentile(seq(tc.n), tc.p); got != tc.want {
			t.Errorf("Percentile(1…%d, %v) = %d; want %d", tc.n, tc.p, got, tc.want)
		}
	}
}

func TestSummaryGroupsByName(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	r := &Result{Rate: 10, Launch: 2 * time.Second, Lag: []time.Duration{0, ms, 3 * ms}, Samples: []Sample{
		{Name: "b", Latency: 4 * ms}, {Name: "a", Latency: 1 * ms}, {Name: "b", Latency: 2 * ms, Kind: KindTimeout},
		{Name: "a", Latency: 3 * ms, Kind: "status 500"},
	}}
	s := r.Summary()
	if s.Requests != 4 || s.OK != 2 || s.Success() != 50 || s.P50 != 2*ms || s.Max != 4*ms {
		t.Errorf("all: %d requests, %d ok, %v%%, p50 %v, max %v; want 4, 2, 50%%, 2ms, 4ms", s.Requests, s.OK, s.Success(), s.P50, s.Max)
	}
	var names []string
	for _, g := range s.ByName {
		names = append(names, g.Name)
	}
	if !slices.Equal(names, []string{"b", "a"}) {
		t.Errorf("groups %v; want [b a] (order of first use)", names)
	}
	if s.AchievedRate != 1 || s.Lag.Max != 3*ms || s.Lag.P50 != ms {
		t.Errorf("achieved %v/s, lag p50 %v max %v; want 1/s, 1ms, 3ms", s.AchievedRate, s.Lag.P50, s.Lag.Max)
	}
	if out := s.String(); !strings.Contains(out, "status 500 1, timeout 1") || !strings.Contains(out, "50.000% success") {
		t.Errorf("report lacks the error kinds or the success rate:\n%s", out)
	}
}

func TestThemeAssets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, page string
		want       []string
	}{
		{"stylesheets, preload and scripts in order", `<head><link rel="stylesheet" href="/themes/default/site.abc.css">
<link rel=preload as=font href="/themes/default/f.woff2"><LINK REL='stylesheet' HREF='/themes/default/print.css'>
<script defer src="/themes/default/app.js"></script></head>`,
			[]string{"/themes/default/site.abc.css", "/themes/default/f.woff2", "/themes/default/print.css", "/themes/default/app.js"}},
		{"absolute URLs reduced to the path, query kept", `<link rel="stylesheet" href="http://example.com/themes/x/a.css?v=1">`, []string{"/themes/x/a.css?v=1"}},
		{"other links, inline scripts and other folders left out", `<link rel="alternate" href="/themes/x/feed.xml"><link rel="icon" href="/themes/x/i.png">
<script type="application/json">{}</script><script src="https://www.googletagmanager.com/gtag/js"></script><link rel="stylesheet" href="/media/a.css">`, nil},
		{"each once", `<link rel="stylesheet" href="/themes/a.css"><link rel="preload" href="/themes/a.css">`, []string{"/themes/a.css"}},
	} {
		if got := ThemeAssets([]byte(tc.page)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: ThemeAssets = %q; want %q", tc.name, got, tc.want)
		}
	}
}

func TestSpikeInterleavesReaders(t *testing.T) {
	t.Parallel()
	s := Spike{Actor: "/@o", Post: "/@o/1", Assets: []string{"/themes/a.css", "/themes/b.js"}}
	var servers, readers, requests int
	for i := 0; i < 6000; i++ {
		v := s.Visitor(i)
		requests += len(v)
		if v[0].Name == "post page" {
			readers++
		} else {
			servers++
		}
	}
	if servers != 5000 || readers != 1000 || requests != 5000*3+1000*4 {
		t.Errorf("6,000 visitors: %d servers, %d readers, %d requests; want 5000, 1000, %d", servers, readers, requests, 5000*3+1000*4)
	}
	if got := s.Visitor(5); got[len(got)-1].Path != "/" || got[1].Path != "/themes/a.css" {
		t.Errorf("reader: %+v; want the post page, its assets, then /", got)
	}
}

// Calls that wait for each other are all in flight at the last start.
func TestPeakInFlight(t *testing.T) {
	t.Parallel()
	const n = 5
	var started atomic.Int64
	all := make(chan struct{})
	r := Calls(context.Background(), newStepClock(0), "wait", time.Millisecond, n, func(context.Context) (int, error) {
		if started.Add(1) == n {
			close(all)
		}
		<-all
		return 200, nil
	})
	if r.PeakInFlight != n {
		t.Errorf("peak in flight %d; want %d", r.PeakInFlight, n)
	}
}

func TestTimelineBySecond(t *testing.T) {
	t.Parallel()
	ms, s := time.Millisecond, time.Second
	r := &Result{Samples: []Sample{
		{Start: 100 * ms, Latency: 2 * ms}, {Start: 900 * ms, Latency: 4 * ms},
		{Start: 2*s + ms, Latency: 9 * ms, Kind: KindOther, Err: "dial tcp: too many open files"},
		{Start: 2*s + 5*ms, Latency: 3 * ms},
	}}
	lines := strings.Split(strings.TrimSpace(r.Timeline(s)), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines; want 3 (seconds 0, 1 and 2):\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if !strings.Contains(lines[0], "2 req") || !strings.Contains(lines[0], "100.000% ok") || !strings.Contains(lines[1], "0 req") {
		t.Errorf("seconds 0 and 1:\n%s\n%s", lines[0], lines[1])
	}
	if !strings.Contains(lines[2], "50.000% ok") || !strings.Contains(lines[2], "other 1") || !strings.Contains(lines[2], "too many open files") {
		t.Errorf("second 2 lacks its failure: %s", lines[2])
	}
}
