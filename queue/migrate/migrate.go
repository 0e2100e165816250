// Package migrate moves murlog's jobs from one queue provider to another
// without losing or repeating any (seed queue-abstraction §5): writes go
// to both queues (DualWrite, or a Switch), reads switch from the old queue
// to the new one at run time (Switch), and what is left on the old side is
// moved over (Drain). A job then exists in two queues, so the worker runs
// with a ledger (worker.Options.Ledger) that skips a job already run on
// the other side; enqueueing is idempotent by job id on both sides, so a
// failed write is simply written again.
//
// The composition root picks the phase from the configuration with
// FromConfig; docs/queue-migration.md is the operator's procedure.
package migrate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
)

// DualWrite returns a queue that writes every job to primary, then to
// secondary, and reads, acks and inspects only primary: Phase 1 of a
// migration, filling the secondary while the workers still consume the
// primary. A secondary failure is returned as an error (retryable) even
// though the primary has the job, so the caller's retry writes both again;
// the primary skips the id it already has.
func DualWrite(primary, secondary queue.Queue) queue.Queue {
	return &dualWrite{p: primary, s: secondary}
}

type dualWrite struct{ p, s queue.Queue }

var (
	_ queue.Queue     = (*dualWrite)(nil)
	_ queue.Inspector = (*dualWrite)(nil)
)

func (d *dualWrite) Enqueue(ctx context.Context, j queue.Job) error {
	return d.EnqueueBatch(ctx, []queue.Job{j})
}

func (d *dualWrite) EnqueueBatch(ctx context.Context, js []queue.Job) error {
	if err := d.p.EnqueueBatch(ctx, js); err != nil {
		return err
	}
	return secondWrite(d.s, d.s.EnqueueBatch(ctx, js))
}

func (d *dualWrite) Dequeue(ctx context.Context, topics []string) (*queue.Job, error) {
	return d.p.Dequeue(ctx, topics)
}

func (d *dualWrite) DequeueBatch(ctx context.Context, topics []string, max int) ([]*queue.Job, error) {
	return d.p.DequeueBatch(ctx, topics, max)
}

func (d *dualWrite) Ack(ctx context.Context, j *queue.Job, r queue.Result) error {
	return d.p.Ack(ctx, j, r)
}

func (d *dualWrite) AckBatch(ctx context.Context, acks []queue.Ack) error {
	return d.p.AckBatch(ctx, acks)
}

func (d *dualWrite) Renew(ctx context.Context, js []*queue.Job) ([]bool, error) {
	return d.p.Renew(ctx, js)
}

func (d *dualWrite) Lease() time.Duration { return d.p.Lease() }

// HealthCheck fails when either queue fails: a broken secondary refuses
// every enqueue, so the pair is not usable.
func (d *dualWrite) HealthCheck(ctx context.Context) error {
	return healthCheck(ctx, d.p, d.s, "primary", "secondary")
}

func (d *dualWrite) Provider() string {
	return "dual(" + d.p.Provider() + "+" + d.s.Provider() + ")"
}

// The Inspector methods answer for the primary, the only queue read.

func (d *dualWrite) Counts(ctx context.Context) ([]queue.Count, error) {
	in, err := inspector(d.p)
	if err != nil {
		return nil, err
	}
	return in.Counts(ctx)
}

func (d *dualWrite) Runnable(ctx context.Context) (int, error) {
	in, err := inspector(d.p)
	if err != nil {
		return 0, err
	}
	return in.Runnable(ctx)
}

func (d *dualWrite) List(ctx context.Context, q queue.ListQuery) ([]*queue.Info, error) {
	in, err := inspector(d.p)
	if err != nil {
		return nil, err
	}
	return in.List(ctx, q)
}

func (d *dualWrite) Retry(ctx context.Context, id string) error {
	in, err := inspector(d.p)
	if err != nil {
		return err
	}
	return in.Retry(ctx, id)
}

func (d *dualWrite) Dismiss(ctx context.Context, id string) error {
	in, err := inspector(d.p)
	if err != nil {
		return err
	}
	return in.Dismiss(ctx, id)
}

func (d *dualWrite) RecoverExpired(ctx context.Context) (int, error) {
	in, err := inspector(d.p)
	if err != nil {
		return 0, err
	}
	return in.RecoverExpired(ctx)
}

func (d *dualWrite) Cleanup(ctx context.Context, before time.Time) (int, error) {
	in, err := inspector(d.p)
	if err != nil {
		return 0, err
	}
	return in.Cleanup(ctx, before)
}

// secondWrite classifies the failure of the second of two writes. The
// first queue accepted the same jobs, so the jobs are valid and the cause
// is the second queue's availability: the error says to retry (keeping
// the cause for the log) unless the second queue itself judged the jobs
// invalid, which a retry cannot fix.
func secondWrite(q queue.Queue, err error) error {
	if err == nil {
		return nil
	}
	if murlog.ErrorCode(err) == murlog.EInvalid {
		return fmt.Errorf("migrate: second write to %s: %w", q.Provider(), err)
	}
	return &murlog.Error{Code: murlog.EUnavailable, RetryAfter: time.Second,
		Message: "the job queue is busy, try again",
		Err:     fmt.Errorf("migrate: second write to %s (the first queue has the jobs; retrying writes both again): %w", q.Provider(), err)}
}

func healthCheck(ctx context.Context, a, b queue.Queue, an, bn string) error {
	var errs []error
	if err := a.HealthCheck(ctx); err != nil {
		errs = append(errs, fmt.Errorf("%s queue (%s): %w", an, a.Provider(), err))
	}
	if err := b.HealthCheck(ctx); err != nil {
		errs = append(errs, fmt.Errorf("%s queue (%s): %w", bn, b.Provider(), err))
	}
	return errors.Join(errs...)
}

// inspector returns q's Inspector, or an error saying the queue's engine
// cannot answer (broker adapters implement what they can).
func inspector(q queue.Queue) (queue.Inspector, error) {
	if in, ok := inspectable(q); ok {
		return in, nil
	}
	return nil, murlog.Errorf(murlog.EUnavailable, "the %s queue cannot be inspected", q.Provider())
}

// inspectable returns q's Inspector when its engine answers one: a
// queue.Managed always has the methods, but over an engine without
// inspection they only fail.
func inspectable(q queue.Queue) (queue.Inspector, bool) {
	if m, ok := q.(*queue.Managed); ok && !m.Inspects() {
		return nil, false
	}
	in, ok := q.(queue.Inspector)
	return in, ok
}

// Read sides named by the configuration key queue_read_from.
const (
	ReadPrimary   = "primary"
	ReadSecondary = "secondary"
)

// FromConfig returns the queue for a migration phase, for the composition
// root. primary is the queue murlog runs on (the embedded one), secondary
// the queue named by queue_dual_write (nil when it is not set); dualWrite
// says whether jobs are written to both (with today's keys: whether
// queue_dual_write is set), and readFrom ("primary" or "secondary"; ""
// means primary) which one the workers consume.
//
//	secondary  dualWrite  readFrom   result
//	nil        false      primary    primary itself: no migration
//	set        true       primary    Phase 1: Switch reading primary, writing both
//	set        true       secondary  Phase 2: Switch reading secondary, writing both
//	set        false      secondary  Phase 3: Switch reading and writing secondary only
//	set        false      primary    Switch reading and writing primary only (rolled back)
//
// Whenever a secondary is set the result is a Switch, even with one side
// idle, so that it fences reads at start-up against jobs still running on
// the other side and recovery of expired leases and clean-up cover both.
func FromConfig(primary, secondary queue.Queue, dualWrite bool, readFrom string) (queue.Queue, error) {
	if primary == nil {
		return nil, murlog.Invalid("queue", "no primary queue")
	}
	var side Side
	switch readFrom {
	case ReadPrimary, "":
		side = Old
	case ReadSecondary:
		side = New
	default:
		return nil, murlog.Invalid("queue_read_from", "must be %q or %q, not %q", ReadPrimary, ReadSecondary, readFrom)
	}
	if secondary == nil {
		if dualWrite {
			return nil, murlog.Invalid("queue_dual_write", "dual write needs a secondary queue")
		}
		if side == New {
			return nil, murlog.Invalid("queue_read_from", "%q needs a secondary queue (queue_dual_write)", ReadSecondary)
		}
		return primary, nil
	}
	s := NewSwitch(primary, secondary, side)
	s.SetSingleWrite(!dualWrite)
	return s, nil
}
