package sqlite

import (
	"context"
	"errors"
	"testing"

	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/queue/queuetest"
	"github.com/murlog/murlog/store"
)

var ctx = context.Background()

func TestQueueContract(t *testing.T) {
	queuetest.RunEngine(t, func(t *testing.T, c *queuetest.Clock) queue.Engine {
		return MustOpen(t, c.Now).Queue()
	})
}

func TestTransactionalEnqueue(t *testing.T) {
	db := MustOpen(t, nil)
	q := queue.New(db.Queue(), queue.Options{})
	j := queue.NewJob("post.publish", []byte(`{}`))
	err := db.Update(ctx, func(tx store.Tx) error {
		if err := tx.Settings().Set("post", "written"); err != nil {
			return err
		}
		if err := tx.Jobs().Enqueue(j); err != nil {
			return err
		}
		return errors.New("the write failed after enqueueing")
	})
	if err == nil {
		t.Fatal("Update succeeded")
	}
	if n, _ := q.Runnable(ctx); n != 0 {
		t.Errorf("a rolled-back transaction left %d jobs; want the job to vanish with the write", n)
	}
	select {
	case <-db.Woken():
		t.Error("workers were woken for a rolled-back enqueue")
	default:
	}
	must(t, db.Update(ctx, func(tx store.Tx) error {
		if err := tx.Settings().Set("post", "written"); err != nil {
			return err
		}
		return tx.Jobs().Enqueue(j)
	}))
	select {
	case <-db.Woken():
	default:
		t.Error("workers were not woken by a committed enqueue")
	}
	if js, _ := q.DequeueBatch(ctx, nil, 10); len(js) != 1 || js[0].ID != j.ID {
		t.Errorf("after commit claimed %v; want the job", js)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
