// Package app is the composition root: it reads the config, opens the
// store, wires the services and builds the one http.Handler that serve
// mode, CGI mode and the tests all drive. It is the only package that names
// an adapter.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/admin"
	"github.com/murlog/murlog/api"
	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/mediadir"
	"github.com/murlog/murlog/metrics"
	"github.com/murlog/murlog/my"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/persona"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/setup"
	"github.com/murlog/murlog/siteconfig"
	"github.com/murlog/murlog/social"
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

	mu  sync.Mutex                    // serialises configure and rewire
	cfg atomic.Pointer[config.Config] // the current startup config (defaults before step 1)
	rt  atomic.Pointer[runtime]       // nil until murlog.ini exists and the DB is open

	themesOnce sync.Once
	themes     *theme.Set // the public blog's themes, built once (see themeSet)
}

// runtime is everything that exists once the database is open.
type runtime struct {
	cfg       *config.Config
	eng       *engine // db_driver's store, embedded queue, ledger and stored metrics
	site      murlog.Site
	complete  atomic.Bool
	auth      *auth.Service
	setup     *setup.Service
	api       http.Handler
	my        *my.Handler    // the owner's app at /my/
	queue     *queue.Managed // the embedded queue: transactional enqueue writes here
	jobs      jobQueue       // what workers read: queue, or a migration Switch
	wake      <-chan struct{}
	secondary *engine       // the queue being migrated to (queue_dual_write)
	ledger    worker.Ledger // run-once ledger while migrating
	registry  *worker.Registry
	metrics   http.Handler
	out       *outbound.Client    // every remote fetch and delivery
	fed       *federation.Handler // nil until setup is complete
	social    *social.Service     // nil until setup is complete
	keys      *federation.Keys    // the personas' signers; nil until setup is complete
	fedJobs   *worker.Registry    // the federation job handlers; nil until setup is complete
	resolver  *federation.Resolver
	verifier  *federation.Verifier
	inbox     *inbox.Handler // nil until setup is complete
	blog      *blog.Handler  // the public site; nil until setup is complete
	// blogLoader is the blog's model loader (its caches of personas,
	// settings and post texts); nil until setup is complete.
	blogLoader *blog.Loader
	mentions   post.Mentions // resolves mentions at post time; nil until a resolver is wired
	// siteConfig is the personas' public-site settings (app/siteconfig.go).
	siteConfig *siteconfig.Service
	// dropPages, when set, drops the blog's rendered pages: it is called
	// after a persona's public-site settings changed.
	dropPages func()
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
		rt, err := a.open(ctx, cfg)
		if err != nil {
			return nil, err
		}
		a.rt.Store(rt)
	}
	a.admin = admin.New(admin.Deps{Log: a.log, State: a.adminState, Configure: a.configure, Completed: a.completed,
		SetupToken: a.currentSetupToken, ResetCommand: resetCommand(o.OneShot)})
	a.handler = a.routes()
	return a, nil
}

// Config returns the current startup configuration.
func (a *App) Config() *config.Config { return a.cfg.Load() }

// Store returns the open store, nil before setup step 1.
func (a *App) Store() store.Store {
	if rt := a.rt.Load(); rt != nil {
		return rt.eng.store
	}
	return nil
}

// Queue returns the embedded job queue, nil before setup step 1.
func (a *App) Queue() *queue.Managed {
	if rt := a.rt.Load(); rt != nil {
		return rt.queue
	}
	return nil
}

// Registry returns the job handler registry, nil before setup step 1.
// Handlers must be registered before a worker starts.
func (a *App) Registry() *worker.Registry {
	if rt := a.rt.Load(); rt != nil {
		return rt.registry
	}
	return nil
}

// NewWorker returns a worker for this app's queue (nil before setup step
// 1), as serve and `murlog worker` build it.
func (a *App) NewWorker(svc string) *worker.Worker {
	if rt := a.rt.Load(); rt != nil {
		return a.newWorker(rt, svc)
	}
	return nil
}

// ServeHTTP serves every request murlog answers.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.handler.ServeHTTP(w, r) }

// Close closes the database (and a secondary queue's).
func (a *App) Close() error {
	if rt := a.rt.Load(); rt != nil {
		var err error
		if rt.secondary != nil {
			err = rt.secondary.close()
		}
		return errors.Join(rt.eng.close(), err)
	}
	return nil
}

// open checks the data directory and opens (and migrates) the database.
func (a *App) open(ctx context.Context, cfg *config.Config) (*runtime, error) {
	if err := cfg.CheckDataDir(); err != nil {
		return nil, err
	}
	a.checkModes(cfg)
	eng, err := a.openEngine(ctx, cfg.DBDriver, cfg.DBPath())
	if err != nil {
		return nil, err
	}
	rt, err := a.wire(ctx, cfg, eng)
	if err != nil {
		eng.close()
		return nil, err
	}
	return rt, nil
}

// wire builds the services over an open database. It runs again after
// setup completes, because the domain is known only then.
func (a *App) wire(ctx context.Context, cfg *config.Config, eng *engine) (*runtime, error) {
	db := eng.store
	var vals map[string]string
	if err := db.View(ctx, func(tx store.Tx) error {
		var err error
		vals, err = tx.Settings().GetMany(murlog.SettingDomain, murlog.SettingSetupComplete)
		return err
	}); err != nil {
		return nil, fmt.Errorf("read site settings: %w", err)
	}
	rt := &runtime{cfg: cfg, eng: eng, site: murlog.Site{Scheme: cfg.Scheme, Domain: vals[murlog.SettingDomain]}}
	rt.complete.Store(vals[murlog.SettingSetupComplete] == "1")
	if old := a.rt.Load(); old != nil && old.eng == eng {
		// Rewiring after setup: keep the queue wiring (and the secondary
		// database it may have opened).
		rt.queue, rt.jobs, rt.wake, rt.secondary, rt.ledger = old.queue, old.jobs, old.wake, old.secondary, old.ledger
		rt.registry = old.registry
	} else if err := a.wireJobs(ctx, rt); err != nil {
		return nil, err
	}
	rt.metrics = metrics.Handler(cfg.MetricsToken, metricsSource{rt})
	rt.out = a.newOutbound(cfg, rt.site)
	rt.auth = auth.New(db)
	rt.setup = setup.New(db)
	rt.setup.KeyPair = a.opts.KeyPair
	cookies := httpd.Cookies{Secure: cfg.Scheme == "https"}
	var changed func()
	if rt.complete.Load() {
		// The federation documents name the domain, known once setup is
		// complete.
		a.wireFederation(rt)
		a.wireBlog(rt)
		changed = func() { rt.fed.Invalidate(); rt.blogLoader.Invalidate() }
	}
	// A persona's public-site settings show only on its pages: the
	// federation documents do not change with them.
	rt.siteConfig = newSiteConfig(db, a.log, a.themeSet(cfg), rt.pubConfigChanged)
	rpc := api.New(socialAPI(rt, api.Deps{Site: rt.site, Cookies: cookies, Auth: rt.auth, Personas: persona.New(db).WithImages(mediadir.New(cfg.MediaPath)),
		Posts: newPosts(rt), Settings: settings.New(db), SiteConfig: rt.siteConfig,
		Domains: domains.New(db), Queue: rt.queue, Now: a.opts.Now, Changed: changed}), a.log)
	rt.api = httpd.Authenticate(rt.auth, cookies, cfg.TrustedProxy, rt.site, rpc)
	// The app's files need no caller; its theme preview does (the owner's
	// session), and renders with the blog once setup is complete.
	rt.my = my.New(my.Options{WebDir: cfg.WebDir, Cookies: cookies, Blog: rt.blogLoader, Log: a.log,
		Authenticate: func(h http.Handler) http.Handler {
			return httpd.Authenticate(rt.auth, cookies, cfg.TrustedProxy, rt.site, h)
		}})
	return rt, nil
}

// phase tells the setup guard how far setup has come. Before completion
// it asks the database each time (another process may have finished it);
// after, the answer is cached for the life of the runtime.
func (a *App) phase(r *http.Request) httpd.Phase {
	rt := a.rt.Load()
	if rt == nil {
		return httpd.PhaseNoConfig
	}
	if rt.complete.Load() {
		return httpd.PhaseReady
	}
	if done, err := rt.setup.Complete(r.Context()); err == nil && done {
		if err := a.completed(r.Context()); err == nil {
			return httpd.PhaseReady
		}
	}
	return httpd.PhaseNoSite
}

func (a *App) adminState() admin.State {
	cfg := a.cfg.Load()
	st := admin.State{Config: cfg, Cookies: httpd.Cookies{Secure: cfg.Scheme == "https"}}
	if rt := a.rt.Load(); rt != nil {
		st.Setup, st.Auth, st.Complete = rt.setup, rt.auth, rt.complete.Load()
	}
	return st
}

// completed rewires the runtime once setup step 2 has committed.
func (a *App) completed(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	old := a.rt.Load()
	if old == nil || old.complete.Load() {
		return nil
	}
	rt, err := a.wire(ctx, old.cfg, old.eng)
	if err != nil {
		return err
	}
	a.rt.Store(rt)
	return nil
}

func (a *App) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/admin/", a.admin)
	mux.Handle("/admin", a.admin) // exactly: sent on to /my/, not to /admin/
	mux.HandleFunc(my.Prefix, func(w http.ResponseWriter, r *http.Request) {
		// The guard lets /my/ through only once setup is complete, when
		// the runtime exists.
		a.rt.Load().my.ServeHTTP(w, r)
	})
	mux.HandleFunc(httpd.RPCPath, func(w http.ResponseWriter, r *http.Request) {
		a.rt.Load().api.ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /healthz", a.health)
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		if rt := a.rt.Load(); rt != nil {
			rt.metrics.ServeHTTP(w, r)
			return
		}
		httpd.WriteError(w, r, a.log, murlog.NotFound("page"))
	})
	for _, p := range federation.Patterns() {
		mux.HandleFunc(p, a.federation)
	}
	mux.HandleFunc("POST /inbox", a.inbox)
	mux.HandleFunc(mediadir.Prefix, func(w http.ResponseWriter, r *http.Request) {
		mediadir.New(a.cfg.Load().MediaPath).ServeHTTP(w, r)
	})
	for _, p := range blog.Patterns() {
		mux.HandleFunc(p, a.blog)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if inbox.IsPath(r.URL.Path) {
			a.inbox(w, r) // any method: it answers 405 with Allow: POST but to a POST
			return
		}
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && federation.IsProfilePath(r.URL.Path) {
			a.profile(w, r)
			return
		}
		a.notFound(w, r)
	})
	var h http.Handler = mux
	if a.opts.CavageOnly {
		h = refuseRFC9421Inbox(h)
	}
	return httpd.Log(a.log.With("svc", a.svc()), httpd.Guard(a.phase, h))
}

// federation serves discovery and the ActivityPub documents once setup
// is complete (the guard answers before that).
func (a *App) federation(w http.ResponseWriter, r *http.Request) {
	if rt := a.rt.Load(); rt != nil && rt.fed != nil {
		rt.fed.ServeHTTP(w, r)
		return
	}
	httpd.WriteError(w, r, a.log, murlog.NotFound("page"))
}

// health answers 200 when the site can serve and write, for load
// balancers and uptime checks; 503 naming the reason before setup is
// complete and when the database cannot be read or written.
func (a *App) health(w http.ResponseWriter, r *http.Request) {
	rt := a.rt.Load()
	if rt == nil {
		httpd.WriteError(w, r, a.log, murlog.Errorf(murlog.EUnavailable, "not configured: setup step 1 is not done"))
		return
	}
	if a.phase(r) != httpd.PhaseReady {
		httpd.WriteError(w, r, a.log, murlog.Errorf(murlog.EUnavailable, "setup is not complete: step 2 is not done"))
		return
	}
	if err := rt.eng.health(r.Context()); err != nil {
		httpd.WriteError(w, r, a.log, err)
		return
	}
	if err := rt.jobs.HealthCheck(r.Context()); err != nil {
		httpd.WriteError(w, r, a.log, murlog.Errorf(murlog.EUnavailable, "job queue unavailable"))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte("ok\n"))
}

// metricsSource answers /metrics: queue depth from what the workers read,
// stored counters from the embedded queue's database.
type metricsSource struct{ rt *runtime }

func (m metricsSource) Counts(ctx context.Context) ([]queue.Count, error) {
	return m.rt.jobs.Counts(ctx)
}

func (m metricsSource) Samples(ctx context.Context) ([]queue.Sample, error) {
	return m.rt.eng.stats.Samples(ctx)
}
