package app

import (
	"bytes"
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
