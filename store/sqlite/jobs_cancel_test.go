package sqlite

import (
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

// TestJobsCancel: Cancel deletes the named jobs that have not started —
// pending or scheduled — and leaves running and finished ones, unknown
// ids and every other job alone.
func TestJobsCancel(t *testing.T) {
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	db := MustOpen(t, func() time.Time { return now })
	q := queue.New(db.Queue(), queue.Options{})
	mk := func(delay time.Duration) queue.Job {
		j := queue.NewJob("post.publish", []byte(`{}`))
		j.Delay = delay
		return j
	}
	running, done, pending, scheduled, other := mk(0), mk(0), mk(0), mk(time.Hour), mk(time.Hour)
	if err := db.Update(ctx, func(tx store.Tx) error { return tx.Jobs().Enqueue(running, done) }); err != nil {
		t.Fatal(err)
	}
	claimed, err := q.DequeueBatch(ctx, nil, 2)
	if err != nil || len(claimed) != 2 {
		t.Fatalf("DequeueBatch = %d jobs, %v; want 2", len(claimed), err)
	}
	for _, j := range claimed {
		if j.ID == done.ID {
			if err := q.Ack(ctx, j, queue.Result{Status: queue.Success}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.Update(ctx, func(tx store.Tx) error { return tx.Jobs().Enqueue(pending, scheduled, other) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(ctx, func(tx store.Tx) error {
		return tx.Jobs().Cancel(running.ID, done.ID, pending.ID, scheduled.ID, murlog.NewID())
	}); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	left := map[string]queue.State{}
	infos, err := q.List(ctx, queue.ListQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		left[in.ID] = in.State
	}
	want := map[string]queue.State{running.ID: queue.StateRunning, done.ID: queue.StateDone, other.ID: queue.StateScheduled}
	if len(left) != len(want) {
		t.Errorf("after Cancel the queue holds %v; want only the running, done and uncancelled jobs %v", left, want)
	}
	for id, st := range want {
		if left[id] != st {
			t.Errorf("job %s is %q after Cancel; want %q", id, left[id], st)
		}
	}
	if err := db.Update(ctx, func(tx store.Tx) error { return tx.Jobs().Cancel() }); err != nil {
		t.Errorf("Cancel() with no ids: %v; want nil", err)
	}
	many := make([]string, queue.MaxBatch+1)
	for i := range many {
		many[i] = murlog.NewID()
	}
	err = db.Update(ctx, func(tx store.Tx) error { return tx.Jobs().Cancel(many...) })
	if murlog.ErrorCode(err) != murlog.EInvalid {
		t.Errorf("Cancel of %d ids err = %v; want invalid", len(many), err)
	}
}
