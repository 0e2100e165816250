package worker

import (
	"context"
	"log/slog"
	"time"

	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/queue"
)

// Concurrency defaults (seed: アダプティブ並列度). Deliveries wait on remote
// servers, so running many at once is nearly free.
const (
	DefaultMinConcurrency = 8
	DefaultMaxConcurrency = 32
	midConcurrency        = 20
	reevaluateEvery       = 10 // jobs started between looks at the queue depth
	ackBatch              = 16 // acks are flushed in one transaction at this many…
	ackDelay              = 20 * time.Millisecond
	// …or this long after the first unflushed one.
	DefaultShutdownGrace = 10 * time.Second
	maintainEvery        = time.Minute
)

// Concurrency returns how many jobs to run at once for a queue depth:
// under 100 runnable → lo, under 500 → 20 (clamped to [lo, hi]), else hi.
func Concurrency(runnable, lo, hi int) int {
	switch {
	case runnable < 100:
		return lo
	case runnable < 500:
		return min(max(midConcurrency, lo), hi)
	default:
		return hi
	}
}

// Ledger remembers jobs run to completion, so a job that exists in two
// queues during a provider migration (dual write, then a read switch)
// runs once. Optional: a single queue never hands out an id twice.
type Ledger interface {
	Seen(ctx context.Context, ids []string) (map[string]bool, error)
	Done(ctx context.Context, ids []string) error
}

// Options configure a Worker.
type Options struct {
	// Queue is built with Registry as its policies (queue.Options), so
	// the queue settles each result as the worker logs it.
	Queue     queue.Queue
	Inspector queue.Inspector // queue depth and maintenance; may be nil
	Registry  *Registry
	Ledger    Ledger // nil unless migrating between queue providers

	MinConcurrency, MaxConcurrency int
	// Logger receives one line per job event (see NewJobLogger).
	Logger *slog.Logger
	// Wake signals that jobs were enqueued in this process; the resident
	// loop then claims at once instead of waiting for Poll.
	Wake <-chan struct{}
	// Poll is how often an idle worker looks for work it was not woken
	// for: the resident loop, and a --once worker awaiting leases; 1 s
	// when 0.
	Poll time.Duration
	// ShutdownGrace is how long running jobs may finish after the
	// context ends before they are cancelled.
	ShutdownGrace time.Duration
	// OnConcurrency reports the current concurrency (a metrics gauge).
	OnConcurrency func(int)
	// Hold, when set, names topics not to claim now (the owner's delivery
	// switch): their jobs stay in the queue, their attempts unspent, and
	// run once Hold lets them go. Asked before every claim.
	Hold func(ctx context.Context, topic string) bool
	// Svc names the process in job logs.
	Svc string
	// Periodic are the jobs other packages want run regularly (the
	// pruning of remote data, say): Maintain enqueues each one's job for
	// the time it runs. Each must give the same id for the same period,
	// so that any number of workers schedule it once per period.
	Periodic []func(time.Time) queue.Job
	// Clock times lease renewals and tells when others' leases ran out;
	// real time when nil. It must agree with the queue's clock (the
	// leases are stamped by it).
	Clock Clock
}

// Worker runs jobs from a queue.
type Worker struct {
	o Options
}

// New returns a Worker, filling defaults.
func New(o Options) *Worker {
	if o.MinConcurrency <= 0 {
		o.MinConcurrency = DefaultMinConcurrency
	}
	if o.MaxConcurrency <= 0 {
		o.MaxConcurrency = DefaultMaxConcurrency
	}
	if o.MaxConcurrency < o.MinConcurrency {
		o.MaxConcurrency = o.MinConcurrency
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = DefaultShutdownGrace
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Svc == "" {
		o.Svc = "murlog-worker"
	}
	if o.Registry == nil {
		o.Registry = NewRegistry()
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	return &Worker{o: o}
}

// RunBatch claims jobs claimSize at a time and runs them, for at most
// maxDur of claiming, until nothing is runnable. It returns how many jobs
// it finished. Jobs started before the deadline run to completion (each
// bounded by its topic's timeout).
func (w *Worker) RunBatch(ctx context.Context, claimSize int, maxDur time.Duration) (int, error) {
	r := w.newRun(ctx, claimSize, false)
	r.deadline = time.Now().Add(maxDur)
	return r.loop()
}

// OnceLifetime is the hard limit of `murlog worker --once` (seed: 5 分).
// Shared hosts watch for long-lived processes; delivery batches, which
// mostly wait on the network, rarely come near it.
const OnceLifetime = 5 * time.Minute

// RunOnce is `murlog worker --once`: maintenance, then RunBatch(20 jobs,
// 30 s) in a loop until a batch finds nothing or lifetime has passed.
// When a batch finds nothing while jobs are running that it does not hold
// — under the worker lock, most likely a killed worker's — it waits for
// the first of their leases to run out (when that is within lifetime),
// recovers them and goes on: a worker spawned after a crash finishes the
// crashed one's jobs rather than leaving them to the next visit.
func (w *Worker) RunOnce(ctx context.Context, lifetime time.Duration) (int, error) {
	start := time.Now()
	if err := w.Maintain(ctx); err != nil {
		w.o.Logger.Warn("worker.maintenance_failed", "svc", w.o.Svc, "err", err.Error())
	}
	total := 0
	for time.Since(start) < lifetime {
		remaining := lifetime - time.Since(start)
		n, err := w.RunBatch(ctx, 20, min(30*time.Second, remaining))
		total += n
		if err != nil || ctx.Err() != nil {
			return total, err
		}
		if n == 0 {
			more, err := w.awaitLeases(ctx, start.Add(lifetime))
			if err != nil || !more {
				return total, err
			}
		}
	}
	return total, nil
}

// Maintain recovers jobs whose leases ran out (their worker died) and
// schedules the hourly clean-up (an idempotent job id per hour, so any
// number of workers schedule it once).
func (w *Worker) Maintain(ctx context.Context) error {
	ctx = dbstat.With(ctx, dbstat.Worker)
	if w.o.Inspector == nil {
		return nil
	}
	if _, err := w.recoverExpired(ctx); err != nil {
		return err
	}
	now := time.Now()
	jobs := []queue.Job{CleanupJob(now)}
	for _, p := range w.o.Periodic {
		jobs = append(jobs, p(now))
	}
	return w.o.Queue.EnqueueBatch(ctx, jobs)
}

// outcome is a finished job.
type outcome struct {
	job *queue.Job
	res queue.Result
}

// run is one RunBatch or Run.
type run struct {
	w         *Worker
	ctx       context.Context // claiming stops when it ends
	jobCtx    context.Context // parent of running jobs; cancelled after the grace period
	cancel    context.CancelFunc
	claimSize int
	deadline  time.Time
	resident  bool
	claimErr  string // the last claim failure logged, until a claim works

	results  chan outcome
	ready    []*queue.Job // claimed, waiting for a free slot
	inflight int
	running  map[string]int // running jobs per topic, for Policy.Concurrency
	conc     int
	sinceEv  int
	acks     []queue.Ack
	done     []string // ids to record in the ledger before acking
	finished int
	lastMnt  time.Time

	// held are the claims this run holds — ready, running, or finished
	// with the ack not yet flushed — whose leases it renews; a running
	// job's entry cancels its handler when the lease is lost.
	held      map[*queue.Job]context.CancelCauseFunc
	lost      map[*queue.Job]bool // running jobs whose lease was lost: their results are not acked
	renewEach time.Duration
	renewAt   time.Time // on the worker's clock
	renewC    <-chan time.Time
}

func (w *Worker) newRun(ctx context.Context, claimSize int, resident bool) *run {
	// Claims, acks and every job's statements count as the worker's,
	// whoever started it (a CGI request's spawned batch, serve's loop).
	ctx = dbstat.With(ctx, dbstat.Worker)
	jobCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &run{w: w, ctx: ctx, jobCtx: jobCtx, cancel: cancel, claimSize: claimSize, resident: resident,
		results: make(chan outcome, DefaultMaxConcurrency*2), lastMnt: time.Now(), running: map[string]int{},
		held: map[*queue.Job]context.CancelCauseFunc{}, lost: map[*queue.Job]bool{},
		renewEach: queue.RenewEvery(w.o.Queue.Lease())}
	r.scheduleRenewal()
	return r
}

func (r *run) claiming() bool {
	if r.ctx.Err() != nil {
		return false
	}
	return r.deadline.IsZero() || time.Now().Before(r.deadline)
}

// reevaluate sets the concurrency from the queue depth.
func (r *run) reevaluate() {
	o := r.w.o
	c := o.MinConcurrency
	if o.Inspector != nil {
		if n, err := o.Inspector.Runnable(r.ctx); err == nil {
			c = Concurrency(n+r.inflight, o.MinConcurrency, o.MaxConcurrency)
		}
	}
	if c != r.conc {
		r.conc = c
		if o.OnConcurrency != nil {
			o.OnConcurrency(c)
		}
	}
	r.sinceEv = 0
}

func (r *run) loop() (int, error) {
	defer r.cancel()
	defer func() {
		if r.w.o.OnConcurrency != nil {
			r.w.o.OnConcurrency(0)
		}
	}()
	r.reevaluate()
	var grace <-chan time.Time
	stopping := false
	var ackTimer, pollTimer *time.Timer
	defer func() {
		if pollTimer != nil {
			pollTimer.Stop()
		}
	}()
	for {
		idle := false
		if r.ctx.Err() != nil && len(r.ready) > 0 {
			// Shutting down: claimed jobs not started yet go back unrun.
			for _, j := range r.ready {
				r.acks = append(r.acks, queue.Ack{Job: j, Result: queue.Result{Status: queue.Released}})
			}
			r.ready = nil
		}
		for r.inflight < r.conc {
			i := r.next()
			if i < 0 {
				// Nothing ready, or every ready job's topic is at its
				// cap: claim more, up to a few batches waiting.
				if !r.claiming() || len(r.ready) >= maxWaiting*r.claimSize {
					break
				}
				// Claim a whole batch even when fewer slots are free: one
				// claim transaction then feeds several rounds of short jobs.
				// The rest wait here, claimed, for a free slot.
				got, err := r.claim(r.claimSize)
				if err != nil {
					r.claimFailed(err)
					idle = true
					break
				}
				r.claimErr = ""
				if got == 0 {
					idle = true
					break
				}
				continue
			}
			j := r.ready[i]
			r.ready = append(r.ready[:i], r.ready[i+1:]...)
			r.running[j.Topic]++
			r.inflight++
			r.sinceEv++
			jctx, cancel := context.WithCancelCause(r.jobCtx)
			r.held[j] = cancel
			go r.execute(jctx, cancel, j)
		}
		if r.inflight == 0 {
			r.flushOrLog()
			if !r.resident && (idle || !r.claiming()) {
				return r.finished, nil
			}
			if r.ctx.Err() != nil {
				return r.finished, nil
			}
			if r.resident {
				r.maintain()
				r.renewDue()
				r.wait()
				r.reevaluate()
				continue
			}
		}
		if ackTimer == nil && len(r.acks) > 0 {
			ackTimer = time.NewTimer(ackDelay)
		}
		var ackC <-chan time.Time
		if ackTimer != nil {
			ackC = ackTimer.C
		}
		var stop <-chan struct{}
		if !stopping {
			stop = r.ctx.Done()
		}
		// Slots free while jobs run: a commit's wake-up, or the poll (jobs
		// another process enqueued), claims into them now — not when a
		// running job ends, which for a long one (a rebuild's seconds)
		// would hold up a follow or an inbox activity as long.
		var wake <-chan struct{}
		var poll <-chan time.Time
		if !stopping && r.inflight < r.conc && r.claiming() {
			wake = r.w.o.Wake
			if pollTimer == nil {
				pollTimer = time.NewTimer(r.w.o.Poll)
			} else {
				pollTimer.Reset(r.w.o.Poll)
			}
			poll = pollTimer.C
		}
		select {
		case <-wake:
		case <-poll:
		case o := <-r.results:
			r.inflight--
			r.running[o.job.Topic]--
			r.record(o)
		case <-ackC:
			ackTimer = nil
			r.flushOrLog()
		case <-r.renewC:
			r.renew()
		case <-stop:
			// Stop claiming; give running jobs the grace period.
			stopping = true
			grace = time.After(r.w.o.ShutdownGrace)
		case <-grace:
			r.cancel() // running jobs see their context end and fail (retried later)
			grace = nil
		}
		if len(r.acks) >= ackBatch {
			if ackTimer != nil {
				ackTimer.Stop()
				ackTimer = nil
			}
			r.flushOrLog()
		}
		if r.sinceEv >= reevaluateEvery {
			r.reevaluate()
		}
	}
}

// maxWaiting bounds the claimed jobs held back by their topics' caps, in
// claim batches: enough to find jobs of other topics behind a backlog of
// capped ones, few enough that none waits long after its claim.
const maxWaiting = 4

// next returns the index of the first ready job whose topic is under its
// Policy.Concurrency cap, or -1.
func (r *run) next() int {
	for i, j := range r.ready {
		if c := r.w.o.Registry.Policy(j.Topic).Concurrency; c <= 0 || r.running[j.Topic] < c {
			return i
		}
	}
	return -1
}

// wait blocks the idle resident loop until jobs may be runnable.
func (r *run) wait() {
	t := time.NewTimer(r.w.o.Poll)
	defer t.Stop()
	select {
	case <-r.ctx.Done():
	case <-r.w.o.Wake:
	case <-t.C:
	}
}

func (r *run) maintain() {
	if time.Since(r.lastMnt) < maintainEvery {
		return
	}
	r.lastMnt = time.Now()
	if err := r.w.Maintain(r.ctx); err != nil && r.ctx.Err() == nil {
		r.w.o.Logger.Warn("worker.maintenance_failed", "svc", r.w.o.Svc, "err", err.Error())
	}
}

// claimFailed logs a failed claim, once while the same failure repeats:
// a full disk or a lost database fails every poll, and a line a second
// would bury the rest of the log (the store says why once itself).
func (r *run) claimFailed(err error) {
	if msg := err.Error(); msg != r.claimErr {
		r.claimErr = msg
		r.w.o.Logger.Error("worker.claim_failed", "svc", r.w.o.Svc, "queue.provider", r.w.o.Queue.Provider(), "err", msg)
	}
}

// claim claims up to n jobs into the ready list; it returns how many it
// claimed (jobs already run according to the ledger are acked at once
// instead of queued).
func (r *run) claim(n int) (int, error) {
	topics, any := r.claimable()
	if !any {
		return 0, nil
	}
	js, err := r.w.o.Queue.DequeueBatch(r.ctx, topics, n)
	if err != nil || len(js) == 0 {
		return 0, err
	}
	var seen map[string]bool
	if r.w.o.Ledger != nil {
		ids := make([]string, len(js))
		for i, j := range js {
			ids[i] = j.ID
		}
		if seen, err = r.w.o.Ledger.Seen(r.ctx, ids); err != nil {
			// Without the ledger a duplicate could run twice: hand the
			// jobs back rather than guess.
			for _, j := range js {
				r.acks = append(r.acks, queue.Ack{Job: j, Result: queue.Result{Status: queue.Released}})
			}
			return 0, err
		}
	}
	for _, j := range js {
		r.held[j] = nil // renewed until its ack is flushed
		if seen[j.ID] {
			r.acks = append(r.acks, queue.Ack{Job: j, Result: queue.Result{Status: queue.Success}})
			r.logJob(j, "job.skipped", 0, nil, slog.String("reason", "already run (seen in another queue)"))
			continue
		}
		r.ready = append(r.ready, j)
	}
	return len(js), nil
}
