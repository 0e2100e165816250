package app

import (
	"net/http"
	"path/filepath"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/theme"
	"github.com/murlog/murlog/web/themes"
)

// themeSet returns the app's themes, built once: themes_dir when it
// exists, else the copy built into the binary, with parsed templates
// kept in <data_dir>/cache/templates between processes. The set parses
// templates as pages need them and keeps them, so the running site built
// when setup completes must not throw that away.
func (a *App) themeSet(cfg *config.Config) *theme.Set {
	a.themesOnce.Do(func() {
		a.themes = theme.Open(cfg.ThemesDir, themes.FS(), theme.Options{Log: a.log, OneShot: a.opts.OneShot,
			ParseCache: theme.DirCache(filepath.Join(cfg.DataDir, "cache", "templates"))})
	})
	return a.themes
}

// wireBlog builds the public site once setup is complete (its URLs name
// the domain).
//
// A resident process keeps the personas and settings the pages read for
// a few seconds (dropped at once by the changes this process makes, and
// converging with other processes by the TTL, as the federation
// documents do), and the texts derived from post HTML; a CGI process
// keeps nothing.
func (a *App) wireBlog(rt *running) {
	l := &blog.Loader{Site: rt.site, Store: rt.eng.store, Themes: a.themeSet(rt.cfg), Log: a.log, Now: a.opts.Now,
		SearchBudget: time.Duration(rt.cfg.SearchBudgetMS) * time.Millisecond}
	if !a.opts.OneShot {
		l.SiteTTL, l.TextCache = blogSiteTTL, blogTextCache
	}
	rt.blogLoader, rt.blog = l, blog.NewHandler(l, blog.HandlerOptions{TrustedProxies: rt.cfg.TrustedProxy, Controls: rt.controls})
}

// The blog's caches in a resident process.
const (
	blogSiteTTL   = federation.DefaultTTL
	blogTextCache = 4096 // posts; a few hundred bytes each
)

// notFound answers what no route serves: the blog's themed page to a
// browser, the error document to everything else.
func (a *App) notFound(w http.ResponseWriter, r *http.Request) {
	if rt := a.running.Load(); rt != nil && httpd.WantsHTML(r) {
		rt.blog.NotFound(w, r)
		return
	}
	httpd.WriteError(w, r, a.log, murlog.NotFound("page"))
}
