package bench

import (
	"errors"
	"flag"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// seedPosts is the size of the database every benchmark runs against.
const seedPosts = 5000

// warmup calls precede each timed loop, so the statement caches and the
// reader pool are warm and the loop measures the steady state.
const warmup = 200

var (
	scaleRounds  = flag.Int("scale.rounds", 6, "rounds of the list scaling benchmark (each runs 1 and 32 callers)")
	scaleRound   = flag.Duration("scale.round", 500*time.Millisecond, "duration of each phase of a scaling round")
	scaleCallers = flag.Int("scale.callers", 32, "parallel callers in the scaling benchmark")
)

// measure times every call of the benchmark loop, cycling through bodies,
// and reports p50/p90/p99 latency and throughput next to Go's mean ns/op.
func measure(b *testing.B, bs *benchSite, owner bool, bodies [][]byte) {
	for i := range warmup {
		if err := bs.call(bodies[(len(bodies)-1-i%len(bodies))], owner); err != nil {
			b.Fatalf("warm-up: %v", err)
		}
	}
	b.ReportAllocs()
	lat := make(latencies, 0, 1<<15)
	i := 0
	for b.Loop() {
		body := bodies[i%len(bodies)]
		t0 := time.Now()
		err := bs.call(body, owner)
		lat = append(lat, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
	lat.report(b)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// callers are the two kinds of client the figures are taken for.
var callers = []struct {
	name  string
	owner bool
}{{"owner", true}, {"anon", false}}

// BenchmarkPostsGet is posts.get of a random post. Target: p50 ≤ 150 µs.
func BenchmarkPostsGet(b *testing.B) {
	bs := newBenchSite(b, seedPosts)
	for _, c := range callers {
		ids := bs.all // the owner sees drafts and unlisted posts too
		if !c.owner {
			ids = bs.public
		}
		bodies := getBodies(ids, 4096)
		b.Run(c.name, func(b *testing.B) { measure(b, bs, c.owner, bodies) })
	}
}

// BenchmarkPostsList is posts.list with limit 20: the newest page, and a
// page after a random cursor. Target: p50 ≤ 400 µs.
func BenchmarkPostsList(b *testing.B) {
	bs := newBenchSite(b, seedPosts)
	for _, c := range callers {
		b.Run(c.name, func(b *testing.B) { measure(b, bs, c.owner, [][]byte{listBody(20)}) })
	}
	for _, c := range callers {
		ids := bs.all
		if !c.owner {
			ids = bs.public
		}
		bodies := cursorBodies(ids, 20, 4096)
		b.Run(c.name+"-cursor", func(b *testing.B) { measure(b, bs, c.owner, bodies) })
	}
}

// BenchmarkPostsCreate is posts.create of a ~200-character note with
// hashtags and a link, as the owner with an API token. Target: p50 ≤ 1 ms.
func BenchmarkPostsCreate(b *testing.B) {
	bs := newBenchSite(b, seedPosts)
	bodies := make([][]byte, 1024)
	for i := range bodies {
		bodies[i] = createBody(seedPosts + i)
	}
	b.Run("owner", func(b *testing.B) { measure(b, bs, true, bodies) })
}

// BenchmarkListScaling compares the throughput of posts.list (limit 20)
// with one caller and with -scale.callers (32) parallel callers, in
// alternating rounds of the same run so that machine noise hits both
// alike. Target: ratio ≥ 1.6 on 2 cores. The timing is its own
// (-scale.rounds × 2 × -scale.round), so ns/op is suppressed; read the
// ops/s and ratio metrics.
func BenchmarkListScaling(b *testing.B) {
	bs := newBenchSite(b, seedPosts)
	body := [][]byte{listBody(20)}
	for _, c := range callers {
		b.Run(c.name, func(b *testing.B) {
			if _, err := throughput(bs, body, c.owner, *scaleCallers, *scaleRound/2); err != nil {
				b.Fatalf("warm-up: %v", err)
			}
			var seq, par, ratio, seqCPU, parCPU []float64
			minRatio := 0.0
			for r := range *scaleRounds {
				var one, many phase
				var err1, err2 error
				if r%2 == 0 {
					one, err1 = throughput(bs, body, c.owner, 1, *scaleRound)
					many, err2 = throughput(bs, body, c.owner, *scaleCallers, *scaleRound)
				} else {
					many, err2 = throughput(bs, body, c.owner, *scaleCallers, *scaleRound)
					one, err1 = throughput(bs, body, c.owner, 1, *scaleRound)
				}
				if err := errors.Join(err1, err2); err != nil {
					b.Fatal(err)
				}
				seq, par = append(seq, one.opsPerSec), append(par, many.opsPerSec)
				seqCPU, parCPU = append(seqCPU, one.cores), append(parCPU, many.cores)
				ratio = append(ratio, many.opsPerSec/one.opsPerSec)
				if r == 0 || ratio[r] < minRatio {
					minRatio = ratio[r]
				}
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(median(seq), "1-caller-ops/s")
			b.ReportMetric(median(par), "N-callers-ops/s")
			b.ReportMetric(median(ratio), "ratio")
			b.ReportMetric(minRatio, "min-ratio")
			b.ReportMetric(median(seqCPU), "1-caller-cores")
			b.ReportMetric(median(parCPU), "N-callers-cores")
		})
	}
}

// phase is the outcome of one throughput run.
type phase struct {
	opsPerSec float64
	// cores is the process's CPU time (user + system) over the wall time:
	// near GOMAXPROCS when the callers keep every core busy, lower when
	// they wait on each other (or the machine is busy with other work).
	cores float64
}

// throughput runs workers goroutines calling bodies in turn for d and
// returns the completed calls per second. Each worker finishes its call
// in flight at the deadline; the elapsed time includes it.
func throughput(bs *benchSite, bodies [][]byte, owner bool, workers int, d time.Duration) (phase, error) {
	var (
		ops      atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
		deadline time.Time
	)
	start := make(chan struct{})
	for w := range workers {
		wg.Go(func() {
			<-start
			n := int64(0)
			for j := w; time.Now().Before(deadline); j += workers {
				if err := bs.call(bodies[j%len(bodies)], owner); err != nil {
					errOnce.Do(func() { firstErr = err })
					break
				}
				n++
			}
			ops.Add(n)
		})
	}
	cpu0 := cpuTime()
	t0 := time.Now()
	deadline = t0.Add(d) // published to the workers by close(start)
	close(start)
	wg.Wait()
	wall := time.Since(t0)
	return phase{opsPerSec: float64(ops.Load()) / wall.Seconds(),
		cores: (cpuTime() - cpu0).Seconds() / wall.Seconds()}, firstErr
}

// cpuTime is the CPU time the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
