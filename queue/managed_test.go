package queue_test

import (
	"context"
	"errors"
	"testing"

	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
)

// brokenCounters fails every count, as a metrics store that is down would.
type brokenCounters struct{ calls int }

func (b *brokenCounters) Count(context.Context, []queue.Sample) error {
	b.calls++
	return errors.New("metrics store is down")
}

// TestCountingIsBestEffort: once an enqueue or an ack is stored, a failure
// to count it does not fail the call — a producer told its enqueue failed
// would enqueue again under a fresh id.
func TestCountingIsBestEffort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), "q.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bc := &brokenCounters{}
	q := queue.New(db.Queue(), queue.Options{Counters: bc})
	j := queue.NewJob("test.count", []byte(`{}`))
	if err := q.Enqueue(ctx, j); err != nil {
		t.Fatalf("Enqueue with failing counters = %v; want nil (the job is stored)", err)
	}
	got, err := q.DequeueBatch(ctx, nil, 1)
	if err != nil || len(got) != 1 || got[0].ID != j.ID {
		t.Fatalf("claim after the enqueue = %v, %v; want the job", got, err)
	}
	if err := q.Ack(ctx, got[0], queue.Result{Status: queue.Success}); err != nil {
		t.Errorf("Ack with failing counters = %v; want nil (the outcome is stored)", err)
	}
	if bc.calls < 2 {
		t.Errorf("counters called %d times; want the enqueue and the ack counted (and failing)", bc.calls)
	}
	infos, err := q.List(ctx, queue.ListQuery{Limit: 10})
	if err != nil || len(infos) != 1 || infos[0].State != queue.StateDone {
		t.Errorf("queue after the ack = %+v, %v; want the job done", infos, err)
	}
}
