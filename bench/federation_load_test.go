package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Load harness for the federation documents every remote server fetches:
// the actor JSON and the WebFinger answer of a real `murlog serve`
// process, against a trivial Go server (another process: this test
// binary re-executed) returning the same bytes from memory. Both are
// driven by the same generator, in turns, so a busy machine slows both:
// the ratio is the figure that carries over between machines.
//
//	MURLOG_BENCH_LOAD=1 go test -run Load -v ./bench/   (make load)
//
// MURLOG_BENCH_LOAD_SECONDS changes the 10 s per run.

// Load shape: like wrk -t2 -c32, two groups of goroutines sharing 32
// keep-alive connections.
const (
	loadGroups      = 2
	loadConnections = 32
)

func TestFederationLoad(t *testing.T) {
	if os.Getenv("MURLOG_BENCH_LOAD") == "" {
		t.Skip("set MURLOG_BENCH_LOAD=1 to load-test actor JSON and WebFinger against a trivial server (about 45 s; make load)")
	}
	d := 10 * time.Second
	if v, err := time.ParseDuration(os.Getenv("MURLOG_BENCH_LOAD_SECONDS") + "s"); err == nil && v > 0 {
		d = v
	}
	s := startServer(t)
	host := strings.TrimPrefix(s.base, "http://")
	targets := []struct {
		name, path, accept string
	}{
		{"actor JSON", "/@owner", "application/activity+json"},
		{"WebFinger", "/.well-known/webfinger?resource=" + url.QueryEscape("acct:owner@"+host), ""},
	}
	// The trivial server answers the bytes murlog answered, with its
	// content type.
	dir := t.TempDir()
	for i, tg := range targets {
		ct, body := fetchOnce(t, s.base+tg.path, tg.accept)
		trivialAnswer(dir, i, tg.path, ct, body)
	}
	trivial := startTrivial(t, dir)

	for _, tg := range targets {
		m := runLoad(t, s.base, tg.path, tg.accept, d)
		b := runLoad(t, trivial, tg.path, tg.accept, d)
		ratio := m.rps / b.rps
		t.Logf("%-10s murlog  %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  (%d requests, %d errors)", tg.name, m.rps, ms(m.p50), ms(m.p99), m.n, m.errs)
		t.Logf("%-10s trivial %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  (%d requests, %d errors)", tg.name, b.rps, ms(b.p50), ms(b.p99), b.n, b.errs)
		verdict := "meets"
		if ratio < 0.5 {
			verdict = "BELOW"
		}
		t.Logf("%-10s ratio %.2f (%s the 0.50 target)", tg.name, ratio, verdict)
		if m.errs > 0 {
			t.Errorf("%s: %d of %d requests to murlog failed", tg.name, m.errs, m.n)
		}
	}
}

// trivialAnswer writes the i-th answer the trivial server gives: body,
// with its content type, at path.
func trivialAnswer(dir string, i int, path, ct string, body []byte) {
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.body", i)), body, 0o600)
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.path", i)), []byte(path+"\n"+ct), 0o600)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fetchOnce(t *testing.T, u, accept string) (string, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: HTTP %d: %s", u, resp.StatusCode, b)
	}
	return resp.Header.Get("Content-Type"), b
}

// TestTrivialServerProcess is the trivial server when this binary is
// re-executed by startTrivial; otherwise it skips.
func TestTrivialServerProcess(t *testing.T) {
	dir := os.Getenv("MURLOG_BENCH_TRIVIAL_DIR")
	if dir == "" {
		t.Skip("the trivial server of TestFederationLoad, run only as its child process")
	}
	mux := http.NewServeMux()
	if recorded, err := os.ReadFile(filepath.Join(dir, replayFile)); err == nil {
		serveReplay(t, recorded)
		return
	}
	for i := 0; ; i++ {
		meta, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.path", i)))
		if err != nil {
			break
		}
		body, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.body", i)))
		p, ct, _ := strings.Cut(string(meta), "\n")
		pathOnly, _, _ := strings.Cut(p, "?")
		mux.HandleFunc("GET "+pathOnly, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Write(body)
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("addr=" + ln.Addr().String())
	http.Serve(ln, mux)
}

// startTrivial runs the trivial server in a child process.
func startTrivial(t *testing.T, dir string) string {
	t.Helper()
	base, _ := startTrivialProcess(t, dir)
	return base
}

// startTrivialProcess is startTrivial that also returns the child's pid
// (to read the CPU time it used).
func startTrivialProcess(t *testing.T, dir string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestTrivialServerProcess$", "-test.timeout=0")
	cmd.Env = append(os.Environ(), "MURLOG_BENCH_TRIVIAL_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "addr="); ok {
			go io.Copy(io.Discard, out)
			return "http://" + a, cmd.Process.Pid
		}
	}
	t.Fatal("the trivial server did not report its address")
	return "", 0
}

type loadResult struct {
	rps      float64
	p50, p99 time.Duration
	n, errs  int64
}

// runLoad drives GET path on base for d from loadConnections keep-alive
// connections in loadGroups groups, each connection one goroutine writing
// one request and reading one response at a time.
func runLoad(t *testing.T, base, path, accept string, d time.Duration) loadResult {
	t.Helper()
	u, _ := url.Parse(base)
	req := "GET " + path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: murlog-load\r\n"
	if accept != "" {
		req += "Accept: " + accept + "\r\n"
	}
	raw := []byte(req + "\r\n")
	var n, errs atomic.Int64
	lat := make([][]time.Duration, loadConnections)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	start := time.Now()
	for g := 0; g < loadGroups; g++ {
		for c := g; c < loadConnections; c += loadGroups {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				lat[c] = make([]time.Duration, 0, 1<<16)
				var conn net.Conn
				var br *bufio.Reader
				for ctx.Err() == nil {
					if conn == nil {
						var err error
						if conn, err = net.Dial("tcp", u.Host); err != nil {
							errs.Add(1)
							time.Sleep(10 * time.Millisecond)
							continue
						}
						br = bufio.NewReaderSize(conn, 16<<10)
					}
					t0 := time.Now()
					ok := roundTrip(conn, br, raw)
					lat[c] = append(lat[c], time.Since(t0))
					n.Add(1)
					if !ok {
						errs.Add(1)
						conn.Close()
						conn = nil
					}
				}
				if conn != nil {
					conn.Close()
				}
			}(c)
		}
	}
	wg.Wait()
	el := time.Since(start)
	all := slices.Concat(lat...)
	slices.Sort(all)
	r := loadResult{n: n.Load(), errs: errs.Load(), rps: float64(n.Load()) / el.Seconds()}
	if len(all) > 0 {
		r.p50, r.p99 = all[len(all)/2], all[len(all)*99/100]
	}
	return r
}

func roundTrip(conn net.Conn, br *bufio.Reader, raw []byte) bool {
	if _, err := conn.Write(raw); err != nil {
		return false
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return false
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return err == nil && resp.StatusCode == http.StatusOK
}
