package migrate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/queue/migrate"
)

// TestDrainLeavesNothing: after the read switch the old queue holds jobs
// that only it has (enqueued before dual write began), dual-written
// copies, a delayed job, a dead letter and a job a worker is still
// running. Drain waits for the running one, moves the rest to the new
// queue, copies the delayed one and reports the dead letter.
func TestDrainLeavesNothing(t *testing.T) {
	_, _, oldQ, newQ := pair(t, nil)
	only := jobs("test.only_old", 150) // more than one batch
	must(t, oldQ.EnqueueBatch(ctx, only))
	dead := queue.NewJob("test.dies", []byte(`{}`))
	must(t, oldQ.Enqueue(ctx, dead))
	js, err := oldQ.DequeueBatch(ctx, []string{"test.dies"}, 1)
	must(t, err)
	must(t, oldQ.Ack(ctx, js[0], queue.Result{Status: queue.Dead, Err: errors.New("gone")}))

	s := migrate.NewSwitch(oldQ, newQ, migrate.Old)
	both := jobs("test.both", 20)
	must(t, s.EnqueueBatch(ctx, both))
	later := queue.NewJob("test.later", []byte(`{}`))
	later.Delay = time.Hour
	must(t, s.Enqueue(ctx, later))
	laterOnlyOld := queue.NewJob("test.later", []byte(`{}`))
	laterOnlyOld.RunAt = time.Now().Add(2 * time.Hour)
	must(t, oldQ.Enqueue(ctx, laterOnlyOld))
	running, err := s.DequeueBatch(ctx, []string{"test.both"}, 1)
	must(t, err)
	s.SetReadFrom(migrate.New)

	// The worker finishes the job it claimed before the switch a little
	// after the drain starts; its ack goes to old.
	go func() {
		time.Sleep(150 * time.Millisecond)
		if err := s.Ack(ctx, running[0], queue.Result{Status: queue.Success}); err != nil {
			t.Error(err)
		}
	}()
	start := time.Now()
	d, err := migrate.Drain(ctx, oldQ, oldQ, newQ, migrate.DrainOptions{Batch: 64, Poll: 20 * time.Millisecond})
	must(t, err)
	if time.Since(start) < 150*time.Millisecond {
		t.Errorf("Drain returned before the running job was acked")
	}
	want := migrate.Drained{Moved: len(only) + len(both) - 1, Copied: 2, Dead: 1}
	if d != want {
		t.Errorf("Drain = %+v; want %+v", d, want)
	}
	c := counts(t, oldQ, "")
	if c[queue.StatePending] != 0 || c[queue.StateRunning] != 0 || c[queue.StateScheduled] != 2 || c[queue.StateDead] != 1 {
		t.Errorf("old side after Drain: %v; want nothing pending or running (2 scheduled copied, 1 dead)", c)
	}
	c = counts(t, newQ, "")
	if c[queue.StatePending] != len(only)+len(both) || c[queue.StateScheduled] != 2 {
		t.Errorf("new side after Drain: %v; want %d pending (each id once) and 2 scheduled", c, len(only)+len(both))
	}
	in, err := newQ.List(ctx, queue.ListQuery{State: queue.StateScheduled, Limit: 10})
	must(t, err)
	for _, info := range in {
		if info.ID == laterOnlyOld.ID && !info.RunAt.Equal(laterOnlyOld.RunAt.UTC().Truncate(time.Microsecond)) {
			t.Errorf("copied scheduled job runs at %v; want its own time %v", info.RunAt, laterOnlyOld.RunAt)
		}
	}

	// Draining again finds nothing new to move.
	d, err = migrate.Drain(ctx, oldQ, oldQ, newQ, migrate.DrainOptions{Poll: 20 * time.Millisecond})
	must(t, err)
	if d.Moved != 0 {
		t.Errorf("second Drain moved %d; want 0", d.Moved)
	}
}

// TestDrainTargetDown: when the new queue refuses the jobs, they are
// handed back to the old queue, pending, not lost.
func TestDrainTargetDown(t *testing.T) {
	dir := t.TempDir()
	oldQ := managed(openDB(t, dir, "old.db", nil))
	newDB := openDB(t, dir, "new.db", nil)
	must(t, newDB.Close())
	must(t, oldQ.EnqueueBatch(ctx, jobs("test.drain", 5)))
	d, err := migrate.Drain(ctx, oldQ, oldQ, managed(newDB), migrate.DrainOptions{})
	if err == nil || d.Moved != 0 {
		t.Errorf("Drain into a closed queue = %+v, %v; want an error and nothing moved", d, err)
	}
	if c := counts(t, oldQ, ""); c[queue.StatePending] != 5 || c[queue.StateRunning] != 0 {
		t.Errorf("old side after the failed drain: %v; want the 5 jobs pending again", c)
	}
	if _, err := migrate.Drain(ctx, oldQ, nil, oldQ, migrate.DrainOptions{}); murlog.ErrorCode(err) != murlog.EInvalid {
		t.Errorf("Drain without an inspector = %v; want invalid", err)
	}
}

// TestDrainFollow relays jobs that keep arriving on the old queue until
// its context ends.
func TestDrainFollow(t *testing.T) {
	_, _, oldQ, newQ := pair(t, nil)
	cctx, cancel := context.WithCancel(ctx)
	type result struct {
		d   migrate.Drained
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := migrate.Drain(cctx, oldQ, oldQ, newQ, migrate.DrainOptions{Follow: true, Poll: 10 * time.Millisecond})
		done <- result{d, err}
	}()
	for i := 0; i < 5; i++ {
		must(t, oldQ.EnqueueBatch(ctx, jobs("test.follow", 10)))
		time.Sleep(15 * time.Millisecond)
	}
	deadline := time.Now().Add(5 * time.Second)
	for counts(t, newQ, "")[queue.StatePending] < 50 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	r := <-done
	if r.err != nil || r.d.Moved != 50 {
		t.Errorf("Follow drain = %+v, %v; want 50 moved and no error when its context ends", r.d, r.err)
	}
	if c := counts(t, oldQ, ""); c[queue.StatePending] != 0 || c[queue.StateDone] != 50 {
		t.Errorf("old side after relaying: %v; want all 50 done", c)
	}
}
