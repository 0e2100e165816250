package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/apachetest"
)

// postPageRatioTarget is issue 15's CGI figure: the public post page
// through Apache, to first byte, at most this many times the Go+SQLite
// baseline CGI measured in the same run.
const postPageRatioTarget = 1.8

// ttfbRuns is how many interleaved rounds of first-byte timings are
// taken (after 10 warm-up rounds): MURLOG_BENCH_TTFB_RUNS, else the
// issue's 100.
func ttfbRuns() int {
	if n, err := strconv.Atoi(os.Getenv("MURLOG_BENCH_TTFB_RUNS")); err == nil && n > 0 {
		return n
	}
	return 100
}

// firstByte returns a request through s timed from the request written
// to the first byte of the answer, as a client sees it. Every request
// opens its own connection (murlog.cgi turns keep-alive off anyway), so
// both programs are measured alike; the connect is not timed. The whole
// answer is read and checked after the clock stops.
func firstByte(s *apachetest.Server, host, path string, header http.Header, want string) func() (time.Duration, error) {
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
	return func() (time.Duration, error) {
		var wrote, first time.Time
		trace := &httptrace.ClientTrace{
			WroteRequest:         func(httptrace.WroteRequestInfo) { wrote = time.Now() },
			GotFirstResponseByte: func() { first = time.Now() },
		}
		req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
		if err != nil {
			return 0, err
		}
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
		req.Host = host
		for k, vs := range header {
			req.Header[k] = vs
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(want)) {
			return 0, fmt.Errorf("GET %s through Apache: HTTP %d, %v: %.300s", path, resp.StatusCode, err, b)
		}
		if wrote.IsZero() || first.Before(wrote) {
			return 0, fmt.Errorf("GET %s: no first-byte time (wrote %v, first byte %v)", path, wrote, first)
		}
		return first.Sub(wrote), nil
	}
}

// ttfbResult is the post page against the baseline, through one Apache.
type ttfbResult struct {
	page, base   summary
	ratio        float64 // median of the page / median of the baseline
	pairedRatio  float64 // median over rounds of page/baseline in that round
	runs, warmup int
}

// measurePostPageFirstByte times the anonymous public post page (HTML)
// and the Go+SQLite baseline CGI through s, to first byte, in
// interleaved rounds (10 warm-up rounds first), so drift in the
// machine's load hits both alike.
func measurePostPageFirstByte(t *testing.T, s *apachetest.Server, bs *benchSite) ttfbResult {
	t.Helper()
	page := firstByte(s, bs.domain, "/@alice/"+bs.postID, http.Header{"Accept": {"text/html,application/xhtml+xml"}}, "<article")
	base := firstByte(s, bs.domain, "/baseline.cgi", nil, "")
	r := ttfbResult{runs: ttfbRuns(), warmup: 10}
	var pages, bases []time.Duration
	var ratios []float64
	for i := 0; i < r.runs+r.warmup; i++ {
		// Alternate which goes first, so neither always follows the other.
		order := []func() (time.Duration, error){page, base}
		if i%2 == 1 {
			order = []func() (time.Duration, error){base, page}
		}
		var ds [2]time.Duration
		for k, f := range order {
			d, err := f()
			if err != nil {
				t.Fatal(err)
			}
			ds[k] = d
		}
		if i%2 == 1 {
			ds[0], ds[1] = ds[1], ds[0]
		}
		if i >= r.warmup {
			pages = append(pages, ds[0])
			bases = append(bases, ds[1])
			ratios = append(ratios, float64(ds[0])/float64(ds[1]))
		}
	}
	r.page, r.base = stats(pages), stats(bases)
	r.ratio = float64(r.page.median) / float64(r.base.median)
	slices.Sort(ratios)
	r.pairedRatio = ratios[len(ratios)/2]
	return r
}
