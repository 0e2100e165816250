package dbstat

import (
	"strconv"
	"sync/atomic"
	"time"
)

// Event is something the read path counts besides statements: artifact
// hits and misses (artifact_hits_total, artifact_misses_total), stale
// answers, and rebuilds with their duration (artifact_rebuilds_total,
// artifact_rebuild_seconds). They go to the same counts file as the
// statements, so a CGI process's add up with everyone's.
type Event uint8

// The events.
const (
	ArtifactHit     Event = iota // a read answered from an artifact
	ArtifactMiss                 // a read that rendered its artifact
	ArtifactStale                // a read answered with the last artifact because its render failed
	ArtifactRebuild              // an artifact rendered again by the rebuild
	numEvents
)

var eventNames = [numEvents]string{"artifact_hits", "artifact_misses", "artifact_stale", "artifact_rebuilds"}

func (e Event) String() string {
	if e >= numEvents {
		return "other"
	}
	return eventNames[e]
}

// Events lists every event.
func Events() []Event {
	out := make([]Event, numEvents)
	for i := range out {
		out[i] = Event(i)
	}
	return out
}

// RebuildBuckets are the upper bounds (seconds) of artifact_rebuild_seconds.
var RebuildBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}

// eventCounts are the event counters of a Counter.
type eventCounts struct {
	n       [numEvents]atomic.Uint64
	buckets [13]atomic.Uint64 // one per RebuildBuckets bound, then +Inf; not cumulative
	micros  atomic.Uint64     // the rebuilds' total duration
}

// Count counts one e.
func (k *Counter) Count(e Event) {
	if k == nil || e >= numEvents {
		return
	}
	k.ev.n[e].Add(1)
}

// Rebuilt counts one rebuild that took d.
func (k *Counter) Rebuilt(d time.Duration) {
	if k == nil {
		return
	}
	k.ev.n[ArtifactRebuild].Add(1)
	i := 0
	for i < len(RebuildBuckets) && d.Seconds() > RebuildBuckets[i] {
		i++
	}
	k.ev.buckets[i].Add(1)
	k.ev.micros.Add(uint64(d.Microseconds()))
}

// EventCounts are event totals: by event, the rebuild histogram's
// buckets (not cumulative, the last one +Inf) and its sum.
type EventCounts struct {
	N       map[Event]uint64
	Buckets []uint64
	Seconds float64
}

// lines returns the counter's events as counts-file lines, by name, and
// with take subtracts what it returns (a flush).
func (e *eventCounts) lines(take bool) map[string]uint64 {
	out := map[string]uint64{}
	get := func(a *atomic.Uint64) uint64 {
		v := a.Load()
		if take && v > 0 {
			a.Add(^(v - 1))
		}
		return v
	}
	for i := range e.n {
		if v := get(&e.n[i]); v > 0 {
			out["event:"+Event(i).String()] = v
		}
	}
	for i := range e.buckets {
		if v := get(&e.buckets[i]); v > 0 {
			out["rebuild_bucket:"+strconv.Itoa(i)] = v
		}
	}
	if v := get(&e.micros); v > 0 {
		out["rebuild_us"] = v
	}
	return out
}

// add adds counts-file lines back (a failed flush) or into a total.
func (e *eventCounts) add(lines map[string]uint64) {
	for name, v := range lines {
		switch {
		case name == "rebuild_us":
			e.micros.Add(v)
		case len(name) > len("rebuild_bucket:") && name[:len("rebuild_bucket:")] == "rebuild_bucket:":
			if i, err := strconv.Atoi(name[len("rebuild_bucket:"):]); err == nil && i >= 0 && i < len(e.buckets) {
				e.buckets[i].Add(v)
			}
		case len(name) > len("event:") && name[:len("event:")] == "event:":
			for j, n := range eventNames {
				if n == name[len("event:"):] {
					e.n[j].Add(v)
				}
			}
		}
	}
}

func (e *eventCounts) counts() EventCounts {
	out := EventCounts{N: map[Event]uint64{}, Buckets: make([]uint64, len(e.buckets))}
	for i := range e.n {
		out.N[Event(i)] = e.n[i].Load()
	}
	for i := range e.buckets {
		out.Buckets[i] = e.buckets[i].Load()
	}
	out.Seconds = float64(e.micros.Load()) / 1e6
	return out
}

// EventCounts returns this process's events so far.
func (k *Counter) EventCounts() EventCounts {
	if k == nil {
		return (&eventCounts{}).counts()
	}
	return k.ev.counts()
}
