// Package heaptest measures how much heap a piece of work makes the
// process hold, for the tests that bound it (an attack batch, a burst of
// public API reads). The measure is process-wide: tests using it must not
// run in parallel with others.
package heaptest

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// PeakGrowth runs fn with GOGC at 10, so that the heap stays close to
// what is live, and returns how far a sampler saw the heap rise above its
// size before fn.
func PeakGrowth(fn func()) int64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc

	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	<-sampled
	return int64(peak.Load()) - int64(base)
}
