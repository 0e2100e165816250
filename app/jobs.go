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

	"github.com/murlog/murlog/worker"
)

// jobs wires the queue and the worker of a runtime: the embedded SQLite
// queue, the handler registry and the worker options from murlog.ini.
func (a *App) wireJobs(rt *runtime) {
	rt.queue = rt.db.Queue()
	rt.registry = worker.NewRegistry()
	worker.RegisterMaintenance(rt.registry, rt.queue, rt.db, a.opts.Now)
}

// newWorker returns a worker over rt's queue. Job events are logged in
// the queue seed's format (ts, level, event, svc, queue.*, job.*, trace_id).
func (a *App) newWorker(rt *runtime, svc string) *worker.Worker {
	return worker.New(worker.Options{
		Queue: rt.queue, Inspector: rt.queue, Registry: rt.registry,
		MinConcurrency: rt.cfg.WorkerMinConcurrency, MaxConcurrency: rt.cfg.WorkerMaxConcurrency,
		Logger: worker.NewJobLogger(a.opts.Stderr, a.level()),
		Wake:   rt.db.Woken(), Svc: svc,
		OnConcurrency: func(n int) {
			// Best effort: a gauge must never hold up jobs.
			rt.queue.SetGauge(context.Background(), "worker_concurrency", float64(n))
		},
	})
}

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
	f, err := os.OpenFile(filepath.Join(dataDir, LockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
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
	rt := a.rt.Load()
	if rt == nil {
		return 0, fmt.Errorf("no %s at %s: set murlog up first", "murlog.ini", a.Config().Path)
	}
	lock, err := lockWorker(rt.cfg.DataDir)
	switch {
	case errors.Is(err, ErrLocked) && once:
		a.log.Info("another worker holds the lock; exiting", "lock", filepath.Join(rt.cfg.DataDir, LockFile))
		return 0, nil
	case errors.Is(err, ErrLocked):
		a.log.Warn("another worker holds the lock; running anyway (claims never overlap)")
	case err != nil:
		return 0, fmt.Errorf("worker lock: %w", err)
	default:
		defer lock.Close()
	}
	if once {
		return a.newWorker(rt, "murlog-worker-once").RunOnce(ctx, worker.OnceLifetime)
	}
	return 0, a.newWorker(rt, "murlog-worker").Run(ctx)
}

// runWorkerInServe runs the in-process worker of `murlog serve`. Before
// setup step 1 there is no database yet; it waits for one.
func (a *App) runWorkerInServe(ctx context.Context) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for a.rt.Load() == nil {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
	rt := a.rt.Load()
	if lock, err := lockWorker(rt.cfg.DataDir); err == nil {
		defer lock.Close()
	}
	return a.newWorker(rt, "murlog-serve").Run(ctx)
}

// spawnWorker starts `murlog worker --once` detached, after a CGI response
// was written, when jobs are waiting. The child gets its own session
// (Apache kills the CGI's process group when the request ends), /dev/null
// for stdin and stdout, its log appended to data_dir/worker.log, and a
// clean environment: nothing of the request (HTTP_*, GATEWAY_INTERFACE…)
// reaches it.
func (a *App) spawnWorker(ctx context.Context) error {
	rt := a.rt.Load()
	if rt == nil {
		return nil
	}
	if ok, err := rt.queue.HasRunnable(ctx); err != nil || !ok {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	logf, err := openWorkerLog(rt.cfg.DataDir)
	if err != nil {
		logf = null
	} else {
		defer logf.Close()
	}
	cmd := exec.Command(exe, "worker", "--once", "--config", rt.cfg.Path)
	cmd.Dir = filepath.Dir(rt.cfg.Path)
	cmd.Env = workerEnv(os.Environ())
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
	return os.OpenFile(p, flags, 0o600)
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
