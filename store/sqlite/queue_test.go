package sqlite

import (
	"context"
	"errors"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/queue/queuetest"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/trace"
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

// Transactional enqueue prepares jobs with the same code as every queue
// (queue.Prepare): a job continues the trace of the transaction's context,
// and a bad job fails the transaction, writing nothing.
func TestTransactionalEnqueueIsPrepared(t *testing.T) {
	db := MustOpen(t, nil)
	q := queue.New(db.Queue(), queue.Options{})
	parent := trace.New()
	j := queue.NewJob("post.publish", []byte(`{}`))
	must(t, db.Update(trace.With(ctx, parent), func(tx store.Tx) error { return tx.Jobs().Enqueue(j) }))
	js, err := q.DequeueBatch(ctx, nil, 10)
	must(t, err)
	if len(js) != 1 {
		t.Fatalf("claimed %d; want the job", len(js))
	}
	if got, ok := trace.Parse(js[0].Headers[trace.Header]); !ok || got.TraceID != parent.TraceID || got.SpanID == parent.SpanID {
		t.Errorf("traceparent = %q; want a child span of trace %s", js[0].Headers[trace.Header], parent.TraceID)
	}
	if js[0].MaxAttempts != 0 {
		t.Errorf("stored max_attempts = %d; want 0 (the topic's policy decides)", js[0].MaxAttempts)
	}
	err = db.Update(ctx, func(tx store.Tx) error {
		if err := tx.Settings().Set("written", "yes"); err != nil {
			return err
		}
		return tx.Jobs().Enqueue(queue.NewJob("post.publish", nil), queue.NewJob("Bad Topic", nil))
	})
	if murlog.ErrorCode(err) != murlog.EInvalid {
		t.Fatalf("enqueueing a bad job in a transaction = %v; want invalid", err)
	}
	if n, _ := q.Runnable(ctx); n != 0 {
		t.Errorf("a refused enqueue left %d jobs; want none", n)
	}
	must(t, db.View(ctx, func(tx store.Tx) error {
		if _, err := tx.Settings().Get("written"); murlog.ErrorCode(err) != murlog.ENotFound {
			t.Errorf("the write beside a refused enqueue: Get = %v; want not found (rolled back)", err)
		}
		return nil
	}))
}
