package theme

import (
	"fmt"
	"html"
	"io/fs"
	"reflect"
	"regexp"
	"strings"

	"github.com/mailgun/raymond/v2"
)

// partialRef finds the partials a template names: {{> name …}} and the
// block form {{#> name}}, with whitespace control. A dynamic name
// ({{> (expr)}}) cannot be known before running, so it loads them all.
var partialRef = regexp.MustCompile(`\{\{~?\s*#?>\s*(\(|[A-Za-z0-9_-]+)`)

// parsed is a parsed template file and the partials it names.
type parsed struct {
	tpl  *raymond.Template
	refs []string // "(" for a dynamic partial
}

// page returns the page template tmpl of t with the partials it uses
// registered on it, parsing what is not cached. s.mu is held.
func (s *Set) page(t *theme, tmpl string) (*raymond.Template, error) {
	key := t.name + "/" + tmpl
	if tpl, ok := s.pages[key]; ok {
		return tpl, nil
	}
	if !validName.MatchString(tmpl) {
		return nil, fmt.Errorf("template name %q", tmpl)
	}
	p := t.find("templates", tmpl)
	if p == nil {
		return nil, fmt.Errorf("theme %s has no template %q", t.name, tmpl)
	}
	partials := s.partials
	if s.o.OneShot {
		partials = map[string]*parsed{} // this call's only
	}
	top, err := s.parseFile(templateFile(p.name, tmpl), nil)
	if err != nil {
		return nil, err
	}
	// The page template is a fresh parse even when a cached copy of the
	// file exists: partials and helpers are registered on it.
	tpl := top.tpl
	tpl.RegisterHelper("eq", eq)
	queue := append([]string(nil), top.refs...)
	done := map[string]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n == "(" {
			queue = append(queue, t.partialNames()...)
			continue
		}
		if done[n] {
			continue
		}
		done[n] = true
		pp := t.find("partials", n)
		if pp == nil {
			return nil, fmt.Errorf("template %s uses partial %q, which theme %s and its parents lack", tmpl, n, t.name)
		}
		part, err := s.parseFile(partialFile(pp.name, n), partials)
		if err != nil {
			return nil, err
		}
		tpl.RegisterPartialTemplate(n, part.tpl)
		queue = append(queue, part.refs...)
	}
	if !s.o.OneShot {
		s.pages[key] = tpl
	}
	return tpl, nil
}

// parseFile reads and parses one template file, through cache when not nil.
func (s *Set) parseFile(file string, cache map[string]*parsed) (*parsed, error) {
	if p, ok := cache[file]; ok {
		return p, nil
	}
	b, err := fs.ReadFile(s.fsys, file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	src := string(b)
	tpl, err := parse(src)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", file, err)
	}
	p := &parsed{tpl: tpl}
	for _, m := range partialRef.FindAllStringSubmatch(src, -1) {
		p.refs = append(p.refs, m[1])
	}
	if cache != nil {
		cache[file] = p
	}
	return p, nil
}

// parse is raymond.Parse with its panics turned into errors.
func parse(src string) (tpl *raymond.Template, err error) {
	defer func() {
		if r := recover(); r != nil {
			tpl, err = nil, fmt.Errorf("parser panic: %v", r)
		}
	}()
	return raymond.Parse(src)
}

// exec runs tpl: raymond reports most errors by panicking, and re-panics
// runtime errors, so everything is recovered here.
func exec(tpl *raymond.Template, ctx any) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("panic: %v", r)
		}
	}()
	return tpl.Exec(ctx)
}

// eq is the one helper beyond the Handlebars built-ins, the same in the
// browser: {{#if (eq a b)}}. Numbers compare by value whatever their Go
// type; everything else must be equal and of the same type. The options
// parameter makes raymond insist on two arguments: without it a call with
// one would get the options as b.
func eq(a, b any, _ *raymond.Options) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	if a == nil || b == nil {
		return a == b
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb || !ta.Comparable() {
		return false
	}
	return a == b
}

func number(v any) (float64, bool) {
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(r.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(r.Uint()), true
	case reflect.Float32, reflect.Float64:
		return r.Float(), true
	}
	return 0, false
}

// Render renders the page template tmpl ("site", "post", "tag", "search",
// "error") of theme name with ctx. It always returns a page: on any error
// it logs and falls back to the default theme, and as a last resort to a
// minimal built-in page naming the error. The bool is false when a
// fallback was used.
func (s *Set) Render(name, tmpl string, ctx any) ([]byte, bool) {
	t, fellBack := s.use(name)
	var err error
	if t != nil {
		var out string
		if out, err = s.render(t, tmpl, ctx); err == nil {
			return []byte(out), !fellBack
		}
		s.log().Error("theme: render failed", "theme", t.name, "template", tmpl, "err", err.Error())
		if t.name != Default {
			if d, _ := s.use(Default); d != nil && d.name == Default {
				if out, err = s.render(d, tmpl, ctx); err == nil {
					return []byte(out), false
				}
				s.log().Error("theme: render failed", "theme", Default, "template", tmpl, "err", err.Error())
			}
		}
	}
	return fallbackPage(tmpl), false
}

func (s *Set) render(t *theme, tmpl string, ctx any) (string, error) {
	s.mu.Lock()
	tpl, err := s.page(t, tmpl)
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	return exec(tpl, ctx)
}

// builtinPage is the last resort when no theme can render: plain HTML,
// no script, no style, nothing to load.
const builtinPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Page unavailable</title>
</head>
<body>
<h1>Page unavailable</h1>
<p>This page cannot be shown right now: %s</p>
</body>
</html>
`

// fallbackPage names what failed without internal detail (the log has it).
func fallbackPage(tmpl string) []byte {
	msg := fmt.Sprintf("the site's theme could not render its %q page.", tmpl)
	return []byte(fmt.Sprintf(builtinPage, html.EscapeString(strings.ToValidUTF8(msg, "\uFFFD"))))
}
