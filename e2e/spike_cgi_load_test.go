package e2e

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/internal/loadgen"
	"github.com/murlog/murlog/internal/waitfor"
)

// TestSpikeCGILoad is issue 16's boost spike (bench/spike_load_test.go
// for serve mode) against murlog as CGI under the real Apache: 5,000
// remote servers and 1,000 readers over 60 s, open loop, a new connection
// per visitor, while the owner posts a note a second, on a site of 200
// posts set up and filled through Apache. It counts the murlog processes
// the crowd started (Apache's log of the file that answered: one
// murlog.cgi line per process; spawned workers sampled from /proc) and the peak memory of the
// murlog processes alive at once (sum of RSS, sampled from /proc).
//
//	MURLOG_BENCH_LOAD=1 go test -run SpikeCGILoad -v ./e2e/   (part of make load)
//
// MURLOG_SPIKE_SECONDS, MURLOG_SPIKE_SCALE and MURLOG_SPIKE_POSTS size it
// as in bench. The target (100%, p99 ≤ 100 ms, every post of the
// owner's) fails the test, unless every request succeeded and only the
// p99 missed while the generator itself was late.
func TestSpikeCGILoad(t *testing.T) {
	if os.Getenv("MURLOG_BENCH_LOAD") == "" {
		t.Skip("set MURLOG_BENCH_LOAD=1 to run the boost spike of issue 16 against murlog as CGI under Apache (about 2 minutes; make load)")
	}
	posts := 200
	if n, err := strconv.Atoi(os.Getenv("MURLOG_SPIKE_POSTS")); err == nil && n > 0 {
		posts = n
	}
	seconds, rate := loadgen.SpikeSize(os.Getenv)
	visitors := int(seconds * rate)
	// %f is the file that answered (after the rewrite): murlog.cgi for
	// each murlog process (%R says only redirect-handler for a rewrite).
	s, owner := setUpWith(t, apachetest.Options{Config: `LogFormat "%f %>s %U" files` + "\nCustomLog logs/file_log files"})
	prog := s.Path(apachetest.Script)
	t.Cleanup(func() { apachetest.KillWorkers(prog) })
	t0 := time.Now()
	postID := postBatches(t, owner, posts)
	waitNoMurlog(t, prog, time.Minute)
	sp := loadgen.Spike{Actor: "/@alice", Post: "/@alice/" + postID}
	resp, page := get(t, s.URL, sp.Post, map[string]string{"Accept": loadgen.AcceptPage})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s through Apache: HTTP %d\n%.1000s", sp.Post, resp.StatusCode, page)
	}
	sp.Assets = loadgen.ThemeAssets([]byte(page))
	if len(sp.Assets) == 0 {
		t.Fatalf("the post page links no theme asset under /themes/:\n%.2000s", page)
	}
	waitNoMurlog(t, prog, time.Minute)
	t.Logf("site of %d posts through CGI in %.1f s; boosted post %s; %d theme assets: %s",
		posts, time.Since(t0).Seconds(), sp.Post, len(sp.Assets), strings.Join(sp.Assets, " "))

	fileLog := filepath.Join(s.Root, "logs", "file_log")
	before := logLines(t, fileLog)
	sampler := sampleMurlog(prog, 20*time.Millisecond)
	crowd, own := sp.Run(context.Background(), s.Addr, rate, visitors, loadgen.PostNotes(owner), time.Second)
	// Apache logs a request when its CGI ends, which may be after the
	// visitor gave up on it.
	waitNoMurlog(t, prog, time.Minute)
	procs := sampler.stop()
	after := logLines(t, fileLog)[len(before):]

	// A line names the file that answered: murlog.cgi for each murlog
	// process, else a file Apache served itself.
	byFile := map[string]int{}
	for _, l := range after {
		f, _, _ := strings.Cut(l, " ")
		if f != prog {
			f = "a static file"
		}
		byFile[filepath.Base(f)]++
	}
	sum, owns := crowd.Summary(), own.Summary()
	t.Logf("spike against murlog CGI under Apache: %d visitors at %.0f/s\n%s", visitors, rate, sum)
	t.Logf("the owner's posts during it: %s", owns.ByName[0])
	var fs []string
	for _, f := range slices.Sorted(maps.Keys(byFile)) {
		fs = append(fs, fmt.Sprintf("%s %d", f, byFile[f]))
	}
	t.Logf("requests Apache logged during the run, by what answered: %s", strings.Join(fs, ", "))
	t.Logf("murlog processes: %d CGI processes started (Apache's log), %d seen by sampling /proc every 20 ms, %d spawned workers seen; at most %d alive at once, peak %.0f MB of RSS summed over them",
		byFile[apachetest.Script], procs.cgi, procs.workers, procs.peak, float64(procs.peakRSS)/(1<<20))
	t.Log(sum.Verdict("murlog CGI under Apache"))

	// The same schedule against Apache serving what murlog answered as
	// plain files: what the crowd costs when no murlog process starts.
	static := staticCopies(t, s, sp)
	base := loadgen.Run(context.Background(), loadgen.Config{Addr: s.Addr, Rate: rate, Visitors: visitors, Visitor: static}).Summary()
	t.Logf("the same schedule against Apache serving murlog's answers as static files:\n%s", base)
	t.Logf("murlog CGI against static files, same schedule: %.3f%% against %.3f%% success, p99 %s against %s, p50 %s against %s",
		sum.Success(), base.Success(), loadgen.Ms(sum.P99), loadgen.Ms(base.P99), loadgen.Ms(sum.P50), loadgen.Ms(base.P50))

	if want := sp.Requests(visitors); sum.Requests != want || base.Requests != want {
		t.Errorf("requests sent: %d to murlog, %d to the static files; want %d each", sum.Requests, base.Requests, want)
	}
	if base.OK != base.Requests {
		t.Errorf("Apache serving static files failed %d of %d requests: the machine is overloaded, the run says little", base.Requests-base.OK, base.Requests)
	}
	switch {
	case sum.MeetsSpikeTarget() && owns.OK == owns.Requests:
	case sum.OK == sum.Requests && owns.OK == owns.Requests && sum.GeneratorBound():
		// The generator could not keep its own schedule: the machine was
		// busy with more than this test, and so were Apache and murlog.
		t.Logf("p99 %s is not held against murlog: the generator itself started visitors late (lag p99 %s); run it on a quieter machine",
			loadgen.Ms(sum.P99), loadgen.Ms(sum.Lag.P99))
	default:
		t.Errorf("%.3f%% success, p99 %s, owner %d of %d posts failed; want 100%%, p99 ≤ %s, none",
			sum.Success(), loadgen.Ms(sum.P99), owns.Requests-owns.OK, owns.Requests, loadgen.Ms(loadgen.SpikeP99))
	}
}

// staticCopies fetches each distinct request of sp through Apache once,
// writes the answer as a file under spike-static/ in the document root
// (its extension giving Apache the content type), and returns sp's
// visitors with each request aimed at its copy.
func staticCopies(t *testing.T, s *apachetest.Server, sp loadgen.Spike) func(int) []loadgen.Request {
	t.Helper()
	paths := map[string]string{}
	key := func(r loadgen.Request) string { return r.Path + "\n" + r.Header.Get("Accept") }
	for _, r := range append(sp.Server(), sp.Reader()...) {
		if _, ok := paths[key(r)]; ok {
			continue
		}
		h := map[string]string{}
		for k := range r.Header {
			if k != "Accept-Encoding" { // the copy is what an uncompressed answer holds
				h[k] = r.Header.Get(k)
			}
		}
		resp, body := get(t, s.URL, r.Path, h)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("copying %s %s: HTTP %d", r.Name, r.Path, resp.StatusCode)
		}
		ext := ".html"
		switch ct := resp.Header.Get("Content-Type"); {
		case strings.Contains(ct, "json"):
			ext = ".json"
		case strings.Contains(ct, "css"):
			ext = ".css"
		case strings.Contains(ct, "javascript"):
			ext = ".js"
		}
		name := fmt.Sprintf("spike-static/%d%s", len(paths), ext)
		s.WriteFile(t, name, body, 0o644)
		paths[key(r)] = "/" + name
	}
	return func(i int) []loadgen.Request {
		reqs := sp.Visitor(i)
		for j := range reqs {
			reqs[j].Path = paths[key(reqs[j])]
		}
		return reqs
	}
}

func logLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// waitNoMurlog waits until no process runs prog (a CGI request still
// answering or a spawned worker), or fails the test after max.
func waitNoMurlog(t *testing.T, prog string, max time.Duration) {
	t.Helper()
	if waitfor.Until(context.Background(), 50*time.Millisecond, max, func() bool { return len(murlogProcs(prog)) == 0 }) {
		return
	}
	t.Fatalf("murlog processes still running after %v: %v", max, murlogProcs(prog))
}

// murlogProc is a running process of the murlog binary.
type murlogProc struct {
	pid    int
	worker bool  // `murlog.cgi worker …`, spawned by a request
	rss    int64 // bytes
}

// murlogProcs lists the processes whose executable is prog.
func murlogProcs(prog string) []murlogProc {
	ents, _ := os.ReadDir("/proc")
	var out []murlogProc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		if exe, err := os.Readlink(filepath.Join(dir, "exe")); err != nil || exe != prog {
			continue
		}
		p := murlogProc{pid: pid}
		if b, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil {
			argv := strings.Split(string(b), "\x00")
			p.worker = len(argv) > 1 && argv[1] == "worker"
		}
		if b, err := os.ReadFile(filepath.Join(dir, "statm")); err == nil {
			if f := strings.Fields(string(b)); len(f) > 1 {
				pages, _ := strconv.ParseInt(f[1], 10, 64)
				p.rss = pages * int64(os.Getpagesize())
			}
		}
		out = append(out, p)
	}
	return out
}

// procCounts is what sampling saw: distinct CGI and worker processes, the
// most alive at once and the most RSS they held together.
type procCounts struct {
	cgi, workers, peak int
	peakRSS            int64
}

type sampler struct {
	quit chan struct{}
	done chan procCounts
}

// sampleMurlog samples prog's processes every interval until stop. There
// is no event for "a process started", so it polls; a CGI process shorter
// than interval may be missed (Apache's log counts every one).
func sampleMurlog(prog string, interval time.Duration) *sampler {
	s := &sampler{quit: make(chan struct{}), done: make(chan procCounts, 1)}
	go func() {
		var c procCounts
		seen := map[int]bool{}
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			ps := murlogProcs(prog)
			var rss int64
			for _, p := range ps {
				rss += p.rss
				if !seen[p.pid] {
					seen[p.pid] = true
					if p.worker {
						c.workers++
					} else {
						c.cgi++
					}
				}
			}
			c.peak, c.peakRSS = max(c.peak, len(ps)), max(c.peakRSS, rss)
			select {
			case <-s.quit:
				s.done <- c
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *sampler) stop() procCounts {
	close(s.quit)
	return <-s.done
}
