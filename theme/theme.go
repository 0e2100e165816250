// Package theme loads the public blog's Handlebars themes and renders
// pages with them (github.com/mailgun/raymond/v2). A theme is a folder
// web/themes/<name>/ with theme.json, templates/*.hbs, templates/partials/
// *.hbs and assets/; the browser renders the same partials with the
// handlebars runtime (hydration).
//
// Rendering is a pure function of the theme's files and the context: no
// request, no database. Templates are parsed when first needed, so a CGI
// process that renders one post page parses only what that page uses.
// Raymond parses; a compiled evaluator of its AST (compile.go) executes,
// with raymond's Exec for whatever the compiler does not cover.
package theme

import (
	"io/fs"
	"log/slog"
	"os"
	"sort"
	"sync"
)

// Default is the theme every other falls back to.
const Default = "default"

// Options configures a Set.
type Options struct {
	Log *slog.Logger
	// OneShot keeps nothing between calls beyond what one process needs
	// (CGI: one request per process), and skips work done for reuse:
	// parsed templates are not kept.
	OneShot bool
	// Engine chooses who executes templates; the zero value is the
	// compiled evaluator with raymond for what it does not cover.
	Engine Engine
	// ParseCache, when set, keeps parsed templates between processes
	// (parsecache.go); a CGI process then decodes its page's templates
	// instead of tokenizing them.
	ParseCache ParseCache
}

// Engine is who executes a Set's templates (compile.go explains the two).
type Engine int

const (
	// EngineAuto runs the compiled evaluator, and raymond's Exec for a
	// template that does not compile or a page whose values it declines.
	EngineAuto Engine = iota
	// EngineRaymond runs raymond's Exec only: the reference, for tests
	// and benchmarks.
	EngineRaymond
	// EngineCompiled runs the compiled evaluator only: a template or page
	// it does not cover is an error (tests prove it covers the themes).
	EngineCompiled
)

// Set is the themes of one folder (an fs.FS: os.DirFS of themes_dir, or
// the copy built into the binary). It is safe for concurrent use.
type Set struct {
	fsys fs.FS
	o    Options

	// mu guards the caches below. Loading happens under it (once per
	// theme and template); executing a template does not.
	mu       sync.Mutex
	themes   map[string]*theme  // resolved theme.json, broken ones too (logged once)
	pages    map[string]*page   // "<theme>/<tmpl>"
	partials map[string]*parsed // by file
	hashes   map[string]string  // asset file → hash of what is served

	// sumsKey names the cached asset hashes of the built-in themes for
	// this executable (assetsums.go); "" keeps them in memory only.
	sumsKey               string
	sumsLoaded, sumsDirty bool
}

// NewSet returns the themes of fsys. Nothing is read until needed.
func NewSet(fsys fs.FS, o Options) *Set {
	return &Set{fsys: fsys, o: o,
		themes: map[string]*theme{}, pages: map[string]*page{},
		partials: map[string]*parsed{}, hashes: map[string]string{}}
}

// Open returns the Set of the folder dir (themes_dir) when it exists, and
// of builtin (the themes compiled into the binary) otherwise.
func Open(dir string, builtin fs.FS, o Options) *Set {
	if st, err := os.Stat(dir); dir != "" && err == nil && st.IsDir() {
		return NewSet(os.DirFS(dir), o)
	}
	s := NewSet(builtin, o)
	if o.OneShot && o.ParseCache != nil {
		s.sumsKey = executableSumsKey()
	}
	return s
}

func (s *Set) log() *slog.Logger {
	if s.o.Log != nil {
		return s.o.Log
	}
	return slog.Default()
}

// Info is a theme as pages use it.
type Info struct {
	Name        string   // the theme that renders (after fallback)
	Vertical    bool     // writing_mode vertical-rl
	Stylesheets []string // content-hashed asset URLs, theme.json order
	Scripts     []string
	// Integrity is the SRI value ("sha256-<base64>") of each URL of
	// Stylesheets and Scripts.
	Integrity map[string]string
}

// Names lists the usable themes, sorted.
func (s *Set) Names() []string {
	ents, err := fs.ReadDir(s.fsys, ".")
	if err != nil {
		return nil
	}
	var out []string
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range ents {
		if !e.IsDir() || !validName(e.Name()) {
			continue
		}
		if _, err := fs.Stat(s.fsys, e.Name()+"/theme.json"); err != nil {
			continue
		}
		if t := s.load(e.Name(), nil); t.err == nil {
			out = append(out, t.name)
		}
	}
	sort.Strings(out)
	return out
}

// Exists reports whether name is a valid theme name with a theme.json.
func (s *Set) Exists(name string) bool {
	if !validName(name) {
		return false
	}
	st, err := fs.Stat(s.fsys, name+"/theme.json")
	return err == nil && st.Mode().IsRegular()
}

// use returns the usable theme name resolves to, and whether that is a
// fallback; nil when not even Default is usable.
func (s *Set) use(name string) (*theme, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.load(name, nil); t.err == nil {
		return t, false
	}
	if name != Default {
		if t := s.load(Default, nil); t.err == nil {
			return t, true
		}
	}
	return nil, true
}

// Info describes the theme name resolves to: name itself, or Default
// (with a logged error) when name is unknown, malformed or broken.
func (s *Set) Info(name string) Info {
	t, _ := s.use(name)
	if t == nil {
		return Info{Name: Default}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.storeSums()
	in := Info{Name: t.name, Vertical: t.m.WritingMode == "vertical-rl", Integrity: map[string]string{}}
	for _, a := range t.css {
		if as, err := s.assetOf(a); err == nil {
			in.Stylesheets, in.Integrity[as.URL] = append(in.Stylesheets, as.URL), as.Integrity
		}
	}
	for _, a := range t.js {
		if as, err := s.assetOf(a); err == nil {
			in.Scripts, in.Integrity[as.URL] = append(in.Scripts, as.URL), as.Integrity
		}
	}
	return in
}

// PageAssets are the stylesheets and scripts of every usable theme, each
// once, sorted by URL: what any page of the site may load on every view
// (the reader's Service Worker precaches them).
func (s *Set) PageAssets() []Asset {
	seen := map[string]bool{}
	var out []Asset
	for _, name := range s.Names() {
		in := s.Info(name)
		for _, u := range append(append([]string(nil), in.Stylesheets...), in.Scripts...) {
			if !seen[u] {
				seen[u] = true
				out = append(out, Asset{URL: u, Integrity: in.Integrity[u]})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

// AssetURL is the content-hashed URL of the asset file (a path under
// assets/ as theme.json lists it, css, js or files, inherited ones
// included) of the theme name resolves to, or "" when it has none. Pages
// need it for files loaded by condition, such as analytics.js.
func (s *Set) AssetURL(name, file string) string { return s.Asset(name, file).URL }

// Asset is AssetURL with the asset's integrity; the zero Asset when the
// theme has no such file.
func (s *Set) Asset(name, file string) Asset {
	t, _ := s.use(name)
	if t == nil {
		return Asset{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.storeSums()
	for _, list := range [][]assetRef{t.css, t.js, t.files} {
		for _, a := range list {
			if a.path == file {
				as, _ := s.assetOf(a)
				return as
			}
		}
	}
	return Asset{}
}
