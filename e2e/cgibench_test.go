package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/internal/testsite"
)

// The CGI figure: `murlog cgi` for one RPC, process start to
// response written, schema check included, median ≤ 8 ms.
const cgiTarget = 8 * time.Millisecond

// benchSite is a set-up site with many posts in a document root, with
// murlog.cgi and the baseline program installed, owned by the CGI user.
type benchSite struct {
	dir    string
	domain string
	postID string
	cred   *syscall.Credential
	murlog *apachetest.CGI
	base   *apachetest.CGI
	// alt is another build of murlog measured beside this one
	// (MURLOG_BENCH_CGI_ALT), e.g. with a dependency swapped; nil without.
	alt *apachetest.CGI
}

func benchPosts() int {
	if n, err := strconv.Atoi(os.Getenv("MURLOG_BENCH_POSTS")); err == nil && n > 0 {
		return n
	}
	return 3000
}

// newBenchSite sets a site up in-process (faster than through CGI), posts
// n posts through the API in batches, then hands the directory over to
// the CGI programs.
func newBenchSite(tb testing.TB, n int) *benchSite {
	tb.Helper()
	ctx := context.Background()
	bs := &benchSite{dir: apachetest.NewDir(tb)}
	if uid, gid, ok, err := apachetest.CGICredential(); err != nil {
		tb.Fatal(err)
	} else if ok {
		bs.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	a, err := app.New(ctx, app.Options{ConfigPath: filepath.Join(bs.dir, "murlog.ini"),
		Getenv: func(string) string { return "" }, Logger: testsite.Discard(), KeyPair: testsite.KeyPair})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(a)
	bs.domain = strings.TrimPrefix(srv.URL, "http://")
	c := client.New(srv.URL)
	if err := c.Setup(ctx, bs.domain, "alice", password); err != nil {
		tb.Fatalf("setup: %v", err)
	}
	if err := c.Login(ctx, password); err != nil {
		tb.Fatalf("login: %v", err)
	}
	bs.postID = postBatches(tb, c, n)
	srv.Close()
	if err := a.Close(); err != nil {
		tb.Fatal(err)
	}
	install := func(src, name string) string {
		dst := filepath.Join(bs.dir, name)
		b, err := os.ReadFile(src)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			tb.Fatal(err)
		}
		return dst
	}
	prog := install(apachetest.Murlog(tb), apachetest.Script)
	base := install(apachetest.Build(tb, "./internal/apachetest/cgibaseline"), "baseline.cgi")
	var altProg string
	if p := os.Getenv("MURLOG_BENCH_CGI_ALT"); p != "" {
		altProg = install(p, "murlog-alt.cgi")
	}
	if bs.cred != nil {
		if err := apachetest.ChownTree(bs.dir, int(bs.cred.Uid), int(bs.cred.Gid)); err != nil {
			tb.Fatal(err)
		}
	}
	bs.murlog = &apachetest.CGI{Program: prog, ScriptName: "/" + apachetest.Script, Host: bs.domain, Credential: bs.cred}
	if altProg != "" {
		alt := *bs.murlog
		alt.Program = altProg
		bs.alt = &alt
	}
	bs.base = &apachetest.CGI{Program: base, Host: bs.domain, Credential: bs.cred}
	return bs
}

// postBatches posts n notes through c (the owner's), 100 to a JSON-RPC
// batch, and returns the last one's id.
func postBatches(tb testing.TB, c *client.Client, n int) string {
	tb.Helper()
	ctx := context.Background()
	var last string
	const para = "A paragraph of an ordinary note, with *some emphasis*, a [link](https://example.com/page) and a #tag, long enough to look like a real post on a small site. "
	for done := 0; done < n; {
		var batch []map[string]any
		for ; done < n && len(batch) < 100; done++ {
			batch = append(batch, map[string]any{"jsonrpc": "2.0", "id": done, "method": "posts.create",
				"params": map[string]any{"content": fmt.Sprintf("Post %d. %s%s", done, para, para)}})
		}
		body, _ := json.Marshal(batch)
		status, raw, err := c.Post(ctx, "/api/mur/v1/rpc", "application/json", body)
		if err != nil || status != http.StatusOK {
			tb.Fatalf("posts.create batch: HTTP %d, %v\n%.500s", status, err, raw)
		}
		var resps []client.Response
		if err := json.Unmarshal(raw, &resps); err != nil {
			tb.Fatal(err)
		}
		for _, r := range resps {
			if r.Error != nil {
				tb.Fatalf("posts.create: %v", r.Error)
			}
			var p postResult
			json.Unmarshal(r.Result, &p)
			last = p.ID
		}
	}
	return last
}

func rpcBody(method string, params any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	return b
}

var jsonHeader = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}}

// variant is one program run, measured process start → response written
// (stdout closed; for plain programs, exit).
type variant struct {
	key, name string
	run       func() (time.Duration, error)
	// handler, when not nil, collects the handler time murlog logs for
	// each run (duration_ms of its request log line).
	handler *[]time.Duration
}

// handlerTime reads duration_ms from murlog's request log line.
func handlerTime(stderr []byte) (time.Duration, bool) {
	for _, line := range bytes.Split(stderr, []byte("\n")) {
		var l struct {
			Msg        string  `json:"msg"`
			DurationMS float64 `json:"duration_ms"`
		}
		if json.Unmarshal(line, &l) == nil && l.Msg == "request" {
			return time.Duration(l.DurationMS * float64(time.Millisecond)), true
		}
	}
	return 0, false
}

func (bs *benchSite) variants() []variant {
	// call runs murlog for one request and checks its answer; what the
	// handler took (its request log) goes to handler.
	prog := bs.murlog
	call := func(name, method, path string, header http.Header, body []byte, want string, handler *[]time.Duration) func() (time.Duration, error) {
		prog := prog
		return func() (time.Duration, error) {
			resp, err := prog.Do(method, path, header, body)
			if err != nil {
				return 0, err
			}
			if resp.Status != http.StatusOK || !bytes.Contains(resp.Body, []byte(want)) {
				return 0, fmt.Errorf("%s: status %d, body %.300s; want 200 with %q\nstderr: %s", name, resp.Status, resp.Body, want, resp.Stderr)
			}
			if d, ok := handlerTime(resp.Stderr); ok {
				*handler = append(*handler, d)
			}
			return resp.Responded, nil
		}
	}
	rpc := func(method string, params any, want string, handler *[]time.Duration) func() (time.Duration, error) {
		return call(method, http.MethodPost, "/api/mur/v1/rpc", jsonHeader, rpcBody(method, params), want, handler)
	}
	exe := func(prog string, args ...string) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			cmd := exec.Command(prog, args...)
			cmd.Dir = bs.dir
			cmd.Env = []string{"PATH=/usr/bin:/bin"}
			if bs.cred != nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: bs.cred}
			}
			t0 := time.Now()
			err := cmd.Run()
			return time.Since(t0), err
		}
	}
	base := func(env ...string) func() (time.Duration, error) {
		c := *bs.base
		c.Env = env
		return func() (time.Duration, error) {
			resp, err := c.Do(http.MethodGet, "/baseline.cgi", nil, nil)
			if err != nil {
				return 0, err
			}
			if resp.Status != http.StatusOK {
				return 0, fmt.Errorf("baseline: status %d: %s", resp.Status, resp.Body)
			}
			return resp.Responded, nil
		}
	}
	page := func(path, want string, handler *[]time.Duration) func() (time.Duration, error) {
		return call("GET "+path, http.MethodGet, path, http.Header{"Accept": {"text/html,application/xhtml+xml"}}, nil, want, handler)
	}
	var getH, listH, pageH, altGetH, altPageH []time.Duration
	vs := []variant{
		{"murlog-posts.get", "murlog cgi posts.get", rpc("posts.get", map[string]string{"id": bs.postID}, bs.postID, &getH), &getH},
		{"murlog-posts.list", "murlog cgi posts.list", rpc("posts.list", map[string]any{}, `"items"`, &listH), &listH},
		{"murlog-post-page", "murlog cgi post page (HTML, themed)", page("/@alice/"+bs.postID, "<article", &pageH), &pageH},
		{"murlog-version", "murlog version (start-up, no CGI work)", exe(bs.murlog.Program, "version"), nil},
	}
	if bs.alt != nil {
		prog = bs.alt
		vs = append(vs,
			variant{"alt-posts.get", "alt murlog (MURLOG_BENCH_CGI_ALT) posts.get", rpc("posts.get", map[string]string{"id": bs.postID}, bs.postID, &altGetH), &altGetH},
			variant{"alt-post-page", "alt murlog post page", page("/@alice/"+bs.postID, "<article", &altPageH), &altPageH},
			variant{"alt-version", "alt murlog version", exe(bs.alt.Program, "version"), nil})
	}
	return append(vs,
		variant{"baseline-select", "baseline: Go+sqlite, one SELECT", base(), nil},
		variant{"baseline-hello", "baseline: Go+sqlite linked, no DB", base("CGIBASELINE_MODE=hello"), nil},
		variant{"floor-true", "floor: fork+exec /bin/true", exe("/bin/true"), nil},
	)
}

// BenchmarkCGIProcess runs murlog as a CGI program (no Apache) for one
// RPC against a site with thousands of posts, and the baselines, reporting
// the median and 90th percentile of process start → response written.
func BenchmarkCGIProcess(b *testing.B) {
	bs := newBenchSite(b, benchPosts())
	for _, v := range bs.variants() {
		b.Run(v.key, func(b *testing.B) {
			ds := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				d, err := v.run()
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, d)
			}
			st := stats(ds)
			b.ReportMetric(float64(st.median.Microseconds()), "median-µs")
			b.ReportMetric(float64(st.p90.Microseconds()), "p90-µs")
		})
	}
}

type summary struct {
	n                         int
	median, p90, mean, lo, hi time.Duration
}

func stats(ds []time.Duration) summary {
	if len(ds) == 0 {
		return summary{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return summary{n: len(s), median: s[len(s)/2], p90: s[len(s)*9/10], mean: sum / time.Duration(len(s)),
		lo: s[0], hi: s[len(s)-1]}
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64)
}

// TestCGITiming prints the CGI start-up table: murlog and the baselines
// exec'd directly (interleaved, ≥ 200 runs each), then the same requests
// through Apache, where the public post page and the Go+SQLite baseline
// are timed to first byte in 100 interleaved rounds (MURLOG_BENCH_TTFB_RUNS)
// and the test fails when the post page's median exceeds 1.8× the
// baseline's (issue 15, F). Run with MURLOG_BENCH_CGI=1 (MURLOG_BENCH_RUNS,
// MURLOG_BENCH_POSTS tune it; MURLOG_BENCH_CGI=strict fails when the
// median of murlog posts.get misses the 8 ms target). MURLOG_BENCH_CGI_ALT
// names another murlog binary (built from another commit, or with a
// dependency swapped) measured in the same interleaved runs.
func TestCGITiming(t *testing.T) {
	mode := os.Getenv("MURLOG_BENCH_CGI")
	if mode == "" {
		t.Skip("set MURLOG_BENCH_CGI=1 to measure CGI start-up")
	}
	runs := 200
	if n, err := strconv.Atoi(os.Getenv("MURLOG_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	bs := newBenchSite(t, benchPosts())
	vs := bs.variants()
	results := make([][]time.Duration, len(vs))
	for i := 0; i < runs+10; i++ { // interleaved, so drift hits all alike; 10 warm-up rounds
		for j, v := range vs {
			d, err := v.run()
			if err != nil {
				t.Fatalf("%s: %v", v.name, err)
			}
			if i >= 10 {
				results[j] = append(results[j], d)
			}
		}
	}
	var tbl strings.Builder
	tw := tabwriter.NewWriter(&tbl, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "process start → response written, %d posts\t runs\t median ms\t p90 ms\t mean ms\t min ms\t max ms\t\n", benchPosts())
	row := func(name string, st summary) {
		fmt.Fprintf(tw, "%s\t %d\t %s\t %s\t %s\t %s\t %s\t\n", name, st.n, ms(st.median), ms(st.p90), ms(st.mean), ms(st.lo), ms(st.hi))
	}
	for j, v := range vs {
		row(v.name, stats(results[j]))
		if v.handler != nil && len(*v.handler) > 10 {
			row("  of which handler (murlog's request log)", stats((*v.handler)[10:]))
		}
	}
	get := stats(results[0])
	if bs.alt != nil {
		// Runs of one round are next to each other in time, so the median
		// of their differences cancels most of the machine's drift.
		for _, pair := range [][2]string{{"murlog-posts.get", "alt-posts.get"}, {"murlog-post-page", "alt-post-page"}, {"murlog-version", "alt-version"}} {
			a, b := slices.IndexFunc(vs, func(v variant) bool { return v.key == pair[0] }), slices.IndexFunc(vs, func(v variant) bool { return v.key == pair[1] })
			diffs := make([]time.Duration, len(results[a]))
			for i := range diffs {
				diffs[i] = results[b][i] - results[a][i]
			}
			st := stats(diffs)
			fmt.Fprintf(tw, "%s − %s, paired by round\t %d\t %s\t\t %s\t\t\t\n", pair[1], pair[0], st.n, ms(st.median), ms(st.mean))
		}
	}

	// Exec'd directly, the post page against the baseline (no Apache).
	pageExec := stats(results[slices.IndexFunc(vs, func(v variant) bool { return v.key == "murlog-post-page" })])
	baseExec := stats(results[slices.IndexFunc(vs, func(v variant) bool { return v.key == "baseline-select" })])
	fmt.Fprintf(tw, "post page / baseline, exec'd, ratio of medians\t\t %.2f\t\t\t\t\t\n", float64(pageExec.median)/float64(baseExec.median))

	// The same through Apache: first the figure (post page against
	// the baseline, first byte, interleaved), then the rest sequentially.
	var ttfb ttfbResult
	if _, err := os.Stat(apachetest.Binary()); err == nil {
		s := apachetest.Start(t, apachetest.Options{DocRoot: bs.dir, Files: map[string]string{"hello.txt": "hello\n"}})
		// One request through Apache first so murlog writes its .htaccess.
		if _, _, _, err := s.Client().Get(context.Background(), "/"+apachetest.Script); err != nil {
			t.Fatal(err)
		}
		ttfb = measurePostPageFirstByte(t, s, bs)
		hc := &http.Client{}
		fetch := func(method, path string, body []byte, want string) func() (time.Duration, error) {
			return func() (time.Duration, error) {
				req, _ := http.NewRequest(method, s.URL+path, bytes.NewReader(body))
				if body != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				t0 := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					return 0, err
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				d := time.Since(t0)
				if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(want)) {
					return 0, fmt.Errorf("%s %s: HTTP %d, %v: %.300s", method, path, resp.StatusCode, err, b)
				}
				return d, nil
			}
		}
		for _, v := range []variant{
			{"", "Apache → murlog posts.get", fetch(http.MethodPost, "/api/mur/v1/rpc", rpcBody("posts.get", map[string]string{"id": bs.postID}), bs.postID), nil},
			{"", "Apache → murlog posts.list", fetch(http.MethodPost, "/api/mur/v1/rpc", rpcBody("posts.list", map[string]any{}), `"items"`), nil},
			{"", "Apache → baseline.cgi (keep-alive)", fetch(http.MethodGet, "/baseline.cgi", nil, ""), nil},
			{"", "Apache static file", fetch(http.MethodGet, "/hello.txt", nil, "hello"), nil},
		} {
			var ds []time.Duration
			for i := 0; i < runs+10; i++ {
				d, err := v.run()
				if err != nil {
					t.Fatalf("%s: %v", v.name, err)
				}
				if i >= 10 {
					ds = append(ds, d)
				}
			}
			row(v.name, stats(ds))
		}
		fmt.Fprintf(tw, "request written → first byte, through Apache, interleaved\t\t\t\t\t\t\t\n")
		row("Apache → murlog post page (HTML, anonymous)", ttfb.page)
		row("Apache → baseline.cgi (Go+sqlite, one SELECT)", ttfb.base)
		fmt.Fprintf(tw, "post page / baseline, first byte: ratio of medians (paired by round)\t\t %.2f (%.2f)\t\t\t\t\t\n", ttfb.ratio, ttfb.pairedRatio)
	} else {
		fmt.Fprintf(tw, "(Apache not installed: %s)\t\t\t\t\t\t\t\n", apachetest.Binary())
	}
	tw.Flush()
	t.Logf("CGI timing (%d CPUs):\n%s", runtime.NumCPU(), tbl.String())
	t.Logf("murlog package init (GODEBUG=inittrace=1), largest:\n%s", initTrace(t, bs.murlog, bs.postID))
	if bs.alt != nil {
		t.Logf("alt murlog package init, largest:\n%s", initTrace(t, bs.alt, bs.postID))
	}
	if ttfb.runs > 0 {
		// Issue 15, F: the public post page to first byte through Apache,
		// median of 100, at most 1.8× the Go+SQLite baseline of the same run.
		t.Logf("target: post page first byte ≤ %.1f× the Go+SQLite baseline: %.2f× (%s ms against %s ms, median of %d)",
			postPageRatioTarget, ttfb.ratio, ms(ttfb.page.median), ms(ttfb.base.median), ttfb.page.n)
		if ttfb.ratio > postPageRatioTarget {
			t.Errorf("post page first byte through Apache: median %s ms = %.2f× the baseline's %s ms; want ≤ %.1f×",
				ms(ttfb.page.median), ttfb.ratio, ms(ttfb.base.median), postPageRatioTarget)
		}
	}
	verdict := "met"
	if get.median > cgiTarget {
		verdict = "MISSED"
	}
	t.Logf("target: median of murlog posts.get ≤ %v: %s (median %s ms)", cgiTarget, verdict, ms(get.median))
	if verdict == "MISSED" && mode == "strict" {
		t.Errorf("murlog posts.get median %s ms; want ≤ %v", ms(get.median), cgiTarget)
	}
}

// initTrace runs one posts.get of prog with GODEBUG=inittrace=1 and
// lists the package initialisers that took longest, and their total.
func initTrace(t *testing.T, prog *apachetest.CGI, postID string) string {
	c := *prog
	c.Env = []string{"GODEBUG=inittrace=1"}
	resp, err := c.Do(http.MethodPost, "/api/mur/v1/rpc", jsonHeader, rpcBody("posts.get", map[string]string{"id": postID}))
	if err != nil {
		return err.Error()
	}
	type pkg struct {
		name  string
		clock float64
	}
	var ps []pkg
	var total float64
	for _, l := range strings.Split(string(resp.Stderr), "\n") {
		// init modernc.org/libc @0.51 ms, 0.40 ms clock, 1234 bytes, 5 allocs
		f := strings.Fields(l)
		if len(f) < 6 || f[0] != "init" {
			continue
		}
		v, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			continue
		}
		ps = append(ps, pkg{f[1], v})
		total += v
	}
	slices.SortFunc(ps, func(a, b pkg) int { return int((b.clock - a.clock) * 1e6) })
	var out strings.Builder
	for i, p := range ps {
		if i == 8 {
			break
		}
		fmt.Fprintf(&out, "  %-45s %.3f ms\n", p.name, p.clock)
	}
	fmt.Fprintf(&out, "  %d packages, %.3f ms in total (process total %s ms)", len(ps), total, ms(resp.Elapsed))
	return out.String()
}
