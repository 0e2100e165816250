package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/murlog/murlog/controls"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/housekeep"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/queue/migrate"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/worker"
)

// jobQueue is what the worker, the owner's queue methods and /metrics
// use: the embedded queue, or a migration Switch over it and a second one.
type jobQueue interface {
	queue.Queue
	queue.Inspector
}

// wireJobs wires the queue and the worker's handlers of a site: the
// registry of handlers and their policies, the embedded SQLite queue
// (in.queue, which transactional enqueue writes) retrying by those
// policies, and, while moving to another provider (queue_dual_write), the
// Switch the workers read through, with the run-once ledger.
func (a *App) wireJobs(ctx context.Context, in *installed) error {
	in.registry = worker.NewRegistry()
	in.queue = in.queueOf(in.eng)
	in.jobs = in.queue
	in.wake = in.eng.queue.Woken()
	if dsn := in.cfg.QueueDualWrite; dsn != "" {
		sec, err := a.openQueueDSN(ctx, dsn)
		if err != nil {
			return fmt.Errorf("open the secondary queue %s: %w", dsn, err)
		}
		in.secondary = sec
		q, err := migrate.FromConfig(in.queue, in.queueOf(sec), !in.cfg.QueueSingleWrite, in.cfg.QueueReadFrom)
		if err != nil {
			sec.close()
			in.secondary = nil
			return err
		}
		sw := q.(*migrate.Switch)
		in.jobs, in.wake, in.ledger = sw, sw.Woken(), in.eng.ledger
	}
	worker.RegisterMaintenance(in.registry, in.jobs, in.eng.vacuum, a.opts.Now)
	post.RegisterJobs(in.registry, in.eng.store)
	social.RegisterJobs(in.registry, in.eng.store)
	inbox.RegisterJobs(in.registry, in.eng.store)
	controls.RegisterJobs(in.registry, in.eng.store)
	a.registerRebuild(in.registry)
	housekeep.Register(in.registry, in.eng.store, a.log, reapers()...)
	a.wireFederationJobs(in)
	return nil
}

// queueOf returns the queue over e's embedded queue engine, retrying by
// the site's registered policies.
func (in *installed) queueOf(e *engine) *queue.Managed {
	return queue.New(e.queue, queue.Options{Policies: in.registry, Lease: time.Duration(in.cfg.JobLease) * time.Second})
}

// relaying reports whether jobs enqueued in the ledger's transactions must
// be carried to the secondary queue: they land in the embedded queue,
// which the workers no longer read once reads switched to the secondary.
func (in *installed) relaying() bool {
	return in.secondary != nil && in.cfg.QueueReadFrom == "secondary"
}

// relay moves jobs from the embedded queue to the secondary: once (for
// `worker --once`), or following until ctx ends (beside a resident worker).
func (a *App) relay(ctx context.Context, in *installed, follow bool) {
	if !in.relaying() {
		return
	}
	d, err := migrate.Drain(ctx, in.queue, in.queue, in.queueOf(in.secondary), migrate.DrainOptions{Follow: follow})
	if err != nil && ctx.Err() == nil {
		a.log.Error("relaying jobs to the secondary queue failed", "err", err)
	}
	if d.Moved+d.Copied > 0 {
		a.log.Info("jobs relayed to the secondary queue", "moved", d.Moved, "copied", d.Copied)
	}
}

// newWorker returns a worker over in's queue. Job events are logged in
// the shape of every log line (time, level, msg) with the queue seed's
// fields as attributes (event, svc, queue.*, job.*, trace_id).
func (a *App) newWorker(in *installed, svc string) *worker.Worker {
	o := worker.Options{
		Queue: in.jobs, Inspector: in.jobs, Registry: in.registry,
		MinConcurrency: in.cfg.WorkerMinConcurrency, MaxConcurrency: in.cfg.WorkerMaxConcurrency,
		Logger: worker.NewJobLogger(a.opts.Stderr, a.level()),
		Wake:   in.wake, Svc: svc,
		// Remote data nobody local interacted with is pruned daily.
		// So are inbox items past their dedupe window.
		// The bookkeeping tables are reaped hourly (reapers).
		Periodic: []func(time.Time) queue.Job{social.DailyPrune, inbox.DailyPrune, housekeep.HourlyJob},
		// The owner's delivery switch holds the jobs that send; unknown
		// controls hold them too (they wait, they are not lost).
		Hold: func(ctx context.Context, topic string) bool {
			if !delivery.Sends(topic) {
				return false
			}
			st, err := in.controls.Current(ctx)
			return err != nil || !st.Switches.Delivery
		},
		OnConcurrency: func(n int) {
			// Best effort: a gauge must never hold up jobs.
			in.eng.stats.SetGauge(dbstat.With(context.Background(), dbstat.Worker), "worker_concurrency", float64(n))
		},
	}
	if in.ledger != nil {
		o.Ledger = in.ledger
	}
	if a.opts.Now != nil {
		o.Clock = jobClock(a.opts.Now) // leases are stamped by the store's clock
	}
	return worker.New(o)
}

// jobClock is the worker's clock over the app's time; waits are real.
type jobClock func() time.Time

func (c jobClock) Now() time.Time                       { return c() }
func (jobClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

func (a *App) level() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(a.Config().LogLevel)); err != nil {
		return slog.LevelInfo
	}
	return l
}

// LockFile is the worker lock inside data_dir: at most one `worker --once`
// runs at a time, and a resident worker holding it makes them yield.
const LockFile = "worker.lock"

// ErrLocked means another worker holds the lock.
var ErrLocked = errors.New("another murlog worker is running")

// lockWorker takes a non-blocking exclusive flock on data_dir/worker.lock.
// The lock dies with the process, so a killed worker never leaves it held.
func lockWorker(dataDir string) (*os.File, error) {
	p := filepath.Join(dataDir, LockFile)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	// Run as root (a crontab line without a user), a new lock file would
	// belong to root and every later worker of the site's own user would
	// fail to open it. Hand it to the data directory's owner, as SQLite
	// does with its -wal and -shm files.
	if err := giveTo(p, dataDir); err != nil {
		f.Close()
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return f, nil
}

// RunWorker is `murlog worker`: resident, or with once a batch loop of at
// most worker.OnceLifetime that exits 0 at once when another worker holds
// the lock (cron and CGI may start one every minute).
func RunWorker(ctx context.Context, o Options, once bool) (int, error) {
	a, err := New(ctx, o)
	if err != nil {
		return 0, err
	}
	defer a.Close()
	in := a.inst.Load()
	if in == nil {
		return 0, fmt.Errorf("no %s at %s: set murlog up first", "murlog.ini", a.Config().Path)
	}
	lock, err := lockWorker(in.cfg.DataDir)
	switch {
	case errors.Is(err, ErrLocked) && once:
		a.log.Info("another worker holds the lock; exiting", "lock", filepath.Join(in.cfg.DataDir, LockFile))
		return 0, nil
	case errors.Is(err, ErrLocked):
		a.log.Warn("another worker holds the lock; running anyway (claims never overlap)")
	case err != nil:
		return 0, fmt.Errorf("worker lock: %w", err)
	default:
		defer lock.Close()
	}
	if once {
		return a.runOnce(ctx, in, lock)
	}
	go a.relay(ctx, in, true)
	return 0, a.newWorker(in, "murlog-worker").Run(ctx)
}

// runOnce is `murlog worker --once` holding lock. When its batches find
// nothing it lets the lock go and looks once more: a job enqueued while it
// was finishing would otherwise wait for the next request or cron run,
// since the worker spawned for it yielded to this one's lock.
func (a *App) runOnce(ctx context.Context, in *installed, lock *os.File) (int, error) {
	start := time.Now()
	w := a.newWorker(in, "murlog-worker-once")
	total := 0
	for {
		a.relay(ctx, in, false)
		n, err := w.RunOnce(ctx, worker.OnceLifetime-time.Since(start))
		total += n
		if err != nil || ctx.Err() != nil || time.Since(start) >= worker.OnceLifetime {
			lock.Close()
			return total, err
		}
		lock.Close()
		more, err := a.anyRunnable(ctx, in)
		if err != nil || !more {
			return total, err
		}
		if lock, err = lockWorker(in.cfg.DataDir); err != nil {
			return total, nil // another worker took over
		}
	}
}

// anyRunnable reports whether a job is runnable in either queue.
func (a *App) anyRunnable(ctx context.Context, in *installed) (bool, error) {
	ok, err := in.eng.runnable(ctx)
	if err == nil && !ok && in.secondary != nil {
		ok, err = in.secondary.runnable(ctx)
	}
	return ok, err
}

// runWorkerInServe runs the in-process worker of `murlog serve`. Before
// setup step 1 there is no database yet; it waits for one.
func (a *App) runWorkerInServe(ctx context.Context) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for a.inst.Load() == nil {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
	in := a.inst.Load()
	go a.holdLock(ctx, in)
	go a.relay(ctx, in, true)
	return a.newWorker(in, "murlog-serve").Run(ctx)
}

// holdLock takes the worker lock for serve's resident worker, so cron and
// CGI workers yield to it, and keeps trying while a `worker --once` holds
// it. Running meanwhile is safe (claims never overlap), only not alone.
func (a *App) holdLock(ctx context.Context, in *installed) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	warned := false
	for {
		lock, err := lockWorker(in.cfg.DataDir)
		if err == nil {
			<-ctx.Done()
			lock.Close()
			return
		}
		if !warned {
			a.log.Warn("another worker holds the worker lock; serve's worker runs beside it and retries the lock every minute", "err", err)
			warned = true
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// spawnWorker starts `murlog worker --once` detached, after a CGI response
// was written, when jobs are waiting. The child gets its own session
// (Apache kills the CGI's process group when the request ends), /dev/null
// for stdin and stdout, its log appended to data_dir/worker.log, and a
// clean environment: nothing of the request (HTTP_*, GATEWAY_INTERFACE…)
// reaches it.
func (a *App) spawnWorker(ctx context.Context) error {
	in := a.inst.Load()
	if in == nil {
		return nil
	}
	ok, err := a.anyRunnable(ctx, in)
	if err != nil || !ok {
		return err
	}
	// A worker already running (it holds the lock) will get to the jobs;
	// starting another only for it to yield would cost a process per
	// request on a busy site.
	lock, err := lockWorker(in.cfg.DataDir)
	if errors.Is(err, ErrLocked) {
		return nil
	}
	if err != nil {
		return err
	}
	lock.Close()
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	logf, err := openWorkerLog(in.cfg.DataDir)
	if err != nil {
		logf = null
	} else {
		defer logf.Close()
	}
	cmd := exec.Command(exe, "worker", "--once", "--config", in.cfg.Path)
	cmd.Dir = filepath.Dir(in.cfg.Path)
	cmd.Env = workerEnv(os.Environ())
	if rt := a.running.Load(); rt != nil && rt.artifactStore != nil && in.cfg.ArtifactDir == "" {
		// The worker renders into the folder Apache serves, which it could
		// not find by itself (it is no CGI request).
		cmd.Env = append(cmd.Env, "MURLOG_ARTIFACT_DIR="+a.artifactDir(rt.cfg))
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	a.log.Debug("worker spawned", "pid", cmd.Process.Pid)
	return cmd.Process.Release()
}

// maxWorkerLog bounds data_dir/worker.log: past it the log starts over.
const maxWorkerLog = 1 << 20

func openWorkerLog(dataDir string) (*os.File, error) {
	p := filepath.Join(dataDir, "worker.log")
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if st, err := os.Stat(p); err == nil && st.Size() > maxWorkerLog {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(p, flags, 0o600)
	if err == nil {
		giveTo(p, dataDir)
	}
	return f, err
}

// workerEnv keeps what a worker needs from the CGI environment: the path,
// locale and time zone, and murlog's own MURLOG_* settings.
func workerEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == "HOME" || k == "TZ" || k == "LANG" || strings.HasPrefix(k, "LC_") || strings.HasPrefix(k, "MURLOG_") {
			out = append(out, kv)
		}
	}
	return out
}
