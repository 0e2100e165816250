package bench

import (
	"bufio"
	"errors"
	"flag"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var (
	scaleRounds  = flag.Int("scale.rounds", 6, "rounds of the list scaling benchmark (each runs 1 and N callers)")
	scaleRound   = flag.Duration("scale.round", 500*time.Millisecond, "duration of each phase of a scaling round")
	scaleCallers = flag.Int("scale.callers", 32, "parallel callers (N) in the scaling benchmark")
)

// quietOthers is how much CPU (in cores) other processes may use during
// both phases of a round for the round to count as clean.
const quietOthers = 0.25

// BenchmarkListScaling compares the throughput of posts.list (limit 20)
// with one caller and with -scale.callers (32) parallel callers, in
// alternating rounds of the same run so that machine noise hits both
// alike. Target: ratio ≥ 1.6 on 2 cores.
//
// It keeps its own time (-scale.rounds × 2 × -scale.round), so ns/op is
// suppressed. Metrics: ops/s of each phase and their ratio (medians over
// the rounds), the lowest round's ratio, the cores this process used in
// each phase, the cores other processes used meanwhile (from /proc/stat),
// and the median ratio over the clean rounds, those in which other
// processes stayed under quietOthers cores.
func BenchmarkListScaling(b *testing.B) {
	bs := newBenchSite(b, seedPosts)
	body := [][]byte{listBody(20)}
	for _, c := range callers {
		b.Run(c.name, func(b *testing.B) {
			if _, err := throughput(bs, body, c.owner, *scaleCallers, *scaleRound/2); err != nil {
				b.Fatalf("warm-up: %v", err)
			}
			var seq, par, ratio, seqCPU, parCPU, others, clean []float64
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
				rt := many.opsPerSec / one.opsPerSec
				seq, par, ratio = append(seq, one.opsPerSec), append(par, many.opsPerSec), append(ratio, rt)
				seqCPU, parCPU = append(seqCPU, one.cores), append(parCPU, many.cores)
				others = append(others, max(one.others, many.others))
				if one.others >= 0 && max(one.others, many.others) < quietOthers {
					clean = append(clean, rt)
				}
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(median(seq), "1-caller-ops/s")
			b.ReportMetric(median(par), "N-callers-ops/s")
			b.ReportMetric(slicesMin(ratio), "min-ratio")
			b.ReportMetric(median(ratio), "ratio")
			b.ReportMetric(median(seqCPU), "1-caller-cores")
			b.ReportMetric(median(parCPU), "N-callers-cores")
			b.ReportMetric(median(others), "others-cores")
			b.ReportMetric(float64(len(clean)), "clean-rounds")
			if len(clean) > 0 {
				b.ReportMetric(median(clean), "clean-ratio")
			}
		})
	}
}

func slicesMin(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = min(m, x)
	}
	return m
}

// phase is the outcome of one throughput run.
type phase struct {
	opsPerSec float64
	// cores is this process's CPU time (user + system) over the wall
	// time: near GOMAXPROCS when the callers keep every core busy, lower
	// when they wait on each other or other processes hold the CPUs.
	cores float64
	// others is the CPU time every other process used, in cores; -1 when
	// /proc/stat cannot be read.
	others float64
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
	busy0, cpu0 := machineBusy(), cpuTime()
	t0 := time.Now()
	deadline = t0.Add(d) // published to the workers by close(start)
	close(start)
	wg.Wait()
	wall := time.Since(t0)
	busy1, cpu1 := machineBusy(), cpuTime()
	ph := phase{opsPerSec: float64(ops.Load()) / wall.Seconds(),
		cores: (cpu1 - cpu0).Seconds() / wall.Seconds(), others: -1}
	if busy0 >= 0 && busy1 >= 0 {
		ph.others = max(0, (busy1-busy0-(cpu1-cpu0)).Seconds()/wall.Seconds())
	}
	return ph, firstErr
}

// cpuTime is the CPU time this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machineBusy is the CPU time all processes have used since boot, from the
// first line of /proc/stat (in USER_HZ = 1/100 s ticks), or -1.
func machineBusy() time.Duration {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return -1
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		return -1
	}
	fields := strings.Fields(line)
	if len(fields) < 9 || fields[0] != "cpu" {
		return -1
	}
	var ticks int64
	// user nice system idle iowait irq softirq steal: all but idle and iowait.
	for i, f := range fields[1:9] {
		if i == 3 || i == 4 {
			continue
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return -1
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
