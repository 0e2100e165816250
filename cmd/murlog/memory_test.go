package main

import (
	"math"
	"runtime/debug"
	"testing"
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
