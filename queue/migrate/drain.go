package migrate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
)

// DrainOptions tune Drain. The zero value is ready to use.
type DrainOptions struct {
	// Batch is how many jobs are moved at a time; 100 when 0.
	Batch int
	// Poll is the wait between looks while jobs still run on the old
	// queue (or, with Follow, while it is empty); 1 s when 0.
	Poll time.Duration
	// Follow keeps moving jobs until ctx ends instead of returning once
	// the old queue is empty: a relay for jobs that keep arriving there
	// after the read switch (murlog's transactional enqueue writes to the
	// embedded queue only). Drain then returns a nil error when ctx ends.
	Follow bool
}

// Drained is what Drain did, and what it left on the old queue.
type Drained struct {
	// Moved counts runnable jobs enqueued on the new queue and acked done
	// on the old one.
	Moved int
	// Copied counts scheduled jobs (delayed, or waiting to retry) copied
	// to the new queue with their run time. The port has no way to remove
	// a job that is not dead, so they also stay scheduled on the old
	// queue; draining again after they come due moves them (a no-op on
	// the new side, which has their id).
	Copied int
	// Dead counts dead letters left on the old queue, for the owner to
	// retry or dismiss there.
	Dead int
}

// Drain empties the old queue from into the new queue to after the read
// switch (seed §5 Phase 2: confirm nothing is left on the old side). It
// claims the old queue's runnable jobs, enqueues each on to (a no-op for
// the dual-written copies to has already, which the worker's ledger then
// skips if they ran on the old side) and acks it done on from; it waits
// for jobs still running on from (a worker finishing what it claimed
// before the switch, acked there through the Switch), recovering them once
// their leases run out; and it copies the scheduled ones. insp inspects from.
//
// A moved job starts over on to with a fresh attempt count. Enqueueing on
// to before acking on from means a crash in between leaves the job on both
// sides, never on neither. Drain only a queue the workers no longer read:
// a job moved while a worker could also claim it is safe (the copy runs on
// to) but is held back until the read switch.
func Drain(ctx context.Context, from queue.Queue, insp queue.Inspector, to queue.Queue, o DrainOptions) (Drained, error) {
	var d Drained
	if from == nil || insp == nil || to == nil {
		return d, murlog.Invalid("queue", "Drain needs both queues and an inspector of the old one")
	}
	batch := o.Batch
	if batch <= 0 {
		batch = 100
	}
	batch = min(batch, queue.MaxBatch)
	poll := o.Poll
	if poll <= 0 {
		poll = time.Second
	}
	for {
		js, err := from.DequeueBatch(ctx, nil, batch)
		if err != nil {
			if o.Follow && ctx.Err() != nil {
				return d, nil
			}
			return d, err
		}
		if len(js) > 0 {
			if err := move(ctx, from, to, js); err != nil {
				return d, err
			}
			d.Moved += len(js)
			continue
		}
		if !o.Follow {
			cs, err := insp.Counts(ctx)
			if err != nil {
				return d, err
			}
			var running, pending int
			d.Dead = 0
			for _, c := range cs {
				switch c.State {
				case queue.StateRunning:
					running += c.N
				case queue.StatePending:
					pending += c.N
				case queue.StateDead:
					d.Dead += c.N
				}
			}
			if running == 0 && pending == 0 {
				d.Copied, err = copyScheduled(ctx, insp, to)
				return d, err
			}
			if running > 0 {
				// A worker that died holding jobs never acks them; once
				// their leases run out recovery makes them runnable, and
				// then they are moved.
				if _, err := insp.RecoverExpired(ctx); err != nil {
					return d, err
				}
			}
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			if o.Follow {
				return d, nil
			}
			return d, ctx.Err()
		case <-t.C:
		}
	}
}

// move enqueues claimed jobs on to, then acks them done on from.
func move(ctx context.Context, from, to queue.Queue, js []*queue.Job) error {
	copies := make([]queue.Job, len(js))
	for i, j := range js {
		c := *j
		c.RunAt, c.Delay, c.Attempt = time.Time{}, 0, 0
		copies[i] = c
	}
	// Acks land even when ctx ends: a job left claimed waits until its
	// lease runs out and it is recovered.
	actx := context.WithoutCancel(ctx)
	if err := to.EnqueueBatch(ctx, copies); err != nil {
		// Hand them back unmoved, pending on from for the next drain.
		return errors.Join(fmt.Errorf("migrate: drain: enqueue on %s: %w", to.Provider(), err),
			from.AckBatch(actx, acksOf(js, queue.Released)))
	}
	if err := from.AckBatch(actx, acksOf(js, queue.Success)); err != nil {
		// They are on to already; once their leases run out on from, the
		// next drain moves them again, a no-op on to.
		return fmt.Errorf("migrate: drain: ack on %s: %w", from.Provider(), err)
	}
	return nil
}

func acksOf(js []*queue.Job, st queue.Status) []queue.Ack {
	acks := make([]queue.Ack, len(js))
	for i, j := range js {
		acks[i] = queue.Ack{Job: j, Result: queue.Result{Status: st}}
	}
	return acks
}

// copyScheduled enqueues every scheduled job of the old queue on to,
// keeping its run time, and returns how many it copied.
func copyScheduled(ctx context.Context, insp queue.Inspector, to queue.Queue) (int, error) {
	n, cursor := 0, ""
	for {
		page, err := insp.List(ctx, queue.ListQuery{State: queue.StateScheduled, Before: cursor, Limit: 100})
		if err != nil {
			return n, err
		}
		if len(page) == 0 {
			return n, nil
		}
		copies := make([]queue.Job, len(page))
		for i, in := range page {
			c := in.Job
			c.Delay, c.Attempt = 0, 0
			copies[i] = c
		}
		if err := to.EnqueueBatch(ctx, copies); err != nil {
			return n, fmt.Errorf("migrate: drain: copy scheduled jobs to %s: %w", to.Provider(), err)
		}
		n += len(page)
		cursor = page[len(page)-1].ID
	}
}
