package migrate_test

import (
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/queue/migrate"
)

// TestSecondWriteFails: with the second queue down, a dual write fails
// with a retryable error though the first queue took the jobs; once it is
// back, the caller's retry writes both with no duplicate on either side.
func TestSecondWriteFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		wrap func(primary, secondary queue.Queue) queue.Queue
	}{
		{"DualWrite", migrate.DualWrite},
		{"Switch", func(p, s queue.Queue) queue.Queue { return migrate.NewSwitch(p, s, migrate.Old) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			primary := managed(openDB(t, dir, "primary.db", nil))
			secondaryDB := openDB(t, dir, "secondary.db", nil)
			must(t, secondaryDB.Close()) // the secondary is down

			q := tc.wrap(primary, managed(secondaryDB))
			one, batch := queue.NewJob("test.dual", []byte(`{}`)), jobs("test.dual", 3)
			for _, try := range []func() error{
				func() error { return q.Enqueue(ctx, one) },
				func() error { return q.EnqueueBatch(ctx, batch) },
			} {
				err := try()
				if murlog.ErrorCode(err) != murlog.EUnavailable {
					t.Errorf("enqueue with the secondary closed = %v; want a retryable unavailable error", err)
				}
			}
			if err := q.HealthCheck(ctx); err == nil {
				t.Error("HealthCheck with the secondary closed = nil; want an error")
			}
			if c := counts(t, primary, ""); c[queue.StatePending] != 4 {
				t.Fatalf("primary after the failed writes: %v; want the 4 jobs (written first)", c)
			}

			// The secondary comes back (reopened from its file); the
			// caller retries exactly what failed.
			back := managed(openDB(t, dir, "secondary.db", nil))
			q = tc.wrap(primary, back)
			must(t, q.HealthCheck(ctx))
			must(t, q.Enqueue(ctx, one))
			must(t, q.EnqueueBatch(ctx, batch))
			for name, side := range map[string]*queue.Managed{"primary": primary, "secondary": back} {
				if c := counts(t, side, ""); c[queue.StatePending] != 4 || len(c) != 1 {
					t.Errorf("%s after the retry: %v; want exactly 4 pending (no duplicates)", name, c)
				}
			}

			// Reads and acks stay on the primary.
			js, err := q.DequeueBatch(ctx, nil, 10)
			must(t, err)
			if len(js) != 4 {
				t.Fatalf("claimed %d; want 4 from the primary", len(js))
			}
			for _, j := range js {
				must(t, q.Ack(ctx, j, queue.Result{Status: queue.Success}))
			}
			if c := counts(t, primary, ""); c[queue.StateDone] != 4 {
				t.Errorf("primary after acks: %v; want 4 done", c)
			}
			if c := counts(t, back, ""); c[queue.StatePending] != 4 {
				t.Errorf("secondary after acks on the primary: %v; want its 4 copies still pending", c)
			}
		})
	}
}

func TestDualWriteProvider(t *testing.T) {
	_, _, p, s := pair(t, nil)
	q := migrate.DualWrite(p, s)
	if got, want := q.Provider(), "dual(sqlite+sqlite)"; got != want {
		t.Errorf("Provider() = %q; want %q", got, want)
	}
	if _, ok := q.(queue.Inspector); !ok {
		t.Error("DualWrite does not implement queue.Inspector; the worker needs it for depth and maintenance")
	}
	// Invalid jobs are refused by the primary before anything is written.
	if err := q.Enqueue(ctx, queue.Job{Topic: "x"}); murlog.ErrorCode(err) != murlog.EInvalid {
		t.Errorf("Enqueue(no id) = %v; want invalid", err)
	}
}
