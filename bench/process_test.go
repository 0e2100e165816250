package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/internal/waitfor"
)

// server is a real `murlog serve` process on loopback, set up through the
// wizard, for the figures that only a whole process shows (resident
// memory). env adds to the process environment (GOMEMLIMIT=off, say).
type server struct {
	cmd   *exec.Cmd
	base  string
	owner *client.Client // logged in
	pid   int
	dir   string // holds murlog.ini and the data directory
}

func startServer(tb testing.TB, env ...string) *server {
	tb.Helper()
	return startBinary(tb, apachetest.Murlog(tb), env...)
}

// startBinary is startServer with another murlog binary (an older build
// to compare against).
func startBinary(tb testing.TB, bin string, env ...string) *server {
	tb.Helper()
	dir := tb.TempDir()
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MURLOG_CONFIG="+filepath.Join(dir, "murlog.ini"), "MURLOG_SCHEME=http")
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	s := &server{cmd: cmd, pid: cmd.Process.Pid, dir: dir}
	tb.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	// serve logs its address in a JSON line; every later line (one per
	// request) is read and dropped so the pipe never fills.
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			var line struct {
				Addr string `json:"addr"`
			}
			if !sent && json.Unmarshal(sc.Bytes(), &line) == nil && line.Addr != "" {
				addr <- line.Addr
				sent = true
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case a := <-addr:
		s.base = "http://" + a
	case <-time.After(30 * time.Second):
		tb.Fatal("murlog serve did not report its address")
	}
	ctx := context.Background()
	s.owner = client.New(s.base)
	if err := s.owner.Setup(ctx, strings.TrimPrefix(s.base, "http://"), "owner", "correct horse battery"); err != nil {
		tb.Fatal(err)
	}
	if err := s.owner.Login(ctx, "correct horse battery"); err != nil {
		tb.Fatal(err)
	}
	return s
}

// statusKB returns the named kB fields of /proc/PID/status ("VmRSS",
// "RssAnon", …).
func (s *server) statusKB(tb testing.TB, names ...string) map[string]int {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		name, v, ok := strings.Cut(line, ":")
		if ok && slices.Contains(names, name) {
			out[name], _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return out
}

// rssKB returns the process's resident set size from /proc.
func (s *server) rssKB(tb testing.TB) int {
	tb.Helper()
	n, ok := s.statusKB(tb, "VmRSS")["VmRSS"]
	if !ok {
		tb.Fatal("no VmRSS in /proc status")
	}
	return n
}

// rssParts is where the resident size is: anonymous memory (the Go heap,
// SQLite's allocations), file-backed pages (the binary's own) and shared
// memory, in MB.
func (s *server) rssParts(tb testing.TB) string {
	tb.Helper()
	kb := s.statusKB(tb, "RssAnon", "RssFile", "RssShmem")
	return fmt.Sprintf("anon %.1f MB, file %.1f MB, shmem %.1f MB",
		float64(kb["RssAnon"])/1024, float64(kb["RssFile"])/1024, float64(kb["RssShmem"])/1024)
}

// cpu returns the CPU time (user + system) the process has used, from
// /proc/<pid>/stat in clock ticks of 10 ms.
func (s *server) cpu(tb testing.TB) time.Duration {
	tb.Helper()
	return procCPU(tb, s.pid)
}

// procCPU is the CPU time (user + system) process pid has used.
func procCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	// The command name may hold spaces; the fields after it do not.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// settledRSS waits for the resident size to stop falling (the runtime
// returns freed memory in the background, and serve hands the heap's free
// pages back after app.QuietPeriod without a request) and returns it in
// MB: the lowest figure once it has not fallen by more than 256 KB for
// two seconds, or when max has passed.
func (s *server) settledRSS(tb testing.TB, max time.Duration) float64 {
	tb.Helper()
	low := s.rssKB(tb)
	deadline := time.Now().Add(max)
	fell := time.Now()
	// RSS of another process has no event to wait on: sample it on a
	// ticker until it has been steady or the deadline passes.
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) && time.Since(fell) < 2*time.Second {
		<-tick.C
		if cur := s.rssKB(tb); cur < low-256 {
			low, fell = cur, time.Now()
		} else {
			low = min(low, cur)
		}
	}
	return float64(low) / 1024
}

// rendered waits until the rebuild job has rendered every artifact the
// writes marked (site.artifacts.status: nothing pending), up to max, and
// returns how long that took. Another process's progress: asked every
// 250 ms. A build without artifacts (an older one) answers an error: no
// wait.
func (s *server) rendered(tb testing.TB, max time.Duration) time.Duration {
	tb.Helper()
	start := time.Now()
	var st struct {
		Pending int `json:"pending"`
	}
	ok := waitfor.Until(context.Background(), 250*time.Millisecond, max, func() bool {
		err := s.owner.Call(context.Background(), "site.artifacts.status", nil, &st)
		return err != nil || st.Pending == 0
	})
	if !ok {
		tb.Fatalf("%d artifacts still to render %v after the writes", st.Pending, max)
	}
	return time.Since(start)
}

// batch posts one JSON-RPC batch body with c's credentials and returns the
// HTTP status and the reply's size.
func batch(tb testing.TB, c *client.Client, calls [][]byte) (int, int) {
	tb.Helper()
	body := append([]byte("["), bytes.Join(calls, []byte(","))...)
	body = append(body, ']')
	status, reply, err := c.Post(context.Background(), "/api/mur/v1/rpc", "application/json", body)
	if err != nil {
		tb.Fatal(err)
	}
	return status, len(reply)
}
