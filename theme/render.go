package theme

import (
	"fmt"
	"html"
	"io/fs"
	"reflect"
	"strings"

	"github.com/mailgun/raymond/v2"
	"github.com/mailgun/raymond/v2/ast"
)

// partialRefs returns the partials a template names: {{> name …}} and
// the block form {{#> name}}, with whitespace control ("(" for a dynamic
// name, {{> (expr)}}, which cannot be known before running, so it loads
// them all). It finds what `\{\{~?\s*#?>\s*(\(|[A-Za-z0-9_-]+)` would,
// written out: a regexp compiled at every process start, and run over
// every template a CGI page reads, cost more than the scan.
func partialRefs(src string) []string {
	var refs []string
	for i := 0; ; {
		k := strings.Index(src[i:], "{{")
		if k < 0 {
			return refs
		}
		j := i + k + 2
		i += k + 1 // where the next try starts when this one fails
		if j < len(src) && src[j] == '~' {
			j++
		}
		j = skipSpace(src, j)
		if j < len(src) && src[j] == '#' {
			j++
		}
		if j >= len(src) || src[j] != '>' {
			continue
		}
		j = skipSpace(src, j+1)
		if j < len(src) && src[j] == '(' {
			refs = append(refs, "(")
			i = j + 1
			continue
		}
		e := j
		for e < len(src) && (src[e] >= 'A' && src[e] <= 'Z' || src[e] >= 'a' && src[e] <= 'z' || src[e] >= '0' && src[e] <= '9' || src[e] == '_' || src[e] == '-') {
			e++
		}
		if e > j {
			refs = append(refs, src[j:e])
			i = e
		}
	}
}

// skipSpace skips what \s matches in a Go regexp: \t \n \f \r and space.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\f' || s[i] == '\r') {
		i++
	}
	return i
}

// parsed is a parsed template file and the partials it names: raymond's
// parser's AST, which the compiler reads, and raymond's Template of the
// same source, made only when raymond has to run it.
type parsed struct {
	src  string
	prog *ast.Program
	refs []string          // "(" for a dynamic partial
	tpl  *raymond.Template // nil until raymond runs this file
}

// page is a page template ready to render: compiled when it can be, and
// raymond's template with its partials and helpers registered when
// raymond runs it (a template that does not compile, a run that declines,
// or Engine Raymond).
type page struct {
	top   *parsed
	parts map[string]*parsed // by partial name, every one the page reaches
	fast  *program           // nil: raymond renders
	ref   *raymond.Template  // guarded by Set.mu
}

// page returns the page template tmpl of t with the partials it uses,
// parsing what is not cached. s.mu is held.
func (s *Set) page(t *theme, tmpl string) (*page, error) {
	key := t.name + "/" + tmpl
	if pg, ok := s.pages[key]; ok {
		return pg, nil
	}
	if !validName(tmpl) {
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
	cache := partials
	if s.o.Engine == EngineRaymond {
		cache = nil // raymond registers partials on the page's own Template
	}
	if s.o.OneShot && s.o.ParseCache != nil && s.o.Engine != EngineRaymond {
		// A CGI process builds one page: its files' trees come from one
		// cache entry rather than one per file (bundle.go).
		if err := s.prefill(t, tmpl, p, partials); err != nil {
			return nil, err
		}
	}
	top, err := s.parseFile(templateFile(p.name, tmpl), cache)
	if err != nil {
		return nil, err
	}
	pg := &page{top: top, parts: map[string]*parsed{}}
	queue := append([]string(nil), top.refs...)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n == "(" {
			queue = append(queue, t.partialNames()...)
			continue
		}
		if _, done := pg.parts[n]; done {
			continue
		}
		pp := t.find("partials", n)
		if pp == nil {
			return nil, fmt.Errorf("template %s uses partial %q, which theme %s and its parents lack", tmpl, n, t.name)
		}
		part, err := s.parseFile(partialFile(pp.name, n), partials)
		if err != nil {
			return nil, err
		}
		pg.parts[n] = part
		queue = append(queue, part.refs...)
	}
	if s.o.Engine != EngineRaymond {
		progs := make(map[string]*ast.Program, len(pg.parts))
		for n, part := range pg.parts {
			progs[n] = part.prog
		}
		pg.fast, err = compile(top.prog, progs)
		if err != nil {
			if s.o.Engine == EngineCompiled {
				return nil, fmt.Errorf("compile %s: %w", tmpl, err)
			}
			s.log().Debug("theme: raymond renders this template", "theme", t.name, "template", tmpl, "reason", err.Error())
		}
	}
	if pg.fast == nil {
		if _, err := s.reference(pg); err != nil {
			return nil, err
		}
	}
	if !s.o.OneShot {
		s.pages[key] = pg
	}
	return pg, nil
}

// reference returns raymond's template of pg, partials and the eq helper
// registered, parsing each file with raymond once. s.mu is held.
func (s *Set) reference(pg *page) (*raymond.Template, error) {
	if pg.ref != nil {
		return pg.ref, nil
	}
	// The page template is its own raymond Template even when the file
	// is cached: partials and helpers are registered on it. Only under
	// EngineRaymond does parseFile parse it with raymond, uncached.
	tpl, err := pg.top.tpl, error(nil)
	if tpl == nil {
		if tpl, err = parse(pg.top.src); err != nil {
			return nil, err
		}
	}
	tpl.RegisterHelper("eq", eq)
	for n, part := range pg.parts {
		if part.tpl == nil {
			if part.tpl, err = parse(part.src); err != nil {
				return nil, err
			}
		}
		tpl.RegisterPartialTemplate(n, part.tpl)
	}
	pg.ref = tpl
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
	p := &parsed{src: string(b)}
	if s.o.Engine == EngineRaymond {
		p.tpl, err = parse(p.src)
	} else {
		p.prog, err = s.cachedAST(p.src)
	}
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", file, err)
	}
	p.refs = partialRefs(p.src)
	if cache != nil {
		cache[file] = p
	}
	return p, nil
}

// parseAST is raymond's parser (what raymond.Parse runs) with its panics
// turned into errors.
func parseAST(src string) (prog *ast.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			prog, err = nil, fmt.Errorf("parser panic: %v", r)
		}
	}()
	return parseFolded(src)
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

func number(v any) (float64, bool) { return numberValue(reflect.ValueOf(v)) }

// Render renders the page template tmpl ("site", "post", "tag", "search",
// "error") of theme name with ctx. It always returns a page: on any error
// it logs and falls back to the default theme, and as a last resort to a
// minimal built-in page naming the error. The bool is false when a
// fallback was used.
func (s *Set) Render(name, tmpl string, ctx any) ([]byte, bool) {
	t, fellBack := s.use(name)
	var err error
	if t != nil {
		var out []byte
		if out, err = s.render(t, tmpl, ctx); err == nil {
			return out, !fellBack
		}
		s.log().Error("theme: render failed", "theme", t.name, "template", tmpl, "err", err.Error())
		if t.name != Default {
			if d, _ := s.use(Default); d != nil && d.name == Default {
				if out, err = s.render(d, tmpl, ctx); err == nil {
					return out, false
				}
				s.log().Error("theme: render failed", "theme", Default, "template", tmpl, "err", err.Error())
			}
		}
	}
	return fallbackPage(tmpl), false
}

func (s *Set) render(t *theme, tmpl string, ctx any) ([]byte, error) {
	s.mu.Lock()
	pg, err := s.page(t, tmpl)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if pg.fast != nil {
		out, err := pg.fast.exec(ctx)
		if err == nil {
			return out, nil
		}
		if s.o.Engine == EngineCompiled {
			return nil, err
		}
		// A value the compiled evaluator does not mirror (or an error
		// raymond reports its own way): raymond renders this page.
		s.log().Debug("theme: raymond renders this page", "theme", t.name, "template", tmpl, "reason", err.Error())
	}
	s.mu.Lock()
	ref, err := s.reference(pg)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	out, err := exec(ref, ctx)
	return []byte(out), err
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
