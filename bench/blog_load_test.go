package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Load harness for the public blog served from load + render (no
// artifact layer yet): a post page and a site page of a real `murlog
// serve` with 5,000 posts, against the trivial server returning the same
// bytes, both driven by wrk -t2 -c32 (the command) when wrk is
// installed, by the Go generator of federation_load_test.go otherwise.
//
//	MURLOG_BENCH_LOAD=1 go test -run BlogLoad -v ./bench/   (part of make load)
//
// MURLOG_BENCH_LOAD_SECONDS changes the 10 s per run; MURLOG_BENCH_POSTS
// the 5,000 posts.
func TestBlogLoad(t *testing.T) {
	if os.Getenv("MURLOG_BENCH_LOAD") == "" {
		t.Skip("set MURLOG_BENCH_LOAD=1 to load-test the public blog's post and site pages against a trivial server (about 1 minute; make load)")
	}
	d := 10 * time.Second
	if v, err := time.ParseDuration(os.Getenv("MURLOG_BENCH_LOAD_SECONDS") + "s"); err == nil && v > 0 {
		d = v
	}
	posts := 5000
	if n, err := strconv.Atoi(os.Getenv("MURLOG_BENCH_POSTS")); err == nil && n > 0 {
		posts = n
	}
	s := startServer(t)
	ids := seedBlog(t, s, posts)
	mid := ids[len(ids)/2]
	targets := []struct{ name, path, want string }{
		{"post page", "/@owner/" + mid, "<article"},
		{"site page, Rich", "/@owner", "<article"},
		{"site page, Plain (20 posts)", "/@owner?mode=plain", "<main"},
	}
	dir := t.TempDir()
	for i, tg := range targets {
		ct, body := fetchOnce(t, s.base+tg.path, "")
		if !bytes.Contains(body, []byte(tg.want)) {
			t.Fatalf("GET %s: no %q in %.300s", tg.path, tg.want, body)
		}
		// The trivial server routes by path alone: each page gets its own.
		trivialAnswer(dir, i, trivialPath(i), ct, body)
		t.Logf("%s: %d bytes", tg.name, len(body))
	}
	trivial := startTrivial(t, dir)
	wrk, _ := exec.LookPath("wrk")
	for i, tg := range targets {
		var m, b loadResult
		if wrk != "" {
			m, b = runWrk(t, wrk, s.base+tg.path, d), runWrk(t, wrk, trivial+trivialPath(i), d)
		} else {
			m, b = runLoad(t, s.base, tg.path, "", d), runLoad(t, trivial, trivialPath(i), "", d)
		}
		t.Logf("%-28s murlog  %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  (%d requests, %d errors)", tg.name, m.rps, ms(m.p50), ms(m.p99), m.n, m.errs)
		t.Logf("%-28s trivial %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms", tg.name, b.rps, ms(b.p50), ms(b.p99))
		t.Logf("%-28s ratio %.2f", tg.name, m.rps/b.rps)
		if m.errs > 0 {
			t.Errorf("%s: %d of %d requests to murlog failed", tg.name, m.errs, m.n)
		}
	}
}

func trivialPath(i int) string { return fmt.Sprintf("/page%d", i) }

// seedBlog writes posts through the API: every third an article with a
// title, tags and a few paragraphs, the rest notes.
func seedBlog(t *testing.T, s *server, n int) []string {
	t.Helper()
	ctx := context.Background()
	ids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	para := strings.Repeat("murlog は一人のための ActivityPub サーバーです。Posts federate as notes and articles. ", 6)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				params := map[string]any{"content": fmt.Sprintf("Note %d #bench %s", i, para[:200])}
				if i%3 == 0 {
					params = map[string]any{"kind": "article", "title": fmt.Sprintf("Article %d", i),
						"content": fmt.Sprintf("## Part %d\n\n%s\n\n%s\n\n#bench #go", i, para, para)}
				}
				var p struct {
					ID string `json:"id"`
				}
				if err := s.owner.Call(ctx, "posts.create", params, &p); err != nil {
					errs <- err
					return
				}
				ids[i] = p.ID
			}
		}(w)
	}
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	return ids
}

var (
	wrkRPS     = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkTotal   = regexp.MustCompile(`(\d+) requests in`)
	wrkErrors  = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	wrkLatency = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([0-9.]+)(us|ms|s)`)
)

// runWrk runs wrk -t2 -c32 with latency percentiles and parses its report.
func runWrk(t *testing.T, wrk, u string, d time.Duration) loadResult {
	t.Helper()
	out, err := exec.Command(wrk, "-t2", "-c32", "-d"+strconv.Itoa(int(d.Seconds()))+"s", "--latency", u).CombinedOutput()
	if err != nil {
		t.Fatalf("wrk %s: %v\n%s", u, err, out)
	}
	var r loadResult
	if m := wrkRPS.FindSubmatch(out); m != nil {
		r.rps, _ = strconv.ParseFloat(string(m[1]), 64)
	} else {
		t.Fatalf("wrk %s: no Requests/sec in\n%s", u, out)
	}
	if m := wrkTotal.FindSubmatch(out); m != nil {
		r.n, _ = strconv.ParseInt(string(m[1]), 10, 64)
	}
	if m := wrkErrors.FindSubmatch(out); m != nil {
		r.errs, _ = strconv.ParseInt(string(m[1]), 10, 64)
	}
	for _, m := range wrkLatency.FindAllSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(string(m[2]), 64)
		unit := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second}[string(m[3])]
		lat := time.Duration(v * float64(unit))
		if string(m[1]) == "50" {
			r.p50 = lat
		} else {
			r.p99 = lat
		}
	}
	return r
}
