// Package app is the composition root: it reads the config, opens the
// store, wires the services and builds the one http.Handler that serve
// mode, CGI mode and the tests all drive. It is the only package that names
// an adapter.
package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/admin"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/mediadir"
	"github.com/murlog/murlog/my"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/persona"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/theme"
	"github.com/murlog/murlog/worker"
)

// Options configure an App. The zero value of each field has a default.
type Options struct {
	// ConfigPath is the murlog.ini path (see config.Locate).
	ConfigPath string
	// Getenv reads MURLOG_* overrides; os.Getenv when nil. Tests pass a
	// map so two apps can run side by side in one process.
	Getenv func(string) string
	// Logger receives JSON log lines; JSON on stderr when nil.
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// KeyPair makes persona key pairs; RSA-2048 when nil.
	KeyPair func() (pub, priv string, err error)
	// OneShot is set under CGI, where the process answers one request:
	// caches that only pay off across requests are skipped.
	OneShot bool
	// Stderr receives the worker's job logs; os.Stderr when nil.
	Stderr io.Writer
	// Resolver looks up the addresses of remote hosts for the outbound
	// client; the system resolver when nil. Federation tests inject one
	// that maps names like alpha.test to loopback addresses, so they need
	// not edit /etc/hosts.
	Resolver outbound.Resolver
	// CavageOnly is a test-only knob: the instance behaves like a peer
	// that speaks only draft-cavage HTTP signatures (most of the
	// fediverse today). It signs every outbound request with cavage and
	// never tries RFC 9421, and its inboxes answer 401 to a request
	// signed with RFC 9421, so the interop test can check that the other
	// side falls back once and remembers. Never set in production.
	CavageOnly bool
}

// App is a running murlog instance.
type App struct {
	opts    Options
	log     *slog.Logger
	admin   *admin.Handler
	handler http.Handler

	// setupToken is what the wizard asks of requests not coming directly
	// from this machine; set by Serve while setup is incomplete.
	setupToken atomic.Pointer[string]

	mu      sync.Mutex                    // serialises configure and completed
	cfg     atomic.Pointer[config.Config] // the current startup config (defaults before step 1)
	inst    atomic.Pointer[installed]     // nil until murlog.ini exists and the DB is open
	running atomic.Pointer[running]       // nil until setup is complete (app/runtime.go)

	themesOnce sync.Once
	themes     *theme.Set // the public blog's themes, built once (see themeSet)

	// inner is the app's routes without the artifact layer and the guard:
	// what renders artifacts.
	inner http.Handler

	// stmts counts this process's database statements by class
	// (db_statements_total); installed.stmtLog adds them to the data
	// directory's totals when the process closes.
	stmts dbstat.Counter
}

// New loads the config and, when murlog.ini exists, opens the database.
// A missing ini is not an error: the app then serves the setup wizard.
func New(ctx context.Context, o Options) (*App, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.KeyPair == nil {
		o.KeyPair = persona.NewKeyPair
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	a := &App{opts: o, log: o.Logger}
	cfg, err := config.Load(o.ConfigPath, o.Getenv)
	if err != nil {
		return nil, err
	}
	a.cfg.Store(cfg)
	if cfg.Exists {
		in, rt, err := a.open(ctx, cfg)
		if err != nil {
			return nil, err
		}
		a.inst.Store(in)
		if rt != nil {
			a.running.Store(rt)
		}
	}
	a.admin = admin.New(admin.Deps{Log: a.log, State: a.adminState, Configure: a.configure, Completed: a.completed,
		SetupToken: a.currentSetupToken, ResetCommand: resetCommand(o.OneShot)})
	a.handler = a.routes()
	return a, nil
}

// Config returns the current startup configuration.
func (a *App) Config() *config.Config { return a.cfg.Load() }

// Statements returns the database statements this process has run, by
// class (what /metrics adds to the other processes' totals).
func (a *App) Statements() map[dbstat.Class]uint64 { return a.stmts.Counts() }

// Drops returns the requests this process's shields dropped, by shield.
func (a *App) Drops() map[dbstat.Shield]uint64 { return a.stmts.DropCounts() }

// Store returns the open store, nil before setup step 1.
func (a *App) Store() store.Store {
	if in := a.inst.Load(); in != nil {
		return in.eng.store
	}
	return nil
}

// Queue returns the embedded job queue, nil before setup step 1.
func (a *App) Queue() *queue.Managed {
	if in := a.inst.Load(); in != nil {
		return in.queue
	}
	return nil
}

// Registry returns the job handler registry, nil before setup step 1.
// Handlers must be registered before a worker starts.
func (a *App) Registry() *worker.Registry {
	if in := a.inst.Load(); in != nil {
		return in.registry
	}
	return nil
}

// NewWorker returns a worker for this app's queue (nil before setup step
// 1), as serve and `murlog worker` build it.
func (a *App) NewWorker(svc string) *worker.Worker {
	if in := a.inst.Load(); in != nil {
		return a.newWorker(in, svc)
	}
	return nil
}

// ServeHTTP serves every request murlog answers.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.handler.ServeHTTP(w, r) }

// Close closes the database (and a secondary queue's).
func (a *App) Close() error {
	if in := a.inst.Load(); in != nil {
		err := in.close()
		// After the engine: closing it runs statements too. A failure
		// keeps the counts in memory and costs only the metric, so it is
		// not Close's error.
		if ferr := in.stmtLog.Flush(); ferr != nil {
			a.log.Warn("database statement counts not saved", "err", ferr.Error())
		}
		return err
	}
	return nil
}

// phase tells the setup guard how far setup has come. Before completion
// it asks the database each time (another process may have finished it);
// after, the running site answers.
func (a *App) phase(r *http.Request) httpd.Phase {
	in := a.inst.Load()
	if in == nil {
		return httpd.PhaseNoConfig
	}
	if a.running.Load() != nil {
		return httpd.PhaseReady
	}
	if done, err := in.setup.Complete(r.Context()); err == nil && done {
		if err := a.completed(r.Context()); err == nil && a.running.Load() != nil {
			return httpd.PhaseReady
		}
	}
	return httpd.PhaseNoSite
}

func (a *App) adminState() admin.State {
	cfg := a.cfg.Load()
	st := admin.State{Config: cfg, Cookies: httpd.Cookies{Secure: cfg.Scheme == "https"}}
	if in := a.inst.Load(); in != nil {
		st.Setup, st.Auth, st.Complete = in.setup, in.auth, a.running.Load() != nil
	}
	return st
}

// completed builds the running site once setup step 2 has committed.
func (a *App) completed(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	in := a.inst.Load()
	if in == nil || a.running.Load() != nil {
		return nil
	}
	rt, err := a.run(ctx, in)
	if err != nil || rt == nil {
		return err
	}
	a.running.Store(rt)
	return nil
}

func (a *App) routes() http.Handler {
	mux := http.NewServeMux()
	// Each route names the class its database statements count under
	// (db_statements_total); what none names is "system".
	mux.Handle("/admin/", classed(dbstat.Setup, a.admin))
	mux.Handle("/admin", classed(dbstat.Setup, a.admin)) // exactly: sent on to /my/, not to /admin/
	mux.Handle(my.Prefix, classed(dbstat.Owner, a.live(func(rt *running) http.Handler { return rt.my })))
	mux.Handle(httpd.RPCPath, classed(dbstat.Owner, a.live(func(rt *running) http.Handler { return rt.api })))
	mux.HandleFunc("GET /healthz", a.health)
	mux.HandleFunc("GET /metrics", a.live(func(rt *running) http.Handler { return rt.metrics }))
	rooms := a.rooms()
	for _, p := range federation.Patterns() {
		mux.Handle(p, rooms[roomFederation])
	}
	mux.Handle(mediadir.Prefix, classed(dbstat.Public, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mediadir.New(a.cfg.Load().MediaPath).ServeHTTP(w, r)
	})))
	for _, p := range blog.Patterns() {
		mux.Handle(p, rooms[roomBlog])
	}
	// The inboxes and the personas' negotiated addresses: see dispatch.
	mux.Handle("/", dispatched(rooms))
	a.inner = mux
	// Public reads are answered from artifacts first (app/artifacts.go).
	var h http.Handler = a.artifacts(mux)
	if a.opts.CavageOnly {
		h = refuseRFC9421Inbox(h)
	}
	// Every request carries the process's counter, so a shield deep in a
	// handler counts its drops (shield_drops_total).
	return httpd.LogWith(a.log.With("svc", a.svc()), func(ctx context.Context) context.Context {
		return dbstat.WithCounter(ctx, &a.stmts)
	}, httpd.Guard(a.phase, h))
}

// classed serves h with its statements counted as class c.
func classed(c dbstat.Class, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(dbstat.With(r.Context(), c)))
	})
}

// health answers 200 when the site can serve and write, for load
// balancers and uptime checks; 503 naming the reason before setup is
// complete and when the database cannot be read or written.
func (a *App) health(w http.ResponseWriter, r *http.Request) {
	in := a.inst.Load()
	if in == nil {
		httpd.WriteError(w, r, a.log, murlog.Errorf(murlog.EUnavailable, "not configured: setup step 1 is not done"))
		return
	}
	if a.phase(r) != httpd.PhaseReady {
		httpd.WriteError(w, r, a.log, murlog.Errorf(murlog.EUnavailable, "setup is not complete: step 2 is not done"))
		return
	}
	if err := in.eng.health(r.Context()); err != nil {
		httpd.WriteError(w, r, a.log, err)
		return
	}
	if err := in.jobs.HealthCheck(r.Context()); err != nil {
		httpd.WriteError(w, r, a.log, murlog.Errorf(murlog.EUnavailable, "job queue unavailable"))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte("ok\n"))
}

// metricsSource answers /metrics: queue depth from what the workers read,
// stored counters from the embedded queue's database.
type metricsSource struct{ in *installed }

func (m metricsSource) Counts(ctx context.Context) ([]queue.Count, error) {
	return m.in.jobs.Counts(ctx)
}

// WriteBreakerOpen is this process's write breaker (store/sqlite).
func (m metricsSource) WriteBreakerOpen() bool {
	return m.in.eng.writeBreakerOpen != nil && m.in.eng.writeBreakerOpen()
}

// Drops are every process's shield drops, this one's included.
func (m metricsSource) Drops() (map[dbstat.Shield]uint64, error) { return m.in.stmtLog.DropTotals() }

// Events are every process's artifact hits, misses and rebuilds.
func (m metricsSource) Events() (dbstat.EventCounts, error) { return m.in.stmtLog.EventTotals() }

// Statements are every process's statement counts, this one's included.
func (m metricsSource) Statements() (map[dbstat.Class]uint64, error) { return m.in.stmtLog.Totals() }

func (m metricsSource) Samples(ctx context.Context) ([]queue.Sample, error) {
	return m.in.eng.stats.Samples(ctx)
}
