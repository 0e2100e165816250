// Package theme loads the public blog's Handlebars themes and renders
// pages with them (github.com/mailgun/raymond/v2). A theme is a folder
// web/themes/<name>/ with theme.json, templates/*.hbs, templates/partials/
// *.hbs and assets/; the browser renders the same partials with the
// handlebars runtime (hydration).
//
// Rendering is a pure function of the theme's files and the context: no
// request, no database. Templates are parsed when first needed, so a CGI
// process that renders one post page parses only what that page uses.
package theme

import (
	"io/fs"
	"log/slog"
	"net/http"
)

// Default is the theme every other falls back to.
const Default = "default"

// Options configures a Set.
type Options struct {
	Log *slog.Logger
	// OneShot keeps nothing between calls beyond what one process needs
	// (CGI: one request per process), and skips work done for reuse.
	OneShot bool
}

// Set is the themes of one folder (an fs.FS: os.DirFS of themes_dir, or
// the copy built into the binary). It is safe for concurrent use.
type Set struct {
	fsys fs.FS
	o    Options
}

// NewSet returns the themes of fsys. Nothing is read until needed.
//
// TODO(h-theme): everything below.
func NewSet(fsys fs.FS, o Options) *Set { return &Set{fsys: fsys, o: o} }

// Info is a theme as pages use it.
type Info struct {
	Name        string   // the theme that renders (after fallback)
	Vertical    bool     // writing_mode vertical-rl
	Stylesheets []string // content-hashed asset URLs, theme.json order
	Scripts     []string
}

// Names lists the usable themes, sorted.
func (s *Set) Names() []string { return nil }

// Exists reports whether name is a valid theme name with a theme.json.
func (s *Set) Exists(name string) bool { return false }

// Info describes the theme name resolves to: name itself, or Default
// (with a logged error) when name is unknown, malformed or broken.
func (s *Set) Info(name string) Info { return Info{Name: Default} }

// Render renders the page template tmpl ("site", "post", "tag", "search",
// "error") of theme name with ctx. It always returns a page: on any error
// it logs and falls back to the default theme, and as a last resort to a
// minimal built-in page naming the error. The bool is false when a
// fallback was used.
func (s *Set) Render(name, tmpl string, ctx any) ([]byte, bool) { return nil, false }

// ServeAsset serves GET /themes/{theme}/{file}: content-hashed names only,
// immutable; anything else 404.
func (s *Set) ServeAsset(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }
