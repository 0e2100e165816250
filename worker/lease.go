package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/murlog/murlog/queue"
)

// Leases, the worker's side: every claim a run holds is renewed every
// half lease (queue.RenewEvery), so a job keeps its worker however long
// its handler runs; a claim the queue says is lost is given up without an
// ack; and a --once worker waits for a dead worker's leases to run out so
// that it can run that worker's jobs. The lease itself belongs to the
// queue (queue.Queue.Renew, checked by queue/queuetest).

// Clock is the time the worker renews leases by.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// awaitLeases waits, between batches of a --once worker, for the running
// jobs it does not hold: when the first of their leases runs out (before
// deadline) it recovers them and reports true, so the worker runs them.
// It gives up, reporting false, when no job is running any more or the
// first lease moved on (their worker is alive: it renewed or finished
// them), so the wait is at most one lease; and it reports true at once
// when a job becomes runnable meanwhile (this worker holds the lock, so a
// visit does not start another). It looks every Poll.
func (w *Worker) awaitLeases(ctx context.Context, deadline time.Time) (bool, error) {
	if w.o.Inspector == nil {
		return false, nil
	}
	var first time.Time
	for logged := false; ; logged = true {
		infos, err := w.o.Inspector.List(ctx, queue.ListQuery{State: queue.StateRunning, Limit: 100})
		if err != nil {
			return false, err
		}
		var earliest time.Time
		for _, in := range infos {
			if in.LeaseUntil != nil && (earliest.IsZero() || in.LeaseUntil.Before(earliest)) {
				earliest = *in.LeaseUntil
			}
		}
		switch {
		case earliest.IsZero():
			return false, nil // nothing running (any more)
		case first.IsZero():
			first = earliest
		case earliest.After(first):
			return false, nil // renewed or finished: their worker is alive
		}
		now := w.o.Clock.Now()
		if earliest.Sub(now) > time.Until(deadline) {
			return false, nil
		}
		if now.After(earliest) { // a lease runs out after its last instant
			if n, err := w.recoverExpired(ctx); err != nil || n > 0 {
				return n > 0, err
			}
		}
		if n, err := w.o.Inspector.Runnable(ctx); err != nil || n > 0 {
			return n > 0, err
		}
		if !logged {
			w.o.Logger.Info("worker.awaiting_leases", "svc", w.o.Svc, "queue.provider", w.o.Queue.Provider(),
				"running", len(infos), "wait_ms", max(earliest.Sub(now), 0).Milliseconds())
		}
		t := time.NewTimer(w.o.Poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, nil
		case <-t.C:
		}
	}
}

// recoverExpired makes the jobs whose leases ran out runnable again.
func (w *Worker) recoverExpired(ctx context.Context) (int, error) {
	if w.o.Inspector == nil {
		return 0, nil
	}
	n, err := w.o.Inspector.RecoverExpired(ctx)
	if n > 0 {
		w.o.Logger.Info("job.recovered", "svc", w.o.Svc, "queue.provider", w.o.Queue.Provider(), "count", n)
	}
	return n, err
}

// Run is the resident loop: it claims whenever slots are free and jobs are
// runnable, waking at once when jobs are enqueued in this process, and
// runs maintenance every minute. When ctx ends it stops claiming, lets
// running jobs finish within ShutdownGrace, cancels the rest, and returns
// with no job left running.
func (w *Worker) Run(ctx context.Context) error {
	r := w.newRun(ctx, DefaultMaxConcurrency, true)
	_, err := r.loop()
	return err
}

// errLeaseLost ends a handler whose job's lease ran out and may be run
// by another worker.
var errLeaseLost = errors.New("the job's lease was lost: another worker may run it")

// scheduleRenewal sets the time of the next renewal.
func (r *run) scheduleRenewal() {
	r.renewAt = r.w.o.Clock.Now().Add(r.renewEach)
	r.renewC = r.w.o.Clock.After(r.renewEach)
}

// renewDue renews when its time has come (the idle resident loop looks
// at every wake-up rather than waiting on the timer).
func (r *run) renewDue() {
	if !r.w.o.Clock.Now().Before(r.renewAt) {
		r.renew()
	}
}

// renew extends the leases of every claim the run holds, gives up the
// ones the queue says are lost (another worker may have them now: the
// handler is cancelled and its result will not be acked), and recovers
// other workers' jobs whose leases ran out. Renewals go on during the
// shutdown grace, while running jobs finish.
func (r *run) renew() {
	r.scheduleRenewal()
	if len(r.held) > 0 {
		js := make([]*queue.Job, 0, len(r.held))
		for j := range r.held {
			js = append(js, j)
		}
		held, err := r.w.o.Queue.Renew(context.WithoutCancel(r.ctx), js)
		if err != nil {
			// Half a lease is left: the next renewal may still make it.
			r.w.o.Logger.Error("worker.renew_failed", "svc", r.w.o.Svc, "queue.provider", r.w.o.Queue.Provider(),
				"jobs", len(js), "err", err.Error())
		}
		for i, j := range js {
			if err == nil && !held[i] {
				r.lose(j)
			}
		}
	}
	if r.ctx.Err() == nil {
		if _, err := r.w.recoverExpired(r.ctx); err != nil && r.ctx.Err() == nil {
			r.w.o.Logger.Warn("worker.recovery_failed", "svc", r.w.o.Svc, "err", err.Error())
		}
	}
}

// lose gives up a claim whose lease was lost: a job not started leaves
// the ready list, a running one is cancelled and its result dropped, and
// a finished one's pending ack is dropped. Acking would be refused by the
// fence anyway; not sending it keeps the run from counting or logging it
// as its own.
func (r *run) lose(j *queue.Job) {
	cancel := r.held[j]
	delete(r.held, j)
	r.logJobLevel(slog.LevelWarn, j, "job.lost", 0)
	if cancel != nil {
		r.lost[j] = true
		cancel(errLeaseLost)
		return
	}
	for i, x := range r.ready {
		if x == j {
			r.ready = append(r.ready[:i], r.ready[i+1:]...)
			return
		}
	}
	for i, a := range r.acks {
		if a.Job == j {
			r.acks = append(r.acks[:i], r.acks[i+1:]...)
			break
		}
	}
	for i, id := range r.done {
		if id == j.ID {
			r.done = append(r.done[:i], r.done[i+1:]...)
			break
		}
	}
}
