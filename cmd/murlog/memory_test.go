package main

import (
	"math"
	"runtime/debug"
	"testing"
	"time"
)

func TestTuneMemory(t *testing.T) {
	prevLimit := debug.SetMemoryLimit(-1)
	prevGOGC := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetMemoryLimit(prevLimit); debug.SetGCPercent(prevGOGC) })

	debug.SetMemoryLimit(math.MaxInt64)
	tuneMemory(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != residentMemoryLimit {
		t.Errorf("memory limit after tuneMemory = %d; want %d", got, residentMemoryLimit)
	}
	if got := debug.SetGCPercent(100); got != residentGOGC {
		t.Errorf("GOGC after tuneMemory = %d; want %d", got, residentGOGC)
	}

	// The environment wins: the runtime has read GOMEMLIMIT and GOGC itself.
	debug.SetMemoryLimit(math.MaxInt64)
	debug.SetGCPercent(150)
	tuneMemory(func(k string) string { return map[string]string{"GOMEMLIMIT": "off", "GOGC": "150"}[k] })
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit with GOMEMLIMIT=off = %d; want no limit", got)
	}
	if got := debug.SetGCPercent(100); got != 150 {
		t.Errorf("GOGC with GOGC=150 set = %d; want it left alone", got)
	}
}

// TestLimitFollowsTheLiveHeap: the soft limit is the resident one for a
// small live heap and GOGC=400's goal (five times it) when that is more; the
// follower sets it at each tick.
func TestLimitFollowsTheLiveHeap(t *testing.T) {
	if got := limitFor(4 << 20); got != residentMemoryLimit {
		t.Errorf("limit for a 4 MiB live heap = %d; want the resident %d", got, residentMemoryLimit)
	}
	if got := limitFor(30 << 20); got != 150<<20 {
		t.Errorf("limit for a 30 MiB live heap = %d; want 150 MiB (GOGC=400's goal)", got)
	}
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	debug.SetMemoryLimit(math.MaxInt64)
	tick := make(chan time.Time)
	done := make(chan struct{})
	go func() { followLiveHeap(tick); close(done) }()
	tick <- time.Now()
	close(tick)
	<-done
	if got := debug.SetMemoryLimit(-1); got == math.MaxInt64 || got < residentMemoryLimit {
		t.Errorf("limit after a tick = %d; want it set, at least %d", got, residentMemoryLimit)
	}
}
