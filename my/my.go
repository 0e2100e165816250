// Package my serves the owner's app at /my/: the single-page app that
// web/spa builds into web_dir (index.html for every app route, Vite's
// content-hashed assets, the service worker, the manifest and icons), and
// the theme picker's live preview of the public site (preview.go).
//
// The files are read from web_dir at each request, never kept: a rebuilt
// app (make web) is served at once, without a restart, and a CGI process
// reads only the file it answers with.
package my

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/internal/contenttype"
)

// Prefix is where the app lives; the app mux routes it here.
const Prefix = "/my/"

// CSP is the policy of every /my/ response: the app's own scripts,
// styles and workers only — no inline script, no eval — images and media
// from anywhere (remote posts show them), and no framing by anyone.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: https: http:; " +
	"media-src 'self' https: http:; connect-src 'self'; frame-src 'self'; worker-src 'self'; manifest-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Cache policies: Vite's assets carry their content hash in their name,
// so they never change; everything else is revalidated on each use, so a
// new build shows on the next load.
const (
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "no-cache"
)

// Options configure a Handler.
type Options struct {
	// WebDir is the folder of the built app (config web_dir).
	WebDir string
	// Cookies makes the csrf_token cookie the app's first RPC echoes.
	Cookies httpd.Cookies
	// Authenticate puts the caller in the context of preview requests
	// (httpd.Authenticate over the auth service); nil makes every caller
	// anonymous, so previews answer 401.
	Authenticate func(http.Handler) http.Handler
	// Blog loads and renders the preview; nil (before setup completes)
	// answers previews 404.
	Blog *blog.Loader
	Log  *slog.Logger
}

// Handler serves /my/.
type Handler struct {
	o       Options
	preview http.Handler
}

// New returns the /my/ handler.
func New(o Options) *Handler {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{o: o}
	h.preview = http.HandlerFunc(h.servePreview)
	if o.Authenticate != nil {
		h.preview = o.Authenticate(h.preview)
	}
	return h
}

// ServeHTTP serves the app. A path whose last segment has no dot is an
// app route (the SPA's router reads it) and gets index.html; assets/ is
// Vite's output; other names are files at the root of web_dir. Dot-files
// and ".." segments are refused whatever their encoding, and os.Root
// keeps every open inside web_dir, symbolic links included.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("X-Frame-Options", "DENY")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	if theme, ok := strings.CutPrefix(rest, "preview/"); ok {
		r.SetPathValue("theme", theme)
		h.preview.ServeHTTP(w, r)
		return
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		if s == "" && i < len(segs)-1 || strings.HasPrefix(s, ".") || strings.ContainsAny(s, "\\\x00") {
			http.NotFound(w, r)
			return
		}
	}
	last := segs[len(segs)-1]
	switch {
	case len(segs) > 1 && segs[0] == "assets":
		h.serveFile(w, r, rest, cacheImmutable)
	case !strings.Contains(last, ".") || rest == "index.html":
		h.serveApp(w, r)
	default:
		h.serveFile(w, r, rest, cacheRevalidate)
	}
}

// serveApp answers index.html, with a csrf_token cookie when the browser
// has none: the app's first call (auth.login) is a mutating one, which
// needs the cookie's value in X-CSRF-Token.
func (h *Handler) serveApp(w http.ResponseWriter, r *http.Request) {
	f, st, err := h.open("index.html")
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			h.o.Log.Error("owner's app: index.html unreadable", "web_dir", h.o.WebDir, "err", err)
		}
		h.notBuilt(w, r)
		return
	}
	defer f.Close()
	h.o.Cookies.EnsureCSRF(w, r)
	h.serve(w, r, "index.html", f, st, cacheRevalidate)
}

// serveFile answers the file name (a slash-separated path in web_dir),
// 404 when there is no such regular file.
func (h *Handler) serveFile(w http.ResponseWriter, r *http.Request, name, cache string) {
	f, st, err := h.open(name)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			h.o.Log.Debug("owner's app: file refused", "name", name, "err", err)
		}
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	if name == "sw.js" {
		// The worker controls the app's pages, all under /my/.
		w.Header().Set("Service-Worker-Allowed", Prefix)
	}
	h.serve(w, r, name, f, st, cache)
}

// open opens a regular file of web_dir through os.Root, which refuses
// any path that leaves the folder (.., absolute paths, symbolic links
// pointing out).
func (h *Handler) open(name string) (*os.File, fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, nil, fs.ErrNotExist
	}
	root, err := os.OpenRoot(h.o.WebDir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fs.ErrNotExist // a directory is not a file to serve
		}
		return nil, nil, err
	}
	return f, st, nil
}

// serve writes the file with its type and cache policy. Revalidated files
// carry an ETag of their size and modification time (a rebuild changes
// both or the latter), so a browser's revalidation is a 304 without a
// body; http.ServeContent answers If-None-Match, If-Modified-Since, Range
// and HEAD.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, name string, f *os.File, st fs.FileInfo, cache string) {
	hd := w.Header()
	hd.Set("Content-Type", contenttype.Of(name))
	hd.Set("Cache-Control", cache)
	if cache == cacheRevalidate {
		hd.Set("ETag", fmt.Sprintf(`"%x-%x"`, st.Size(), st.ModTime().UnixNano()))
	}
	http.ServeContent(w, r, name, st.ModTime(), f)
}
