package e2e

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/artifact"
)

// Issue 16's CGI targets for an artifact hit, against Apache serving the
// same file as a plain static file of the document root.
const (
	hitThroughputTarget = 0.90 // of the static file's requests per second
	hitFirstByteTarget  = 2.0  // times the static file's first-byte median
)

// TestArtifactHitTiming measures what the artifact rules cost: a post
// page answered from the artifact folder through the managed block's
// rules, against the same bytes as a static file of the document root
// (which parses the same .htaccess) and through a bare one-rule rewrite
// into the artifact folder (the least any rewrite there costs): ab at a
// fixed concurrency with keep-alive, Apache's CPU time per request, and
// first-byte medians of sequential requests. Run with MURLOG_BENCH_CGI=1
// (MURLOG_BENCH_CGI=strict fails below the targets; MURLOG_BENCH_RUNS
// sets the rounds); it needs ab (Debian: apache2-utils).
func TestArtifactHitTiming(t *testing.T) {
	mode := os.Getenv("MURLOG_BENCH_CGI")
	if mode == "" {
		t.Skip("set MURLOG_BENCH_CGI=1 to measure artifact hits under Apache")
	}
	ab, err := exec.LookPath("ab")
	if err != nil {
		t.Skip("ab (ApacheBench) is not installed: apt-get install apache2-utils")
	}
	s, store := stubSite(t, "", nil)
	// A post page of about 12 KB, as CGI-NOTES measured static files.
	page := []byte("<!doctype html><title>post</title>" + strings.Repeat("<p>本文の段落です。 A paragraph of the post.</p>\n", 220))
	if _, err := store.Put(context.Background(), artifact.MustParseKey("html/@alice/hello/index.html"), "text/html; charset=utf-8", page); err != nil {
		t.Fatal(err)
	}
	s.WriteFile(t, "static.html", string(page), 0o644)
	// The owner's rule before murlog's block: the same file through the
	// cheapest rewrite into the artifact folder (the baseline).
	s.WriteFile(t, ".htaccess", "RewriteEngine On\nRewriteRule ^bare$ _site/html/@alice/hello/index.html [L]\n"+readFile(t, s.Path(".htaccess")), 0o644)
	s.Chown(t, s.DocRoot)

	paths := []struct{ name, path string }{
		{"static file", "/static.html"}, {"bare rewrite", "/bare"}, {"artifact hit", "/@alice/hello"},
	}
	for _, p := range paths {
		resp, body := fetch(t, "GET", s.URL+p.path, map[string]string{"Accept": acceptBrowser})
		if resp.StatusCode != 200 || string(body) != string(page) {
			t.Fatalf("GET %s: %d, %d bytes; want 200 and the page", p.path, resp.StatusCode, len(body))
		}
	}
	runs, n := 3, 20000
	if v, err := strconv.Atoi(os.Getenv("MURLOG_BENCH_RUNS")); err == nil && v > 0 {
		runs = v
	}
	const conc = 8
	before := s.Starts(t)
	rps, cpu := make([][]float64, len(paths)), make([][]float64, len(paths))
	for range runs { // interleaved, so drift on a shared host hits all alike
		for i, p := range paths {
			c0 := apacheCPU(t, s.Conf)
			rps[i] = append(rps[i], abRPS(t, ab, s.URL+p.path, n, conc))
			cpu[i] = append(cpu[i], (apacheCPU(t, s.Conf)-c0).Seconds()*1e6/float64(n))
		}
	}
	ttfb := make([][]time.Duration, len(paths))
	accept := http.Header{"Accept": {acceptBrowser}}
	var timers []func() (time.Duration, error)
	for _, p := range paths {
		timers = append(timers, firstByte(s.Server, s.Addr, p.path, accept, "本文"))
	}
	for range 1000 {
		for i, f := range timers {
			d, err := f()
			if err != nil {
				t.Fatal(err)
			}
			ttfb[i] = append(ttfb[i], d)
		}
	}
	if d := s.Starts(t) - before; d != 0 {
		t.Errorf("murlog.cgi started %d times during the runs; want 0", d)
	}
	t.Logf("%d-byte page, ab -k -c %d -n %d, median of %d interleaved runs; Apache CPU per request; first byte: median of 1000 sequential requests, a connection each",
		len(page), conc, n, runs)
	for i, p := range paths {
		t.Logf("%-13s %8.0f req/s  %6.1f µs CPU/req  first byte %s ms", p.name, median(rps[i]), median(cpu[i]), ms(stats(ttfb[i]).median))
	}
	const static, bare, hit = 0, 1, 2
	tput, first := median(rps[hit])/median(rps[static]), float64(stats(ttfb[hit]).median)/float64(stats(ttfb[static]).median)
	t.Logf("artifact hit: %.2f of the static file's throughput (target ≥ %.2f), %.2f of the bare rewrite's; first byte %.2f× the static file's (target ≤ %.1f×)",
		tput, hitThroughputTarget, median(rps[hit])/median(rps[bare]), first, hitFirstByteTarget)
	if mode == "strict" && (tput < hitThroughputTarget || first > hitFirstByteTarget) {
		t.Errorf("artifact hits miss the targets: %.2f of static throughput, first byte %.2f× static", tput, first)
	}
}

// apacheCPU is the CPU time used so far by the Apache started with conf
// (its parent and children): user + system ticks from /proc.
func apacheCPU(t *testing.T, conf string) time.Duration {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var ticks int64
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cl, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if !strings.Contains(string(cl), conf) {
			continue
		}
		st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		i := strings.LastIndexByte(string(st), ')')
		if i < 0 {
			continue
		}
		// Fields after the command: state is 3rd, utime 14th, stime 15th.
		f := strings.Fields(string(st)[i+1:])
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		sy, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + sy
	}
	return time.Duration(ticks) * (time.Second / 100) // USER_HZ is 100 on Linux
}

var abRate = regexp.MustCompile(`Requests per second:\s+([0-9.]+)`)

// abRPS runs ab with keep-alive and returns its requests per second,
// failing on any failed or non-2xx request.
func abRPS(t *testing.T, ab, u string, n, conc int) float64 {
	t.Helper()
	out, err := exec.Command(ab, "-q", "-k", "-n", strconv.Itoa(n), "-c", strconv.Itoa(conc), "-H", "Accept: "+acceptBrowser, u).CombinedOutput()
	if err != nil {
		t.Fatalf("ab %s: %v\n%s", u, err, out)
	}
	for _, bad := range []string{"Non-2xx responses:", "Failed requests:        [1-9]"} {
		if regexp.MustCompile(bad).Match(out) {
			t.Fatalf("ab %s: %s\n%s", u, bad, out)
		}
	}
	m := abRate.FindSubmatch(out)
	if m == nil {
		t.Fatalf("ab %s: no rate in its output\n%s", u, out)
	}
	r, _ := strconv.ParseFloat(string(m[1]), 64)
	return r
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
