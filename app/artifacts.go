package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/artifact/fsstore"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/cgi"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/prerender"
	"github.com/murlog/murlog/worker"
)

// artifactDir is where the site's artifacts live: artifact_dir when set;
// else, under CGI, the folder _site beside the entry point in the
// document root, where the .htaccess rules map URLs onto it; else, on a
// CGI install (the .htaccess beside murlog.ini carries murlog's block:
// the command line of such a site; the worker a CGI request spawns is
// told the folder in MURLOG_ARTIFACT_DIR), _site beside murlog.ini; else
// <data_dir>/artifacts.
func (a *App) artifactDir(cfg *config.Config) string {
	if cfg.ArtifactDir != "" {
		return cfg.ArtifactDir
	}
	if f := os.Getenv("SCRIPT_FILENAME"); a.opts.OneShot && f != "" {
		return filepath.Join(filepath.Dir(f), cgi.SiteDir) // entryDir, for a request Apache started
	}
	if dir := filepath.Dir(cfg.Path); a.opts.OneShot || cgi.HasBlock(dir) {
		return filepath.Join(dir, cgi.SiteDir)
	}
	return filepath.Join(cfg.DataDir, "artifacts")
}

// wireArtifacts opens the artifact store of a running site and builds
// the renderer, the serve-side layer and the rebuild over it. A folder
// murlog cannot open leaves the site without artifacts — every read is
// rendered as before — and says so in the log.
func (a *App) wireArtifacts(rt *running) {
	dir := a.artifactDir(rt.cfg)
	st, err := fsstore.New(dir)
	if err != nil {
		a.log.Error("the artifact folder cannot be used: every public read is rendered, none is kept",
			"dir", dir, "err", err.Error())
		rt.republish = artifactsOff{murlog.Errorf(murlog.EUnavailable,
			"the artifact folder %s cannot be used (%v): every public read is rendered, none is kept", dir, err)}
		return
	}
	rt.artifactStore = st
	rd := &prerender.Renderer{Handler: http.HandlerFunc(a.renderRoute), Store: st, Site: rt.site.Domain,
		Rebuilt: a.stmts.Rebuilt}
	rt.pre = &prerender.Server{Renderer: rd, Log: a.log, Now: a.opts.Now, Events: &a.stmts,
		Headers: prerender.Headers{PageCSP: blog.ArtifactCSP(), BaseCSP: blog.BaseCSP, AssetCSP: cgi.AssetCSP,
			WorkerCSP: blog.WorkerCSP},
		Locked: func() bool {
			st, err := rt.controls.Current(context.Background())
			return err == nil && st.Lockdown.Active(a.opts.Now())
		}}
	rt.rebuild = prerender.NewRebuilder(rd, rt.eng.store)
	rt.republish = republisher{Marks: prerender.Marks{Store: rt.eng.store}, store: st, forget: rt.pre.Forget}
	rt.rebuild.Log, rt.rebuild.Now, rt.rebuild.Forget = a.log, a.opts.Now, rt.pre.Forget
	// A resident process caches personas and settings for seconds; what
	// the rebuild renders must be what the write committed.
	rt.rebuild.Invalidate = func() { rt.fed.Invalidate(); rt.blogLoader.Invalidate() }
	a.checkArtifactStamp(rt)
}

// republisher is the API's view of the artifacts: the marks (progress,
// republishing) and the store, from which documents are withdrawn.
type republisher struct {
	prerender.Marks
	store  artifact.Store
	forget func(...artifact.Key)
}

func (r republisher) WithdrawActivityPub(ctx context.Context) error {
	_, err := prerender.Withdrawn(ctx, r.store, "ap/", r.forget)
	return err
}

// stampKey holds what rendered the artifacts: no URL maps to it.
var stampKey = artifact.MustParseKey("misc/stamp.txt")

// checkArtifactStamp renders everything again after a deploy: the
// artifacts were made by a binary and themes that the stamp names, and a
// new murlog (new templates, new theme assets) must not leave readers
// on the old pages. A fresh folder only gets the stamp.
func (a *App) checkArtifactStamp(rt *running) {
	_, sw := blog.ServiceWorker(a.themeSet(rt.cfg))
	stamp := fmt.Sprintf("murlog %s %s schema %d themes %s\n", murlog.Version, buildRevision(), SchemaVersion(), sw)
	ctx := context.Background()
	rc, _, err := rt.artifactStore.Get(ctx, stampKey)
	if err == nil {
		b, _ := io.ReadAll(io.LimitReader(rc, 512))
		rc.Close()
		if string(b) == stamp {
			return
		}
	}
	empty := true
	if murlog.ErrorCode(err) == murlog.ENotFound {
		rt.artifactStore.List(ctx, "html/", func(artifact.Key) error { empty = false; return errStop })
	} else {
		empty = false
	}
	if !empty {
		if err := (prerender.Marks{Store: rt.eng.store}).RebuildAll(ctx); err != nil {
			a.log.Warn("cannot mark the artifacts for rendering again after an upgrade", "err", err.Error())
			return // the stamp stays old: the next process tries again
		}
		a.log.Info("murlog or its themes changed: every artifact is rendered again in the background")
	}
	if _, err := rt.artifactStore.Put(ctx, stampKey, "text/plain; charset=utf-8", []byte(stamp)); err != nil {
		a.log.Warn("cannot write the artifact stamp", "err", err.Error())
	}
}

var errStop = errors.New("stop")

// buildRevision is the VCS revision the binary was built from, "" when
// it does not say (a test binary, a build outside a checkout).
func buildRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			return s.Value
		}
	}
	return ""
}

// renderRoute is the app's public routes as they answer dynamically: what
// the renderer turns into artifacts.
func (a *App) renderRoute(w http.ResponseWriter, r *http.Request) { a.inner.ServeHTTP(w, r) }

// artifacts answers public reads from artifacts when the running site
// has them, and hands the rest (and everything before setup) to next.
func (a *App) artifacts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rt := a.running.Load(); rt != nil && rt.pre != nil {
			rt.pre.Wrap(next).ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// registerRebuild registers artifacts.rebuild: it runs with the running
// site's rebuilder, and waits (retries) while setup is not complete.
func (a *App) registerRebuild(r *worker.Registry) {
	prerender.RegisterJobs(r, func() (*prerender.Rebuilder, error) {
		rt := a.running.Load()
		if rt == nil {
			return nil, murlog.Errorf(murlog.EUnavailable, "setup is not complete: no site to render")
		}
		return rt.rebuild, nil // nil without an artifact folder: nothing to do
	})
}

// Artifacts returns the running site's rebuilder and artifact store (nil
// before setup completes, or when the artifact folder cannot be used):
// `murlog artifacts` and the tests drive them.
func (a *App) Artifacts() (*prerender.Rebuilder, artifact.Store) {
	rt := a.running.Load()
	if rt == nil || rt.rebuild == nil {
		return nil, nil
	}
	return rt.rebuild, rt.artifactStore
}

// ArtifactCounts returns this process's artifact hits, misses and stale
// answers (serve mode's micro-cache).
func (a *App) ArtifactCounts() prerender.Counts {
	if rt := a.running.Load(); rt != nil && rt.pre != nil {
		return rt.pre.Counts()
	}
	return prerender.Counts{}
}

// Events returns this process's read-path events (artifact hits, misses,
// rebuilds and their durations), for benchmarks.
func (a *App) Events() dbstat.EventCounts { return a.stmts.EventCounts() }

// inlineBudget bounds the rendering an owner's write waits for, and
// inlineMarks the marks it takes on: a post, an edit, a setting leave a
// handful; a batch importing hundreds of posts is the job's, in the
// background, and its answer does not wait.
const (
	inlineBudget = 2 * time.Second
	inlineMarks  = 64
)

// ownerWrites is api.Deps.OwnerWrites: an owner's request has begun. When
// it ends having written, what its writes marked is rendered, within
// inlineBudget, before the API answers: the owner who just posted reads
// the post everywhere at once, and under CGI the pages are files before
// the spawned worker even starts. Only the owner's requests come here: no
// anonymous request makes murlog render.
func (rt *running) ownerWrites(ctx context.Context) func(wrote bool) {
	if rt.rebuild == nil {
		return func(bool) {}
	}
	began := time.Now()
	done := rt.rebuild.Writing()
	return func(wrote bool) {
		defer done()
		if !wrote {
			return
		}
		ctx := dbstat.With(ctx, dbstat.Worker)
		if _, err := rt.rebuild.Inline(ctx, inlineBudget, began, inlineMarks); err != nil {
			// The job renders them; the answer is the write's.
			rt.rebuild.Log.Warn("rendering a write's pages at once failed; the rebuild job will", "err", err.Error())
		}
	}
}
