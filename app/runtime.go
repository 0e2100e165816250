package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/api"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/controls"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/mediadir"
	"github.com/murlog/murlog/metrics"
	"github.com/murlog/murlog/my"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/persona"
	"github.com/murlog/murlog/prerender"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/setup"
	"github.com/murlog/murlog/siteconfig"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/worker"
)

// The app's two states after setup step 1, as two types. installed is a
// site that is not set up yet: the database, the job queue and the
// wizard's services, and nothing that needs the domain. running is the
// site once setup is complete, built whole from an installed one and
// swapped in at once (App.running), so every route that needs the blog,
// federation or the social service takes a *running, whose fields are
// all set, and nothing has to check for a nil service.

// installed is what exists once murlog.ini exists and the database is
// open: what the setup wizard, the worker, /healthz and the password
// reset need. It is built once per process and kept when setup
// completes.
type installed struct {
	cfg       *config.Config
	eng       *engine // db_driver's store, embedded queue, ledger and stored metrics
	auth      *auth.Service
	setup     *setup.Service
	queue     *queue.Managed // the embedded queue: transactional enqueue writes here
	jobs      jobQueue       // what workers read: queue, or a migration Switch
	wake      <-chan struct{}
	secondary *engine       // the queue being migrated to (queue_dual_write)
	ledger    worker.Ledger // run-once ledger while migrating
	registry  *worker.Registry
	stmtLog   *dbstat.Log       // this process's statement counts, added at close to every process's
	controls  *controls.Service // kill switches and lockdown, cached in process
}

// running is a set-up site: the domain is known, and the federation, the
// blog, the social service and the API are wired over it.
type running struct {
	*installed
	site     murlog.Site
	api      http.Handler
	my       *my.Handler // the owner's app at /my/
	metrics  http.Handler
	out      *outbound.Client // every remote fetch and delivery
	social   *social.Service
	keys     *federation.Keys // the personas' signers
	resolver *federation.Resolver
	verifier *federation.Verifier
	fed      *federation.Handler
	inbox    *inbox.Handler
	fedJobs  *worker.Registry // the federation job handlers (see forward)
	blog     *blog.Handler    // the public site
	// public is the blog behind the block shields (the blog itself in a
	// resident process).
	public http.Handler
	// shields are the persistent shields per address block, nil but
	// under CGI (shields.go).
	shields *blockShields
	// blogLoader is the blog's model loader (its caches of personas,
	// settings and post texts).
	blogLoader *blog.Loader
	// siteConfig is the personas' public-site settings (app/siteconfig.go).
	siteConfig *siteconfig.Service
	// The rendered public site (app/artifacts.go); nil when its folder
	// cannot be used.
	artifactStore artifact.Store
	republish     api.Republisher // the API's view of the artifacts (artifactsOff when the folder failed)
	pre           *prerender.Server
	rebuild       *prerender.Rebuilder
}

// open checks the data directory, opens (and migrates) the database and
// builds the installed site, and the running one when setup is complete.
func (a *App) open(ctx context.Context, cfg *config.Config) (*installed, *running, error) {
	if err := cfg.CheckDataDir(); err != nil {
		return nil, nil, err
	}
	a.checkModes(cfg)
	eng, err := a.openEngine(ctx, cfg.DBDriver, cfg.DBPath())
	if err != nil {
		return nil, nil, err
	}
	in := &installed{cfg: cfg, eng: eng, auth: auth.New(eng.store), setup: setup.New(eng.store),
		stmtLog:  &dbstat.Log{Path: filepath.Join(cfg.DataDir, "metrics", "statements"), Counter: &a.stmts},
		controls: controls.New(eng.store, a.opts.Now)}
	in.setup.KeyPair = a.opts.KeyPair
	if err := a.wireJobs(ctx, in); err != nil {
		eng.close()
		return nil, nil, err
	}
	rt, err := a.run(ctx, in)
	if err != nil {
		in.close()
		return nil, nil, err
	}
	return in, rt, nil
}

// close closes the database (and a secondary queue's).
func (in *installed) close() error {
	var err error
	if in.secondary != nil {
		err = in.secondary.close()
	}
	return errors.Join(in.eng.close(), err)
}

// run builds the running site over in when setup is complete (nil, and
// no error, when it is not): it reads the domain and wires every service
// that names it.
func (a *App) run(ctx context.Context, in *installed) (*running, error) {
	db := in.eng.store
	var vals map[string]string
	if err := db.View(ctx, func(tx store.Tx) error {
		var err error
		vals, err = tx.Settings().GetMany(murlog.SettingDomain, murlog.SettingSetupComplete)
		return err
	}); err != nil {
		return nil, fmt.Errorf("read site settings: %w", err)
	}
	if vals[murlog.SettingSetupComplete] != "1" {
		return nil, nil
	}
	cfg := in.cfg
	rt := &running{installed: in, site: murlog.Site{Scheme: cfg.Scheme, Domain: vals[murlog.SettingDomain]}}
	rt.metrics = metrics.Handler(cfg.MetricsToken, metricsSource{in})
	rt.out = a.newOutbound(cfg, rt.site, db)
	rt.shields = a.newBlockShields(rt)
	// The federation documents and the blog's URLs name the domain.
	a.wireFederation(rt)
	a.wireBlog(rt)
	rt.public = rt.shields.public(rt.blog, a)
	a.wireArtifacts(rt)
	// A persona's public-site settings show on its pages; the primary
	// persona's name and introduction are also NodeInfo's, so the API's
	// Changed drops the federation documents when they are edited.
	rt.siteConfig = newSiteConfig(db, a.log, a.themeSet(cfg), rt.blogLoader.Invalidate)
	cookies := httpd.Cookies{Secure: cfg.Scheme == "https"}
	// The RPC server (every method's registration) is built on the first
	// API request: a CGI process serving a page never needs it.
	rt.api = lazyHandler(func() http.Handler {
		rpc := api.New(api.Deps{Site: rt.site, Cookies: cookies, Auth: in.auth, Personas: persona.New(db).WithImages(mediadir.New(cfg.MediaPath)),
			Posts: newPosts(rt), Settings: settings.New(db), SiteConfig: rt.siteConfig,
			Domains: domains.New(db), Queue: in.queue, Now: a.opts.Now,
			Changed: func() { rt.fed.Invalidate(); rt.blogLoader.Invalidate() },
			Social:  rt.social, Store: db, Remote: rt.resolver, Controls: in.controls, Artifacts: rt.republish,
			OwnerWrites: rt.ownerWrites}, a.log)
		return httpd.Authenticate(in.auth, cookies, cfg.TrustedProxy, rt.site, rt.shields.rpc(rpc))
	})
	// The app's files need no caller; its theme preview does (the owner's
	// session), and renders with the blog.
	rt.my = my.New(my.Options{WebDir: cfg.WebDir, Cookies: cookies, Blog: rt.blogLoader, Log: a.log,
		Authenticate: func(h http.Handler) http.Handler {
			return httpd.Authenticate(in.auth, cookies, cfg.TrustedProxy, rt.site, h)
		}})
	return rt, nil
}

// lazyHandler is the handler build returns, built on its first request.
func lazyHandler(build func() http.Handler) http.Handler {
	h := sync.OnceValue(build)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h().ServeHTTP(w, r) })
}

// live serves a request with the handler pick chooses of the running
// site, and 404 before setup is complete (the setup guard answers such
// requests first; this is for a request racing the completion).
func (a *App) live(pick func(rt *running) http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if rt := a.running.Load(); rt != nil {
			pick(rt).ServeHTTP(w, r)
			return
		}
		httpd.WriteError(w, r, a.log, murlog.NotFound("page"))
	}
}

// artifactsOff answers the artifact methods with why there are none: the
// owner reads it in /my/, not only in the log.
type artifactsOff struct{ err error }

func (o artifactsOff) Pending(context.Context) (int, error) { return 0, o.err }
func (o artifactsOff) RebuildAll(context.Context) error     { return o.err }

// WithdrawActivityPub has nothing to withdraw: no artifact is kept.
func (o artifactsOff) WithdrawActivityPub(context.Context) error { return nil }
