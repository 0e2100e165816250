package worker

// What becomes of one claimed job: its run in a goroutine of its own,
// its ack, its log line, and the trace it carries.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/trace"
)

// execute runs one job in its own goroutine under jctx, which the loop
// cancels when the job's lease is lost. A panic is caught and fails the
// job with the panic text; the loop goes on.
func (r *run) execute(jctx context.Context, jcancel context.CancelCauseFunc, j *queue.Job) {
	defer jcancel(nil)
	start := time.Now()
	res := queue.Result{}
	func() {
		defer func() {
			if p := recover(); p != nil {
				res = queue.Result{Status: queue.Retry, Err: fmt.Errorf("panic: %v", p)}
				r.w.o.Logger.Error("job.panic", "svc", r.w.o.Svc, "queue.topic", j.Topic, "job.id", j.ID,
					"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			}
		}()
		h, ok := r.w.o.Registry.lookup(j.Topic)
		if !ok {
			res = queue.Result{Status: queue.Dead, Err: fmt.Errorf("no handler is registered for topic %q", j.Topic)}
			return
		}
		pol := h.pol
		ctx, cancel := context.WithTimeout(jobContext(jctx, j), pol.Timeout)
		defer cancel()
		err := h.fn(ctx, j)
		switch {
		case err == nil:
			res = queue.Result{Status: queue.Success}
		case queue.IsPermanent(err):
			res = queue.Result{Status: queue.Dead, Err: err}
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil && r.jobCtx.Err() == nil:
			res = queue.Result{Status: queue.Retry, Err: fmt.Errorf("timed out after %v: %w", pol.Timeout, err)}
		default:
			res = queue.Result{Status: queue.Retry, Err: err}
		}
	}()
	res.Duration = time.Since(start)
	if res.Status != queue.Success && r.jobCtx.Err() != nil {
		// Interrupted by shutdown, not failed: hand it back unrun.
		res = queue.Result{Status: queue.Released, Err: res.Err, Duration: res.Duration}
	}
	r.results <- outcome{job: j, res: res}
}

// record queues the ack for a finished job and logs it. A job whose
// lease was lost while it ran is not acked: another worker may be running
// it, and its outcome is that worker's to record.
func (r *run) record(o outcome) {
	j, res := o.job, o.res
	if r.lost[j] {
		delete(r.lost, j)
		return
	}
	r.held[j] = nil // its handler is done; renewed until the ack lands
	r.acks = append(r.acks, queue.Ack{Job: j, Result: res})
	if res.Status == queue.Success {
		r.done = append(r.done, j.ID)
	}
	r.finished++
	event := "job.completed"
	// The queue decides by the same rule when it settles the ack.
	d := queue.Decide(j, res, r.w.o.Registry.Policy(j.Topic))
	status := d.Status
	level := slog.LevelInfo
	switch status {
	case queue.Released:
		event, level = "job.released", slog.LevelWarn
	case queue.Retry:
		event, level = "job.retry", slog.LevelWarn
	case queue.Dead:
		event, level = "job.dead", slog.LevelError
	}
	var extra []slog.Attr
	if res.Err != nil {
		extra = append(extra, slog.String("error", res.Err.Error()))
	}
	if status == queue.Retry {
		extra = append(extra, slog.Duration("retry_in", d.Delay))
	}
	r.logJobLevel(level, j, event, res.Duration, extra...)
}

// flushOrLog flushes and logs a failure. A failed flush never stops the
// worker: the jobs it could not ack stay running until their leases run
// out and recovery hands them out again (at least once, never lost), so a
// database that is busy for a moment costs a retry, not the worker.
func (r *run) flushOrLog() {
	if err := r.flush(); err != nil {
		r.w.o.Logger.Error("worker.ack_failed", "svc", r.w.o.Svc, "queue.provider", r.w.o.Queue.Provider(), "err", err.Error())
	}
}

// flush records completed ids in the ledger, then acks everything pending.
func (r *run) flush() error {
	if len(r.acks) == 0 {
		return nil
	}
	ctx := context.WithoutCancel(r.ctx) // acks must land even during shutdown
	// Acked or not, these claims are no longer renewed: a job whose ack
	// failed is recovered once its lease runs out.
	defer func() {
		for _, a := range r.acks {
			delete(r.held, a.Job)
		}
		r.acks, r.done = r.acks[:0], r.done[:0]
	}()
	if r.w.o.Ledger != nil && len(r.done) > 0 {
		if err := r.w.o.Ledger.Done(ctx, r.done); err != nil {
			return fmt.Errorf("record finished jobs: %w", err)
		}
	}
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = r.w.o.Queue.AckBatch(ctx, r.acks); err == nil {
			break
		}
		time.Sleep(time.Duration(attempt+1) * 50 * time.Millisecond)
	}
	// On failure the jobs stay running until their leases run out, and
	// recovery hands them out again: at least once, never lost.
	return err
}

func (r *run) logJob(j *queue.Job, event string, d time.Duration, err error, extra ...slog.Attr) {
	if err != nil {
		extra = append(extra, slog.String("error", err.Error()))
	}
	r.logJobLevel(slog.LevelInfo, j, event, d, extra...)
}

func (r *run) logJobLevel(level slog.Level, j *queue.Job, event string, d time.Duration, extra ...slog.Attr) {
	attrs := append([]slog.Attr{
		slog.String("svc", r.w.o.Svc),
		slog.String("queue.provider", r.w.o.Queue.Provider()),
		slog.String("queue.topic", j.Topic),
		slog.String("job.id", j.ID),
		slog.Int("job.attempt", j.Attempt),
		slog.String("trace_id", traceID(j)),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
	}, extra...)
	r.w.o.Logger.LogAttrs(context.Background(), level, event, attrs...)
}

// jobContext returns ctx carrying the job's trace context, so what the
// handler enqueues (a fan-out's deliveries) continues the job's trace.
func jobContext(ctx context.Context, j *queue.Job) context.Context {
	if tc, ok := trace.Parse(j.Headers[trace.Header]); ok {
		return trace.With(ctx, tc)
	}
	return ctx
}

// traceID returns the trace id of the job's traceparent header, or "".
func traceID(j *queue.Job) string {
	tc, _ := trace.Parse(j.Headers[trace.Header])
	return tc.TraceID
}
