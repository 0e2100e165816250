package loadgen

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Latencies are the percentiles of a set of durations.
type Latencies struct {
	P50, P90, P99, Max time.Duration
}

// Group summarises some requests: all of a run's, or those of one name.
type Group struct {
	Name      string
	Requests  int
	OK        int
	Bytes     int64
	Latencies // over every request, failed ones included
	// Kinds counts failed requests by error kind.
	Kinds map[string]int
}

// Success is the share of requests that succeeded, in percent (100 for
// none).
func (g Group) Success() float64 {
	if g.Requests == 0 {
		return 100
	}
	return 100 * float64(g.OK) / float64(g.Requests)
}

// Timeouts is the number of requests that hit their deadline.
func (g Group) Timeouts() int { return g.Kinds[KindTimeout] }

// Summary is what a run reports.
type Summary struct {
	Group
	// ByName holds one group per request name, in order of first use.
	ByName []Group
	// Visitors started, the rate asked for, and the rate achieved (from
	// t0 to the last start).
	Visitors                int
	AskedRate, AchievedRate float64
	// Lag is the generator's lateness in starting visitors.
	Lag                 Latencies
	Conns, PeakInFlight int
	Wall                time.Duration
}

// Summary computes r's summary.
func (r *Result) Summary() Summary {
	s := Summary{Group: group("all", r.Samples), Visitors: len(r.Lag), AskedRate: r.Rate, Conns: r.Conns, PeakInFlight: r.PeakInFlight, Wall: r.Wall}
	var names []string
	by := map[string][]Sample{}
	for _, x := range r.Samples {
		if _, ok := by[x.Name]; !ok {
			names = append(names, x.Name)
		}
		by[x.Name] = append(by[x.Name], x)
	}
	for _, n := range names {
		s.ByName = append(s.ByName, group(n, by[n]))
	}
	if len(r.Lag) > 1 && r.Launch > 0 {
		s.AchievedRate = float64(len(r.Lag)-1) / r.Launch.Seconds()
	}
	s.Lag = latencies(r.Lag)
	return s
}

func group(name string, samples []Sample) Group {
	g := Group{Name: name, Requests: len(samples), Kinds: map[string]int{}}
	ds := make([]time.Duration, len(samples))
	for i, x := range samples {
		ds[i] = x.Latency
		g.Bytes += x.Bytes
		if x.Kind == "" {
			g.OK++
		} else {
			g.Kinds[x.Kind]++
		}
	}
	g.Latencies = latencies(ds)
	return g
}

func latencies(ds []time.Duration) Latencies {
	s := slices.Clone(ds)
	slices.Sort(s)
	return Latencies{P50: Percentile(s, 50), P90: Percentile(s, 90), P99: Percentile(s, 99), Max: Percentile(s, 100)}
}

// Percentile returns the p-th percentile (0 < p ≤ 100) of sorted by the
// nearest-rank method: the smallest value with at least p% of the values
// at or below it. It is 0 for no values.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// Integer arithmetic on p×100 avoids 0.99×100 = 98.99… choosing a
	// rank too low.
	n := len(sorted)
	k := (int(p*100+0.5)*n + 9999) / 10000
	return sorted[min(max(k, 1), n)-1]
}

// Ms formats d in milliseconds.
func Ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

// String is the report of the group on one line.
func (g Group) String() string {
	return fmt.Sprintf("%-16s %7d req  %8.3f%% ok  p50 %9s  p90 %9s  p99 %9s  max %9s  errors: %s",
		g.Name, g.Requests, g.Success(), Ms(g.P50), Ms(g.P90), Ms(g.P99), Ms(g.Max), kinds(g.Kinds))
}

func kinds(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// String is the summary as a few lines of report.
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d requests, %.3f%% success, p50 %s, p90 %s, p99 %s, max %s, %d timeouts; errors: %s\n",
		s.Requests, s.Success(), Ms(s.P50), Ms(s.P90), Ms(s.P99), Ms(s.Max), s.Timeouts(), kinds(s.Kinds))
	fmt.Fprintf(&b, "%d visitors at %.1f/s achieved (%.1f/s asked), %d connections, at most %d visitors in flight, %.1f s in all; generator lag p50 %s, p99 %s, max %s\n",
		s.Visitors, s.AchievedRate, s.AskedRate, s.Conns, s.PeakInFlight, s.Wall.Seconds(), Ms(s.Lag.P50), Ms(s.Lag.P99), Ms(s.Lag.Max))
	for _, g := range s.ByName {
		b.WriteString("  " + g.String() + "\n")
	}
	return b.String()
}

// Timeline is r second by second (by when requests started, every step):
// requests, successes, p50 and p99 of their latency, the errors by kind,
// and the first text of an "other" error in that step. It shows when a run
// that missed began to fall behind, and what the failures were.
func (r *Result) Timeline(step time.Duration) string {
	if step <= 0 {
		step = time.Second
	}
	var steps [][]Sample
	for _, x := range r.Samples {
		i := int(x.Start / step)
		for len(steps) <= i {
			steps = append(steps, nil)
		}
		steps[i] = append(steps[i], x)
	}
	var b strings.Builder
	for i, xs := range steps {
		g := group("", xs)
		other := ""
		for _, x := range xs {
			if x.Err != "" {
				other = " (" + x.Err + ")"
				break
			}
		}
		fmt.Fprintf(&b, "%6.1f s %7d req %8.3f%% ok  p50 %9s  p99 %9s  errors: %s%s\n",
			(time.Duration(i) * step).Seconds(), g.Requests, g.Success(), Ms(g.P50), Ms(g.P99), kinds(g.Kinds), other)
	}
	return b.String()
}
