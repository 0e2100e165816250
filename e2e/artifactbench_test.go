package e2e

import (
	"context"
	"net/http"
	"os"
	"os/exec"
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
// rewrite against the same bytes requested as a static file in the
// document root (which pays the same .htaccess), with ab at a fixed
// concurrency and keep-alive, and first-byte medians of sequential
// requests. Run with MURLOG_BENCH_CGI=1 (MURLOG_BENCH_CGI=strict fails
// below the targets); it needs ab (Debian: apache2-utils).
func TestArtifactHitTiming(t *testing.T) {
	mode := os.Getenv("MURLOG_BENCH_CGI")
	if mode == "" {
		t.Skip("set MURLOG_BENCH_CGI=1 to measure artifact hits under Apache")
	}
	ab, err := exec.LookPath("ab")
	if err != nil {
		t.Skip("ab (ApacheBench) is not installed: apt-get install apache2-utils")
	}
	s, store := stubSite(t, nil)
	// A post page of about 12 KB, as CGI-NOTES measured static files.
	page := []byte("<!doctype html><title>post</title>" + strings.Repeat("<p>本文の段落です。 A paragraph of the post.</p>\n", 220))
	if _, err := store.Put(context.Background(), artifact.MustParseKey("html/@alice/hello/index.html"), "text/html; charset=utf-8", page); err != nil {
		t.Fatal(err)
	}
	s.WriteFile(t, "static.html", string(page), 0o644)
	s.Chown(t, s.DocRoot)

	hit, static := s.URL+"/@alice/hello", s.URL+"/static.html"
	for _, u := range []string{hit, static} {
		resp, body := fetch(t, "GET", u, map[string]string{"Accept": acceptBrowser})
		if resp.StatusCode != 200 || string(body) != string(page) {
			t.Fatalf("GET %s: %d, %d bytes; want 200 and the page", u, resp.StatusCode, len(body))
		}
	}
	runs, n := 3, 20000
	if v, err := strconv.Atoi(os.Getenv("MURLOG_BENCH_RUNS")); err == nil && v > 0 {
		runs = v
	}
	const conc = 8
	before := s.Starts(t)
	var hitRPS, staticRPS []float64
	for range runs { // alternate, so drift hits both alike
		staticRPS = append(staticRPS, abRPS(t, ab, static, n, conc))
		hitRPS = append(hitRPS, abRPS(t, ab, hit, n, conc))
	}
	var hitTTFB, staticTTFB []time.Duration
	accept := http.Header{"Accept": {acceptBrowser}}
	timeHit, timeStatic := firstByte(s.Server, s.Addr, "/@alice/hello", accept, "本文"), firstByte(s.Server, s.Addr, "/static.html", accept, "本文")
	for range 1000 {
		for _, m := range []struct {
			f  func() (time.Duration, error)
			to *[]time.Duration
		}{{timeStatic, &staticTTFB}, {timeHit, &hitTTFB}} {
			d, err := m.f()
			if err != nil {
				t.Fatal(err)
			}
			*m.to = append(*m.to, d)
		}
	}
	if d := s.Starts(t) - before; d != 0 {
		t.Errorf("murlog.cgi started %d times during the hit runs; want 0", d)
	}
	hr, sr := median(hitRPS), median(staticRPS)
	hf, sf := stats(hitTTFB).median, stats(staticTTFB).median
	t.Logf("artifact hit vs static file, %d-byte page, ab -k -c %d -n %d, median of %d runs; first byte: median of 1000 sequential requests, a connection each", len(page), conc, n, runs)
	t.Logf("static file   %8.0f req/s  first byte %s ms", sr, ms(sf))
	t.Logf("artifact hit  %8.0f req/s  first byte %s ms", hr, ms(hf))
	t.Logf("ratio         %8.2f of static throughput (target ≥ %.2f); first byte %.2f× static (target ≤ %.1f×)",
		hr/sr, hitThroughputTarget, float64(hf)/float64(sf), hitFirstByteTarget)
	if mode == "strict" && (hr/sr < hitThroughputTarget || float64(hf)/float64(sf) > hitFirstByteTarget) {
		t.Errorf("artifact hits miss the targets: %.2f of static throughput, first byte %.2f× static", hr/sr, float64(hf)/float64(sf))
	}
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
