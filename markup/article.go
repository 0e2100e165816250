package markup

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
	xhtml "golang.org/x/net/html"
)

// Article renders a long-form Markdown article: GFM (tables,
// strikethrough, autolinks, task lists) plus footnotes, with stable heading
// ids. Raw HTML is let through by goldmark but the whole output is then
// sanitized, so the policy alone decides what reaches readers. Finally
// hashtags and mentions in ordinary text are linked and collected; text in
// links, code spans and code blocks is left alone.
func (r *Renderer) Article(markdown string) Result {
	if !utf8.ValidString(markdown) {
		markdown = strings.ToValidUTF8(markdown, "\uFFFD")
	}
	if strings.TrimSpace(markdown) == "" {
		return Result{}
	}
	var buf bytes.Buffer
	buf.Grow(len(markdown) * 2)
	ctx := parser.NewContext(parser.WithIDs(newHeadingIDs()))
	if err := r.markdown().Convert([]byte(markdown), &buf, parser.WithContext(ctx)); err != nil {
		// Rendering into memory cannot fail today; if a future goldmark
		// disagrees, showing the source as a plain note is still safe.
		return r.Note(markdown)
	}
	clean := r.sanitizer().Sanitize(buf.String())

	var b strings.Builder
	b.Grow(len(clean) + len(clean)/8)
	l := linker{r: r, b: &b}
	linkifyHTML(&l, clean)
	return Result{HTML: b.String(), Tags: l.c.tags, Mentions: l.c.mentions}
}

// markdown returns the goldmark instance, building it on first use.
func (r *Renderer) markdown() goldmark.Markdown {
	r.mdOnce.Do(func() {
		r.md = goldmark.New(
			goldmark.WithExtensions(
				extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
				extension.Strikethrough,
				extension.NewLinkify(extension.WithLinkifyAllowedProtocols([]string{"http:", "https:"})),
				extension.TaskList,
				extension.Footnote,
				// Japanese paragraphs wrapped in the source must not gain
				// spaces between characters.
				extension.NewCJK(extension.WithEastAsianLineBreaks(), extension.WithEscapedSpace()),
			),
			goldmark.WithParserOptions(parser.WithAutoHeadingID()),
			goldmark.WithRendererOptions(
				html.WithUnsafe(),
				// Lower priority values register last and win over the
				// TaskList extension's own renderer.
				renderer.WithNodeRenderers(util.Prioritized(taskBoxRenderer{}, 100)),
			),
		)
	})
	return r.md
}

// taskBoxRenderer renders GFM task list boxes as ☐ and ☑ instead of
// <input type="checkbox">: the sanitizer allows no form controls, and remote
// servers would strip them from federated copies anyway.
type taskBoxRenderer struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (taskBoxRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(east.KindTaskCheckBox, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			if n.(*east.TaskCheckBox).IsChecked {
				_, _ = w.WriteString("\u2611 ")
			} else {
				_, _ = w.WriteString("\u2610 ")
			}
		}
		return ast.WalkContinue, nil
	})
}

// linkifyHTML copies sanitized HTML to l.b, linking hashtags, mentions and
// bare URLs in text nodes outside <a>, <code> and <pre>. It works on tokens,
// never on raw markup, so a '#' inside an attribute can never be touched.
// Tags are copied byte for byte: the input is the sanitizer's output, which
// is already well formed.
func linkifyHTML(l *linker, src string) {
	z := xhtml.NewTokenizer(strings.NewReader(src))
	skip := 0    // depth of elements whose text must stay as is
	prev := '\n' // last rune of text in the current block; '\n' is a boundary
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			// io.EOF, or a truncated tail the tokenizer gave up on. The
			// sanitizer's output is complete, so there is nothing to copy.
			return
		case xhtml.TextToken:
			if skip > 0 {
				l.b.Write(z.Raw())
				if t := z.Text(); len(t) > 0 {
					prev, _ = utf8.DecodeLastRune(t)
				}
				continue
			}
			prev = l.text(string(z.Text()), prev, false)
		case xhtml.StartTagToken, xhtml.EndTagToken, xhtml.SelfClosingTagToken:
			l.b.Write(z.Raw())
			name, _ := z.TagName()
			if tt == xhtml.StartTagToken && skipsText(name) {
				skip++
			} else if tt == xhtml.EndTagToken && skipsText(name) && skip > 0 {
				skip--
			}
			if !isInline(name) {
				prev = '\n'
			}
		default:
			l.b.Write(z.Raw())
		}
	}
}

// skipsText reports whether text inside the element must not be linked:
// links cannot nest, and code is shown verbatim.
func skipsText(name []byte) bool {
	switch string(name) {
	case "a", "code", "pre":
		return true
	}
	return false
}

// isInline reports whether the element continues the surrounding text, so
// that "**bold**#tag" is treated like "bold#tag" (no tag) while a tag
// starting a new paragraph or table cell is recognised.
func isInline(name []byte) bool {
	switch string(name) {
	case "a", "em", "strong", "b", "i", "del", "s", "ins", "sup", "sub",
		"kbd", "code", "span", "ruby", "rb", "rt", "rp", "abbr":
		return true
	}
	return false
}
