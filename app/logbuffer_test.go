package app

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// writes records each Write and signals it.
type writes struct {
	mu    sync.Mutex
	got   []string
	wrote chan struct{}
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.got = append(w.got, string(p))
	w.mu.Unlock()
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *writes) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.got...)
}

// TestServeLoggerGathersLines: info lines wait and go out together (on
// the timer, at the size, on flush); a warning goes out at once with the
// lines before it.
func TestServeLoggerGathersLines(t *testing.T) {
	t.Parallel()
	w := &writes{wrote: make(chan struct{}, 1)}
	log, flush := NewServeLogger(w, "info")
	log = log.With("svc", "murlog-serve")
	log.Info("request", "path", "/a")
	log.Info("request", "path", "/b")
	if n := len(w.all()); n != 0 {
		t.Fatalf("%d writes after two info lines; want none yet", n)
	}
	log.Warn("something is wrong")
	got := w.all()
	if len(got) != 1 || strings.Count(got[0], "\n") != 3 || !strings.Contains(got[0], `"path":"/a"`) ||
		!strings.Contains(got[0], `"svc":"murlog-serve"`) || !strings.HasSuffix(got[0], "\"msg\":\"something is wrong\",\"svc\":\"murlog-serve\"}\n") {
		t.Fatalf("after a warning: %q; want one write of the three lines, in order", got)
	}
	<-w.wrote // the warning's write
	// The timer: a line written waits at most logFlushEvery.
	log.Info("request", "path", "/c")
	select {
	case <-w.wrote:
	case <-time.After(10 * time.Second):
		t.Fatal("an info line was not written within 10 s (the timer is 100 ms)")
	}
	if got := w.all(); len(got) != 2 || !strings.Contains(got[1], `"path":"/c"`) {
		t.Errorf("after the timer: %q", got)
	}
	// The size: a burst is written before the timer, 32 KB at a time.
	long := string(bytes.Repeat([]byte("x"), 1000))
	for range 40 {
		log.Info("request", "path", long)
	}
	// Written by the buffer's own goroutine: wait for it (the timer alone
	// would take 100 ms; the size does not wait for it).
	deadline := time.Now().Add(10 * time.Second)
	for len(w.all()) < 3 && time.Now().Before(deadline) {
		select {
		case <-w.wrote:
		case <-time.After(time.Until(deadline)):
		}
	}
	if got := w.all(); len(got) < 3 {
		t.Errorf("40 lines of 1 KB made %d writes; want one at 32 KB at least", len(got)-2)
	}
	flush()
	n := 0
	for _, s := range w.all() {
		n += strings.Count(s, long)
	}
	if n != 40 {
		t.Errorf("%d of the 40 long lines written after flush; want all", n)
	}
}

// stuck is a writer that blocks until released, as a pipe whose reader
// does not read: every Write waits on release.
type stuck struct {
	release chan struct{}
	writes
}

func (w *stuck) Write(p []byte) (int, error) {
	<-w.release
	return w.writes.Write(p)
}

// TestServeLoggerNeverWaitsForItsReader: with stderr's reader stuck, a
// crowd's info lines return at once — they wait in memory up to
// logMaxWaiting bytes and beyond it are dropped and counted — and once
// the reader reads again, every line kept is written in order, followed
// by a warning that says how many were dropped.
func TestServeLoggerNeverWaitsForItsReader(t *testing.T) {
	t.Parallel()
	w := &stuck{release: make(chan struct{}), writes: writes{wrote: make(chan struct{}, 1)}}
	log, flush := NewServeLogger(w, "info")
	const lines = 20_000 // ~3.5 MB of lines: more than logMaxWaiting
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range lines {
			log.Info("request", "n", i, "path", "/@alice/01a252f0-182d-7dfd-9691-77122298d592")
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("logging waited for a reader that does not read")
	}
	close(w.release)
	flush()
	var out strings.Builder
	for _, s := range w.all() {
		out.WriteString(s)
	}
	all := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	kept, last, dropped := 0, -1, 0
	for _, line := range all {
		var l struct {
			Msg     string
			N       *int
			Dropped int
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("not a JSON line: %.100q", line)
		}
		switch {
		case l.N != nil:
			if *l.N <= last {
				t.Fatalf("line %d after line %d: out of order", *l.N, last)
			}
			last, kept = *l.N, kept+1
		case strings.HasPrefix(l.Msg, "log lines dropped"):
			dropped += l.Dropped
		}
	}
	if kept == lines || kept+dropped != lines {
		t.Errorf("%d lines kept and %d counted as dropped of %d; want some dropped, every one accounted for", kept, dropped, lines)
	}
}
