package theme

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mailgun/raymond/v2"
	"github.com/mailgun/raymond/v2/ast"
)

// The compiled evaluator against raymond, its reference: tricky templates
// one by one, then templates built at random from the constructs it
// covers. Wherever both render, the bytes must be identical; the compiled
// evaluator must never render where raymond fails.

type tItem struct {
	Name string   `handlebars:"name"`
	N    int      `handlebars:"n"`
	On   bool     `handlebars:"on"`
	Tags []string `handlebars:"tags"`
	Sub  *tItem   `handlebars:"sub"`
	Kids []tItem  `handlebars:"kids"`
}

type tRoot struct {
	Title  string            `handlebars:"title"`
	Lang   string            `handlebars:"lang"`
	Esc    string            `handlebars:"esc"`
	Items  []tItem           `handlebars:"items"`
	Empty  []tItem           `handlebars:"empty"`
	Ptrs   []*tItem          `handlebars:"ptrs"`
	Anys   []any             `handlebars:"anys"`
	M      map[string]string `handlebars:"m"`
	A      map[string]any    `handlebars:"a"`
	Nil    *tItem            `handlebars:"nil"`
	One    *tItem            `handlebars:"one"`
	Zero   int               `handlebars:"zero"`
	Neg    int64             `handlebars:"neg"`
	Pi     float64           `handlebars:"pi"`
	F32    float32           `handlebars:"f32"`
	U      uint8             `handlebars:"u"`
	Yes    bool              `handlebars:"yes"`
	No     bool              `handlebars:"no"`
	Safe   raymond.SafeString
	Kind   kind   `handlebars:"kind"`
	hidden string `handlebars:"hidden"`
	Tagged string `handlebars:"-"`
	Key    string `handlebars:"key"`
}

type kind string

// withMethod has a method raymond would call for {{label}}.
type withMethod struct{ X string }

func (w withMethod) Label() string { return "<" + w.X + ">" }

func testRoot() *tRoot {
	kids := []tItem{{Name: "k0", N: 10}, {Name: "k1 <&>", N: 11, On: true}}
	return &tRoot{
		Title: "T & 'q'", Lang: "ja", Esc: "&<>\"'`= end",
		Items: []tItem{{Name: "a", N: 1, On: true, Tags: []string{"x", "y"}, Kids: kids},
			{Name: "b", N: 2, Sub: &tItem{Name: "sub-b"}}, {Name: "", N: 0, Tags: []string{}}},
		Empty: []tItem{},
		Ptrs:  []*tItem{{Name: "p0"}, nil, {Name: "p2"}},
		Anys:  []any{"s", 3, nil, 2.5, true, &tItem{Name: "ap"}},
		M:     map[string]string{"k": "v<"},
		A:     map[string]any{"x": "ax", "n": 0, "nilv": nil, "list": []string{"l1", "l2"}, "sub": map[string]any{"deep": "d"}},
		One:   &tItem{Name: "one", N: 1, Tags: []string{"t"}},
		Neg:   -42, Pi: 3.14159, F32: 0.1, U: 2, Yes: true,
		Safe: "<b>safe</b>", Kind: "note", hidden: "h", Tagged: "tg", Key: "root-key",
	}
}

// partialSet is a set of partials parsed once for both evaluators: a
// generated-template run renders thousands of templates with the same few
// partials, and parsing them again for each (raymond's lexer under -race)
// cost most of the run.
type partialSet struct {
	tpls  map[string]*raymond.Template
	progs map[string]*ast.Program
}

// parsePartials parses partials (nil for none) for both evaluators.
func parsePartials(t testing.TB, partials map[string]string) *partialSet {
	t.Helper()
	ps := &partialSet{tpls: map[string]*raymond.Template{}, progs: map[string]*ast.Program{}}
	for n, p := range partials {
		var err error
		if ps.tpls[n], err = parse(p); err != nil {
			t.Fatalf("partial %s: %v", n, err)
		}
		if ps.progs[n], err = parseAST(p); err != nil {
			t.Fatalf("partial %s: %v", n, err)
		}
	}
	return ps
}

// both renders src with partials both ways. declined reports that the
// compiled evaluator did not render (compile error or decline).
func both(t testing.TB, src string, partials *partialSet, ctx any) (got, want string, gotErr, wantErr error, declined bool) {
	t.Helper()
	tpl, err := parse(src)
	if err != nil {
		return "", "", nil, err, true
	}
	tpl.RegisterHelper("eq", eq)
	for n, p := range partials.tpls {
		tpl.RegisterPartialTemplate(n, p)
	}
	want, wantErr = exec(tpl, ctx)
	top, err := parseAST(src)
	if err != nil {
		t.Fatalf("raymond.Parse accepts %q, its parser does not: %v", src, err)
	}
	prog, err := compile(top, partials.progs)
	if err != nil {
		if !errors.Is(err, errUnsupported) {
			t.Fatalf("compile %q: %v, not errUnsupported", src, err)
		}
		return "", want, nil, wantErr, true
	}
	out, gotErr := prog.exec(ctx)
	var d decline
	return string(out), want, gotErr, wantErr, errors.As(gotErr, &d)
}

// check fails unless the compiled output equals raymond's wherever the
// compiled evaluator renders, and it renders nothing raymond fails on.
func check(t testing.TB, src string, partials *partialSet, ctx any) (declined bool) {
	t.Helper()
	got, want, gotErr, wantErr, declined := both(t, src, partials, ctx)
	switch {
	case declined:
	case gotErr != nil && wantErr == nil:
		t.Errorf("%q: compiled failed (%v) where raymond renders %q", src, gotErr, want)
	case gotErr == nil && wantErr != nil:
		t.Errorf("%q: compiled renders %q where raymond fails: %v", src, got, wantErr)
	case got != want:
		t.Errorf("%q:\ncompiled %q\nraymond  %q", src, got, want)
	}
	return declined
}

var testPartials = map[string]string{
	"card":  `<{{name}}|{{title}}|{{n}}>`,
	"lines": "l1 {{name}}\nl2\n",
	"list":  "{{#each tags}}\n  - {{this}}\n{{/each}}\n",
	"outer": "o[{{> card}}]\n  {{> lines}}\n",
	"data":  "{{@index}}{{@first}}{{#if @last}}L{{/if}}",
}

func TestCompiledTricky(t *testing.T) {
	partials := parsePartials(t, testPartials)
	for _, tc := range []struct {
		src     string
		decline bool // the compiled evaluator leaves it to raymond
	}{
		{src: `{{title}}|{{{title}}}|{{& title}}|{{esc}}|{{{esc}}}`},
		{src: `{{zero}} {{neg}} {{pi}} {{f32}} {{u}} {{yes}} {{no}} {{items.length}} {{title.length}} {{m.length}}`},
		{src: `{{safe}}|{{{safe}}}|{{kind}}|{{tagged}}|{{key}}`},
		{src: `{{#each items}}[{{@index}}{{#if @first}}F{{/if}}{{#if @last}}L{{/if}} {{name}} {{../title}} {{#each kids}}({{@index}}/{{@../index}} {{name}} {{../name}} {{../../title}} {{@root.title}} {{@key}}){{/each}}]{{/each}}`},
		{src: `{{#each items}}{{lang}}{{n}}{{#each tags}}{{.}}{{this}}{{../name}}{{../../lang}}{{/each}}{{else}}none{{/each}}`},
		{src: `{{#each empty}}x{{else}}empty{{/each}}{{#each nil}}x{{else}}nil{{/each}}{{#each title}}x{{else}}y{{/each}}{{#each zero}}x{{else}}z{{/each}}`},
		{src: `{{#each ptrs}}{{name}}{{this.name}};{{/each}}{{#each anys}}[{{this}}|{{.}}|{{name}}]{{/each}}`},
		{src: `{{#if no}}a{{else if zero}}b{{else if empty}}c{{else if items}}d{{else}}e{{/if}}`},
		{src: `{{#if no}}a{{else unless yes}}b{{else with one}}{{name}}{{else}}e{{/if}}`},
		{src: `{{#unless yes}}u{{else}}nu{{/unless}}{{#unless no}}un{{/unless}}{{^if no}}inv{{/if}}`},
		{src: `{{#with nil}}x{{else}}none{{/with}}{{#with one}}{{name}}-{{title}}-{{../title}}{{/with}}{{#with m}}{{k}}{{/with}}`},
		{src: `{{#with one}}{{#with sub}}s{{else}}{{name}} has none{{/with}}{{/with}}{{#with items.[1].sub}}{{name}}{{/with}}`},
		{src: `{{> card one}}{{> card}}{{> card nil}}{{> card items.[1]}}{{> card "str"}}{{> card zero}}`},
		{src: "a\n  {{> lines one}}\nb\n\t{{> list one}}\n{{> outer one}}"},
		{src: "  {{> lines}}  \n{{#each items}}\n  {{> card}}\n{{/each}}\n"},
		{src: `{{#each items}}{{> data}}{{/each}}{{> data}}`},
		{src: `{{m.k}} {{m.missing}} {{a.x}} {{a.n}} {{a.nilv}} {{a.sub.deep}} {{a.list}} {{#if a.n}}n{{/if}} {{#if a.nilv}}v{{else}}nv{{/if}}`},
		{src: `{{nil.name}}|{{#if nil}}y{{else}}n{{/if}}|{{nil}}|{{one.sub.name}}|{{missing}}|{{one.missing}}|{{items.missing}}`},
		{src: `{{items.[0].name}} {{items.[1].sub.name}} {{items.[9].name}} {{one.tags.[0]}} {{items}}`},
		{src: "{{#each items}}  {{~name~}}  {{/each}}|{{~#if yes~}} x {{~/if~}}|\n  {{~title}}  \n"},
		{src: "{{#if yes}}\n  line\n{{else}}\n  other\n{{/if}}\n  {{#each items}}\n    {{name}}\n  {{/each}}\nend"},
		{src: `{{! c }}a{{!-- {{title}} --}}b`},
		{src: `{{#if "x"}}s{{/if}}{{#if 0}}z{{/if}}{{#if ""}}e{{/if}}{{#if true}}t{{/if}}{{"title"}}{{1}}{{true}}`},
		{src: `{{#if (eq zero 0)}}a{{/if}}{{#if (eq pi 3.14159)}}b{{/if}}{{#if (eq u 2)}}c{{/if}}{{#if (eq title "x")}}d{{/if}}{{#if (eq missing other)}}e{{/if}}{{#if (eq kind "note")}}f{{/if}}`},
		{src: `{{eq "a" "a"}} {{eq 1 2}} {{eq yes true}} {{eq one one}} {{eq items items}} {{#each items}}{{#if (eq name "b")}}B{{else if (eq @index 0)}}zero{{/if}}{{/each}}`},
		{src: `{{#each items}}{{@index}}{{@key}}{{@length}}{{/each}}{{@index}}{{@first}}{{@length}}{{@root.title}}{{@root}}`},
		{src: `{{[title]}} {{one.[name]}} {{this.title}} {{./title}} {{this}}`},
		// Left to raymond: a method, a list as context, each over a map or
		// a struct, other helpers, hash arguments, block parameters.
		{src: `{{#with items}}{{name}}{{/with}}`, decline: true},
		{src: `{{#each m}}{{@key}}={{this}}{{/each}}`, decline: true},
		{src: `{{#each one}}{{@key}}{{/each}}`, decline: true},
		{src: `{{lookup one "name"}}`, decline: true},
		{src: `{{#if zero includeZero=true}}z{{/if}}`, decline: true},
		{src: `{{#each items as |it|}}{{it.name}}{{/each}}`, decline: true},
		{src: `{{#items}}{{name}}{{/items}}`, decline: true},
		{src: `{{> (lookup . "p")}}`, decline: true},
		{src: `{{eq 1}}`, decline: true},
		{src: `{{hidden}}`, decline: true},
		{src: `{{> missing}}`, decline: true},
	} {
		if declined := check(t, tc.src, partials, testRoot()); declined != tc.decline {
			t.Errorf("%q: declined = %v; want %v", tc.src, declined, tc.decline)
		}
	}
	// A method raymond calls: the run declines and leaves it to raymond.
	none := parsePartials(t, nil)
	if !check(t, `{{label}}`, none, withMethod{X: "m"}) {
		t.Error("{{label}} on a type with a Label method did not decline")
	}
	// Contexts that are not structs.
	for _, ctx := range []any{nil, "str", 3, []string{"a"}, map[string]any{"title": "mt", "items": []any{map[string]any{"name": "mi"}}}} {
		check(t, `{{title}}{{#each items}}{{name}}{{../title}}{{/each}}{{this}}{{@root}}`, none, ctx)
	}
}

// TestEscapeLikeRaymond: every character raymond.Escape replaces, and no
// other.
func TestEscapeLikeRaymond(t *testing.T) {
	var all strings.Builder
	for c := rune(0); c < 200; c++ {
		all.WriteRune(c)
	}
	for _, s := range []string{"", "plain", all.String(), "&&<<>>\"\"''``==", "日本語 & <tag>"} {
		if got, want := string(appendEscaped(nil, s)), raymond.Escape(s); got != want {
			t.Errorf("appendEscaped(%q) = %q; raymond.Escape = %q", s, got, want)
		}
	}
}

// gen builds a template from a small grammar over the constructs the
// compiled evaluator covers and the fields of testRoot.
type gen struct {
	next func(n int) int
}

var (
	genPaths = []string{"title", "name", "n", "on", "items", "kids", "tags", "one", "one.name", "nil", "nil.name",
		"../name", "../../title", "../title", "@root.title", "this", ".", "m.k", "a.x", "a.n", "@index", "@first",
		"@last", "@key", "@root", "@../index", "items.length", "missing", "zero", "pi", "f32", "yes", "no", "esc",
		"sub", "sub.name", "empty", "u", "lang", "ptrs", "anys", "items.[0].name", "safe", "kind", "key", "[title]"}
	genLits    = []string{`"x"`, `"note"`, `1`, `0`, `2.5`, `true`, `false`, `"a"`}
	genContent = []string{"x", " ", "\n", "  ", "<&>", "a\n  ", "\n\t", "'q'", " \n "}
)

func (g *gen) pick(list []string) string { return list[g.next(len(list))] }

func (g *gen) param() string {
	switch g.next(4) {
	case 0:
		return g.pick(genLits)
	case 1:
		return "(eq " + g.param() + " " + g.param() + ")"
	}
	return g.pick(genPaths)
}

func (g *gen) body(depth int) string {
	var b strings.Builder
	for range g.next(4) + 1 {
		b.WriteString(g.stmt(depth))
	}
	return b.String()
}

func (g *gen) stmt(depth int) string {
	tl, tr := "", ""
	if g.next(5) == 0 {
		tl = "~"
	}
	if g.next(5) == 0 {
		tr = "~"
	}
	switch k := g.next(11); {
	case k == 0 || depth > 3:
		return g.pick(genContent)
	case k == 1:
		return "{{" + tl + g.pick(genPaths) + tr + "}}"
	case k == 2:
		return "{{{" + g.pick(genPaths) + "}}}"
	case k == 3:
		return "{{" + tl + "& " + g.pick(genPaths) + tr + "}}"
	case k == 4 || k == 5:
		h := []string{"if", "unless", "with", "each"}[g.next(4)]
		s := "{{" + tl + "#" + h + " " + g.param() + tr + "}}" + g.body(depth+1)
		switch g.next(3) {
		case 1:
			s += "{{else}}" + g.body(depth+1)
		case 2:
			s += "{{else if " + g.param() + "}}" + g.body(depth+1) + "{{else}}" + g.body(depth+1)
		}
		return s + "{{" + tl + "/" + h + tr + "}}"
	case k == 6:
		p := []string{"card", "lines", "list", "outer", "data"}[g.next(5)]
		arg := ""
		if g.next(2) == 0 {
			arg = " " + g.pick(genPaths)
		}
		if g.next(2) == 0 {
			return "\n  {{> " + p + arg + "}}\n"
		}
		return "{{" + tl + "> " + p + arg + tr + "}}"
	case k == 7:
		return "{{!" + g.pick(genContent) + "}}"
	case k == 8:
		return "{{eq " + g.param() + " " + g.param() + "}}"
	case k == 9:
		return "{{" + g.pick(genLits) + "}}"
	}
	return "\n" + g.stmt(depth+1) + "\n"
}

// TestCompiledRandom runs a few thousand generated templates (a fixed
// seed: the same ones every time).
func TestCompiledRandom(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(8, 2026))
	g := &gen{next: rnd.IntN}
	partials := parsePartials(t, testPartials)
	declined, n := 0, 3000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		src := g.body(0)
		if check(t, src, partials, testRoot()) {
			declined++
		}
		if t.Failed() {
			t.Fatalf("template %d failed", i)
		}
	}
	t.Logf("%d templates, %d left to raymond", n, declined)
	if declined > n/3 {
		t.Errorf("%d of %d generated templates declined: the grammar should mostly stay within the compiled subset", declined, n)
	}
}

// FuzzCompiled drives the grammar with fuzz input: identical output
// wherever raymond renders, and no panic ever.
func FuzzCompiled(f *testing.F) {
	for _, s := range []string{"", "\x04\x01\x02", "\x05\x03\x00\x01\x06\x02", fmt.Sprint(strings.Repeat("\x07\x04", 20))} {
		f.Add([]byte(s))
	}
	partials := parsePartials(f, testPartials)
	f.Fuzz(func(t *testing.T, b []byte) {
		i := 0
		g := &gen{next: func(n int) int {
			if i >= len(b) {
				return 0
			}
			i++
			return int(b[i-1]) % n
		}}
		check(t, g.body(0), partials, testRoot())
	})
}
