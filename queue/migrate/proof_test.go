package migrate_test

import (
	"bufio"
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/queue/migrate"
	"github.com/murlog/murlog/worker"
)

// syncBuf is a log sink safe for the worker's goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestSwitchUnderLoad is the proof the migration path asks for: two SQLite
// queues, producers writing through the Switch (dual write) while a
// resident worker runs, reads switched from old to new mid-stream after
// about half the jobs ran, production going on, then the old side drained.
// Every job runs exactly once: none lost, and the copies of jobs that ran
// on the old side are skipped by the ledger.
func TestSwitchUnderLoad(t *testing.T) {
	const topic = "test.run"
	producers, perProducer := 8, 500
	if testing.Short() {
		producers, perProducer = 4, 250
	}
	total := producers * perProducer
	start := time.Now()
	oldDB, _, oldQ, newQ := pair(t, nil)
	sw := migrate.NewSwitch(oldQ, newQ, migrate.Old)
	sw.Poll = 10 * time.Millisecond

	var (
		mu   sync.Mutex
		runs = map[string]int{}
		ran  atomic.Int64
	)
	reg := worker.NewRegistry()
	reg.Handle(topic, func(ctx context.Context, j *queue.Job) error {
		// A short, uneven run keeps jobs in flight across the switch.
		time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
		mu.Lock()
		runs[j.ID]++
		mu.Unlock()
		ran.Add(1)
		return nil
	}, queue.Policy{})
	worker.RegisterMaintenance(reg, sw, oldDB, nil)
	logs := &syncBuf{}
	w := worker.New(worker.Options{Queue: sw, Inspector: sw, Registry: reg, Ledger: oldDB.Ledger(),
		Wake: sw.Woken(), Poll: 10 * time.Millisecond, Logger: worker.NewJobLogger(logs, nil), Svc: "proof"})
	wctx, stopWorker := context.WithCancel(ctx)
	defer stopWorker()
	workerDone := make(chan error, 1)
	go func() { workerDone <- w.Run(wctx) }()

	// Producers write 60% of their jobs, wait for the switch, then write
	// the rest: the switch always happens with production under way.
	switched := make(chan struct{})
	ids := make([][]string, producers)
	var prod sync.WaitGroup
	for p := 0; p < producers; p++ {
		prod.Add(1)
		go func() {
			defer prod.Done()
			for i := 0; i < perProducer; {
				if i >= perProducer*6/10 {
					<-switched
				}
				n := min(1+rand.IntN(20), perProducer-i)
				js := jobs(topic, n)
				var err error
				if n == 1 {
					err = sw.Enqueue(ctx, js[0])
				} else {
					err = sw.EnqueueBatch(ctx, js)
				}
				if err != nil {
					t.Errorf("producer %d: enqueue: %v", p, err)
					return
				}
				for _, j := range js {
					ids[p] = append(ids[p], j.ID)
				}
				i += n
			}
		}()
	}

	waitFor(t, "half the jobs to run on the old side", func() bool { return ran.Load() >= int64(total/2) })
	ranBefore := ran.Load()
	sw.SetReadFrom(migrate.New)
	switchedAt := time.Since(start)
	close(switched)
	prod.Wait()
	if t.Failed() {
		t.FailNow()
	}

	waitFor(t, "every job to run", func() bool { return ran.Load() >= int64(total) })
	waitFor(t, "the new side to finish", func() bool {
		c := counts(t, newQ, topic)
		return c[queue.StatePending]+c[queue.StateRunning]+c[queue.StateScheduled] == 0
	})
	stopWorker()
	if err := <-workerDone; err != nil {
		t.Fatalf("worker.Run = %v", err)
	}

	// What was left behind on the old side: its copies of the jobs the
	// new side ran. Nothing may still be running there.
	ranOnOld := counts(t, oldQ, topic)[queue.StateDone]
	before := counts(t, oldQ, topic)
	if before[queue.StateRunning] != 0 || before[queue.StatePending] != total-ranOnOld {
		t.Errorf("old side before the drain: %v; want %d done (ran there), %d pending (copies never claimed), none running",
			before, ranOnOld, total-ranOnOld)
	}
	d, err := migrate.Drain(ctx, oldQ, oldQ, newQ, migrate.DrainOptions{Poll: 10 * time.Millisecond})
	must(t, err)
	// Drained copies exist on the new side already (done): nothing runs.
	again, err := w.RunBatch(ctx, 50, time.Second)
	must(t, err)

	// Every id ran exactly once.
	var all []string
	for _, p := range ids {
		all = append(all, p...)
	}
	mu.Lock()
	if len(all) != total || len(runs) != total {
		t.Errorf("enqueued %d ids, %d distinct ids ran; want %d of each", len(all), len(runs), total)
	}
	twice := 0
	for _, id := range all {
		if runs[id] != 1 {
			twice++
			if twice <= 5 {
				t.Errorf("job %s ran %d times; want once", id, runs[id])
			}
		}
	}
	mu.Unlock()
	if n := ran.Load(); n != int64(total) {
		t.Errorf("handler ran %d times for %d jobs", n, total)
	}

	// The ledger suppressed exactly the copies of jobs that ran on old.
	skipped := skippedIDs(t, logs.String())
	if len(skipped) != ranOnOld || ranOnOld < int(ranBefore) {
		t.Errorf("the worker skipped %d jobs as already run; want %d (the jobs done on the old side, at least the %d run before the switch)",
			len(skipped), ranOnOld, ranBefore)
	}
	seen, err := oldDB.Ledger().Seen(ctx, all)
	must(t, err)
	if len(seen) != total {
		t.Errorf("the ledger records %d of %d jobs", len(seen), total)
	}

	// Both sides end with nothing left to do.
	if c := counts(t, oldQ, topic); c[queue.StatePending]+c[queue.StateRunning]+c[queue.StateScheduled] != 0 || c[queue.StateDone] != total {
		t.Errorf("old side after the drain: %v; want all %d done", c, total)
	}
	if c := counts(t, newQ, topic); c[queue.StateDone] != total || len(c) != 1 {
		t.Errorf("new side at the end: %v; want all %d done", c, total)
	}
	if d.Moved != total-ranOnOld || again != 0 {
		t.Errorf("Drain moved %d, then the worker ran %d; want %d moved (no-ops on new) and nothing run", d.Moved, again, total-ranOnOld)
	}
	t.Logf("%d jobs, %d producers: switched after %d ran (%v); %d ran on old, %d on new; the ledger skipped %d copies; drain moved %d; %v in all",
		total, producers, ranBefore, switchedAt.Round(time.Millisecond), ranOnOld, total-ranOnOld, len(skipped), d.Moved,
		time.Since(start).Round(time.Millisecond))
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// skippedIDs returns the ids of the job.skipped events in the worker's
// log, failing on an id skipped twice.
func skippedIDs(t *testing.T, logs string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(logs))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var ev struct {
			Event string `json:"event"`
			ID    string `json:"job.id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if ev.Event != "job.skipped" {
			continue
		}
		if out[ev.ID] {
			t.Errorf("job %s skipped twice", ev.ID)
		}
		out[ev.ID] = true
	}
	must(t, sc.Err())
	return out
}
