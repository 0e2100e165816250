package theme

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// validNamePattern is what a theme, template or partial name may be: it
// becomes a path element, so nothing that could climb out of the folder.
const validNamePattern = `^[A-Za-z0-9_-]{1,50}$`

// validName reports whether name matches validNamePattern. It is written
// out: compiled, the pattern's {1,50} is 61 KB built at every process
// start (each CGI request).
func validName(name string) bool {
	if len(name) == 0 || len(name) > 50 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// maxExtends bounds an extends chain (a theme and up to four ancestors).
const maxExtends = 4

// manifest is theme.json.
type manifest struct {
	Name           string   `json:"name"`
	Version        string   `json:"version"`
	Description    string   `json:"description"`
	Extends        string   `json:"extends"`
	WritingMode    string   `json:"writing_mode"`
	Templates      []string `json:"templates"`
	Partials       []string `json:"partials"`
	Assets         assets   `json:"assets"`
	ClientPartials []string `json:"client_partials"`
}

type assets struct {
	CSS   []string `json:"css"`
	JS    []string `json:"js"`
	Files []string `json:"files"`
}

// theme is one resolved theme: its manifest and parent, or why it is
// unusable.
type theme struct {
	name   string
	m      manifest
	parent *theme
	depth  int   // ancestors
	err    error // non-nil: broken or unknown, never rendered

	// The effective asset lists, inherited ones included, in order.
	css, js, files []assetRef
}

// assetRef is a file under <provider>/assets/.
type assetRef struct {
	provider string
	path     string // relative to assets/
}

func (a assetRef) file() string { return a.provider + "/assets/" + a.path }

// find returns the theme of t's chain that provides the file kind/name
// (kind "templates" or "partials"), nearest first, or nil.
func (t *theme) find(kind, name string) *theme {
	for c := t; c != nil; c = c.parent {
		list := c.m.Templates
		if kind == "partials" {
			list = c.m.Partials
		}
		for _, n := range list {
			if n == name {
				return c
			}
		}
	}
	return nil
}

// partialNames lists every partial t's chain provides.
func (t *theme) partialNames() []string {
	seen := map[string]bool{}
	var out []string
	for c := t; c != nil; c = c.parent {
		for _, n := range c.m.Partials {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

func templateFile(provider, name string) string { return provider + "/templates/" + name + ".hbs" }
func partialFile(provider, name string) string {
	return provider + "/templates/partials/" + name + ".hbs"
}

// load reads and checks the theme name with its chain; stack holds the
// names being loaded below it (extends loops). It never returns nil: a
// theme that cannot be used carries its err.
func (s *Set) load(name string, stack []string) *theme {
	if t, ok := s.themes[name]; ok {
		return t
	}
	t := &theme{name: name}
	t.err = s.check(t, stack)
	if len(stack) == 0 || t.err == nil || !errors.Is(t.err, errLoop) {
		// A theme caught in a loop is remembered by the outermost load
		// only, so that each theme reports its own reason once.
		s.remember(t)
	}
	return t
}

var errLoop = errors.New("extends loop")

// check reads t's theme.json and verifies every claim in it; the first
// lie found is the reason the theme is unusable.
func (s *Set) check(t *theme, stack []string) error {
	if !validName(t.name) {
		return fmt.Errorf("not a theme name (want %s)", validNamePattern)
	}
	b, err := fs.ReadFile(s.fsys, t.name+"/theme.json")
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("no such theme (no theme.json)")
	}
	if err != nil {
		return fmt.Errorf("read theme.json: %w", err)
	}
	if err := json.Unmarshal(b, &t.m); err != nil {
		return fmt.Errorf("theme.json: %w", err)
	}
	m := &t.m
	if m.Name != t.name {
		return fmt.Errorf("theme.json names %q, not its folder %q", m.Name, t.name)
	}
	switch m.WritingMode {
	case "", "horizontal-tb", "vertical-rl":
	default:
		return fmt.Errorf("writing_mode %q (want horizontal-tb or vertical-rl)", m.WritingMode)
	}
	for _, n := range m.Templates {
		if err := s.checkFile("template", n, templateFile(t.name, n)); err != nil {
			return err
		}
	}
	for _, n := range m.Partials {
		if err := s.checkFile("partial", n, partialFile(t.name, n)); err != nil {
			return err
		}
	}
	if m.Extends != "" {
		if len(stack) > maxExtends {
			return fmt.Errorf("extends chain longer than %d", maxExtends)
		}
		for _, n := range append(stack, t.name) {
			if n == m.Extends {
				return fmt.Errorf("%w: %s extends %s", errLoop, strings.Join(append(stack, t.name), " → "), m.Extends)
			}
		}
		p := s.load(m.Extends, append(stack[:len(stack):len(stack)], t.name))
		if p.err != nil {
			return fmt.Errorf("extends %q: %w", m.Extends, p.err)
		}
		if p.depth >= maxExtends {
			return fmt.Errorf("extends chain longer than %d (%s has %d ancestors)", maxExtends, p.name, p.depth)
		}
		t.parent, t.depth = p, p.depth+1
	}
	for _, n := range m.ClientPartials {
		if t.find("partials", n) == nil {
			return fmt.Errorf("client partial %q is not a partial of the theme or its parents", n)
		}
	}

	bases := map[string]string{}
	if t.css, err = s.assetList(t, m.Assets.CSS, bases, func(p *theme) []assetRef { return p.css }); err != nil {
		return err
	}
	if t.js, err = s.assetList(t, m.Assets.JS, bases, func(p *theme) []assetRef { return p.js }); err != nil {
		return err
	}
	if t.files, err = s.assetList(t, m.Assets.Files, bases, func(p *theme) []assetRef { return p.files }); err != nil {
		return err
	}
	return nil
}

// assetList is one effective asset list (css, js or files). An empty
// list inherits the parent's. Otherwise the theme's list is the order:
// each path is the theme's own file when its folder has it, else the
// parent's entry of that path (so a theme may list "style.css" to keep
// the parent's stylesheet before its own); a path neither has is a lie.
// bases holds the base names of the theme's own files.
func (s *Set) assetList(t *theme, own []string, bases map[string]string, of func(*theme) []assetRef) ([]assetRef, error) {
	if len(own) == 0 {
		if t.parent == nil {
			return nil, nil
		}
		return of(t.parent), nil
	}
	var out []assetRef
	seen := map[string]bool{}
	for _, p := range own {
		if !fs.ValidPath(p) || p == "." || strings.HasPrefix(path.Base(p), ".") {
			return nil, fmt.Errorf("asset %q: not a file path inside assets/", p)
		}
		if seen[p] {
			return nil, fmt.Errorf("asset %q is listed twice", p)
		}
		seen[p] = true
		file := t.name + "/assets/" + p
		if _, err := fs.Stat(s.fsys, file); err != nil && t.parent != nil {
			if a, ok := inherited(of(t.parent), p); ok {
				out = append(out, a)
				continue
			}
		}
		if err := s.checkFile("asset", p, file); err != nil {
			if t.parent != nil {
				return nil, fmt.Errorf("%w, and no parent provides it", err)
			}
			return nil, err
		}
		// URLs carry the base name only: two files of one theme with
		// the same base name would share a URL.
		if other, ok := bases[path.Base(p)]; ok && other != p {
			return nil, fmt.Errorf("assets %q and %q have the same file name", other, p)
		}
		bases[path.Base(p)] = p
		out = append(out, assetRef{provider: t.name, path: p})
	}
	return out, nil
}

func inherited(list []assetRef, p string) (assetRef, bool) {
	for _, a := range list {
		if a.path == p {
			return a, true
		}
	}
	return assetRef{}, false
}

// checkFile reports a listed file that is not there (a theme.json that
// lies) or a name that is not one.
func (s *Set) checkFile(kind, name, file string) error {
	if kind != "asset" && !validName(name) {
		return fmt.Errorf("%s name %q (want %s)", kind, name, validNamePattern)
	}
	st, err := fs.Stat(s.fsys, file)
	if err != nil {
		return fmt.Errorf("%s %q is listed but %s is missing", kind, name, file)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s %q: %s is not a file", kind, name, file)
	}
	return nil
}

// maxRemembered bounds the names a Set remembers (and so logs once);
// beyond it unknown names are resolved, and logged, each time.
const maxRemembered = 256

// remember caches t and logs, once, why it cannot be used.
func (s *Set) remember(t *theme) {
	if len(s.themes) >= maxRemembered {
		s.logBroken(t)
		return
	}
	s.themes[t.name] = t
	s.logBroken(t)
}

func (s *Set) logBroken(t *theme) {
	if t.err != nil {
		s.log().Error("theme: unusable theme, falling back to "+Default, "theme", t.name, "reason", t.err.Error())
	}
}
