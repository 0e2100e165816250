package app

import (
	"context"
	"net/http"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// QuietPeriod is how long serve waits without a new request before it
// hands the Go heap's free pages back to the operating system.
const QuietPeriod = time.Second

// quietRelease counts the requests its handler starts and, once a tick
// of run passes without one after a busy one, calls release. At GOGC=400
// and the 24 MiB soft limit (cmd/murlog tuneMemory) the collector lets a
// burst of reads grow the heap to 4–5× its live size, and the runtime's
// background scavenger keeps about the last heap goal mapped: after the
// mixed read load of issue 15 F a live heap of 3 MB held 14–15 MB of RSS
// for as long as the server then stayed idle, which for a one-person site
// is most of the time. Returning it when quiet costs one collection of
// that small live heap per burst (a few ms), not one per request, and
// leaves the fast collector settings of the burst itself alone.
type quietRelease struct {
	next    http.Handler
	started atomic.Uint64

	// last and busy belong to run's goroutine.
	last uint64 // started at the previous tick
	busy bool   // a request started since the last release
}

func (q *quietRelease) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q.started.Add(1)
	q.next.ServeHTTP(w, r)
}

// quiet reports, at a tick, whether to hand the heap back now: no request
// has started since the previous tick, and one had since the last time.
func (q *quietRelease) quiet() bool {
	if n := q.started.Load(); n != q.last {
		q.last, q.busy = n, true
		return false
	}
	was := q.busy
	q.busy = false
	return was
}

// run calls release at every tick that finds the server quiet, until ctx
// ends.
func (q *quietRelease) run(ctx context.Context, ticks <-chan time.Time, release func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			if q.quiet() {
				release()
			}
		}
	}
}

// releaseHeap collects twice, then hands the free pages back: what
// sync.Pools hold (the rebuild's compressors above all, a megabyte or two
// each) survives one collection in their victim caches and is freed by
// the next; one collection left 3.5 MB of them in the resident size after
// issue 15 F's read load. Two collections of a few-MB live heap, once per
// burst, are a few milliseconds.
func releaseHeap() {
	runtime.GC()
	debug.FreeOSMemory()
}

// releaseWhenQuiet serves h through a quietRelease that frees the heap's
// free pages (releaseHeap) after every QuietPeriod without a new
// request that follows a busy one, until ctx ends.
func releaseWhenQuiet(ctx context.Context, h http.Handler) http.Handler {
	q := &quietRelease{next: h}
	t := time.NewTicker(QuietPeriod)
	go func() {
		defer t.Stop()
		q.run(ctx, t.C, releaseHeap)
	}()
	return q
}
