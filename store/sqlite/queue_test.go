package sqlite

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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

// TestExpiredLeaseIsWorthAWorker: a job left running under a lease that
// ran out (its worker was killed) makes HasRunnable true, so the next CGI
// request spawns a worker that recovers it; under its lease it does not.
// Both lookups, and recovery's, go through the index of running leases
// rather than a scan of the table.
func TestExpiredLeaseIsWorthAWorker(t *testing.T) {
	t.Parallel()
	c := queuetest.NewClock()
	db := MustOpen(t, c.Now)
	q := queue.New(db.Queue(), queue.Options{})
	must(t, q.Enqueue(ctx, queue.NewJob("test.lease", []byte(`{}`))))
	if js, err := q.DequeueBatch(ctx, nil, 1); err != nil || len(js) != 1 {
		t.Fatalf("claim = %v, %v", js, err)
	}
	if ok, err := db.Queue().HasRunnable(ctx); err != nil || ok {
		t.Errorf("HasRunnable with the only job running under its lease = %v, %v; want false", ok, err)
	}
	c.Add(q.Lease() + time.Second)
	if ok, err := db.Queue().HasRunnable(ctx); err != nil || !ok {
		t.Errorf("HasRunnable with the only job's lease run out = %v, %v; want true", ok, err)
	}
	for _, query := range []string{
		`SELECT 1 FROM queue_jobs WHERE state = 'running' AND lease_until < 0`,
		`SELECT id, topic, attempt, max_attempts FROM queue_jobs WHERE state = 'running' AND lease_until < 0 ORDER BY lease_until LIMIT 5`,
	} {
		rows, err := db.r.Query("EXPLAIN QUERY PLAN " + query)
		must(t, err)
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			must(t, rows.Scan(&id, &parent, &notused, &detail))
			plan = append(plan, detail)
		}
		rows.Close()
		if p := strings.Join(plan, "; "); !strings.Contains(p, "queue_jobs_lease") {
			t.Errorf("%s: plan %q; want it to use the index queue_jobs_lease", query, p)
		}
	}
}

// TestMigration012LeasesRunningJobs: jobs left running by the binary
// before leases (a worker killed during the upgrade) get the lease their
// claim would have had, so they are recovered a minute after their start.
func TestMigration012LeasesRunningJobs(t *testing.T) {
	t.Parallel()
	c := queuetest.NewClock()
	db := MustOpen(t, c.Now)
	q := queue.New(db.Queue(), queue.Options{})
	must(t, q.Enqueue(ctx, queue.NewJob("test.upgrade", []byte(`{}`))))
	js, err := q.DequeueBatch(ctx, nil, 1)
	if err != nil || len(js) != 1 {
		t.Fatalf("claim = %v, %v", js, err)
	}
	for _, s := range append(undo016[:len(undo016):len(undo016)], "DROP INDEX queue_jobs_lease", "ALTER TABLE queue_jobs DROP COLUMN lease_until",
		"DROP TABLE signature_schemes", "DROP TABLE artifact_dirty", "DROP TABLE shield_counters", "DELETE FROM schema_version WHERE version >= 12") {
		if _, err := db.w.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	must(t, db.applyMigrations(ctx, migrationFiles))
	infos, err := q.List(ctx, queue.ListQuery{State: queue.StateRunning, Limit: 10})
	if err != nil || len(infos) != 1 || infos[0].LeaseUntil == nil || !infos[0].LeaseUntil.Equal(infos[0].StartedAt.Add(time.Minute)) {
		t.Fatalf("running job after migration 012: %+v, %v; want a lease until a minute after its start", infos, err)
	}
	c.Add(time.Minute + time.Second)
	if n, err := q.RecoverExpired(ctx); err != nil || n != 1 {
		t.Errorf("RecoverExpired a minute after the claim = %d, %v; want the job", n, err)
	}
}
