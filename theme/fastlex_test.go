package theme

import (
	"testing"

	"github.com/mailgun/raymond/v2/ast"
	"github.com/mailgun/raymond/v2/parser"
)

// sameTree checks that parseFolded gives the tree parser.Parse gives
// (ast.Print shows every node, content and strip flag) and the same
// error or none.
func sameTree(t *testing.T, name, src string) {
	t.Helper()
	want, werr := parser.Parse(src)
	got, gerr := parseFolded(src)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: parseFolded error %v; parser.Parse error %v", name, gerr, werr)
	}
	if werr != nil {
		if gerr.Error() != werr.Error() {
			t.Errorf("%s: error %q; want %q", name, gerr, werr)
		}
		return
	}
	if g, w := ast.Print(got), ast.Print(want); g != w {
		t.Errorf("%s: folded tree differs\n got: %s\nwant: %s", name, g, w)
	}
}

// TestFoldedParseOfShippedTemplates: every template of the shipped
// themes and of testdata parses to the same tree folded or not.
func TestFoldedParseOfShippedTemplates(t *testing.T) {
	for path, src := range shippedTemplates(t) {
		sameTree(t, path, src)
	}
}

// TestFoldedParseEdges: the constructs around which folding could go
// wrong.
func TestFoldedParseEdges(t *testing.T) {
	for name, src := range map[string]string{
		"standalone block":     "<ul>\n  {{#each xs}}\n  <li>long content here</li>\n  {{/each}}\n</ul>\n",
		"strip":                "<p>  some long text  {{~x~}}  more long text  </p>",
		"escaped mustache":     `plain long text \{{not a tag}} and more long text`,
		"escaped escape":       `plain long text \\{{x}} and more long text`,
		"comment":              "long text before {{! a comment }} long text after",
		"dash comment":         "long text before {{!-- a }} comment --}} long text after",
		"triple":               "long text before {{{html}}} long text after",
		"braces in content":    "long text { with } braces and more long text {{x}}",
		"standalone partial":   "<div>\n    {{> part}}\n</div>\n",
		"else chain":           "{{#if a}}\n  long text a\n{{else if b}}\n  long text b\n{{else}}\n  long text c\n{{/if}}\n",
		"unicode":              "日本語の長い文章です。 {{x}} ﾃｽﾄ　全角スペース　の後",
		"unclosed":             "long text before {{x",
		"unclosed block":       "{{#if a}} long text without end",
		"private use in input": "long text \U000F0001 here {{x}}",
		"crlf":                 "<p>\r\n  {{#if a}}\r\n  long text here\r\n  {{/if}}\r\n</p>",
	} {
		sameTree(t, name, src)
	}
}

// FuzzFoldedParse: any input parses to the same tree, or fails the same
// way, folded or not.
func FuzzFoldedParse(f *testing.F) {
	for _, s := range []string{"<p>long content</p>{{x}}", "{{#if a}}\n  text text text\n{{/if}}", `\{{x}} long long long`, "{{!-- c --}} long text here"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		want, werr := parseNoPanic(src)
		got, gerr := parseFoldedNoPanic(src)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: parseFolded error %v; parser.Parse error %v", src, gerr, werr)
		}
		if werr == nil && ast.Print(got) != ast.Print(want) {
			t.Fatalf("%q: folded tree differs", src)
		}
	})
}

func parseNoPanic(src string) (p *ast.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, errPanic
		}
	}()
	return parser.Parse(src)
}

func parseFoldedNoPanic(src string) (p *ast.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, errPanic
		}
	}()
	return parseFolded(src)
}

var errPanic = &panicError{}

type panicError struct{}

func (*panicError) Error() string { return "panic" }
