package markup

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
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
// hashtags and mentions in ordinary text are linked and collected, and bare
// URLs, "www." hosts and e-mail addresses become links (GFM's autolinks);
// text in links, code spans and code blocks is left alone.
func (r *Renderer) Article(markdown string) Result {
	if !utf8.ValidString(markdown) {
		markdown = strings.ToValidUTF8(markdown, "\uFFFD")
	}
	markdown = stripControls(markdown)
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
	clean, ok := sanitizeHTML(buf.String(), ArticlePolicy())
	if !ok {
		// Markdown nested too deeply for the HTML parser (hundreds of
		// block quotes, say): the source as a plain note is still safe.
		return r.Note(markdown)
	}

	var b strings.Builder
	b.Grow(len(clean) + len(clean)/8)
	l := linker{r: r, b: &b, auto: true}
	linkifyHTML(&l, clean)
	return Result{HTML: b.String(), Tags: l.c.tags, Mentions: l.c.mentions}
}

// markdown returns the goldmark instance, building it on first use. GFM
// tables, strikethrough, task lists and footnotes come from murlog's own
// plug-ins (gfm_*.go) rather than goldmark/extension: linking it costs
// every CGI process 0.5–1 ms (its package initialisation builds regular
// expressions and attribute filters), and its output differs from
// GitHub's where ours does not (docs/benchmarks.md, "Fixes (issue 15)";
// TestOwnGFMAgainstGoldmarkExtensions pins the differences). Bare URLs
// and e-mail addresses are linked after sanitizing, by linkifyHTML.
func (r *Renderer) markdown() goldmark.Markdown {
	r.mdOnce.Do(func() {
		r.md = goldmark.New(
			goldmark.WithParserOptions(
				parser.WithAutoHeadingID(),
				// "\ " separates emphasis from CJK text without a space.
				parser.WithEscapedSpace(),
				parser.WithBlockParsers(util.Prioritized(footnoteDefParser{}, 999)),
				parser.WithInlineParsers(
					// Both before the link parser (200), which also
					// triggers on '['.
					util.Prioritized(taskBoxParser{}, 50),
					util.Prioritized(footnoteRefParser{}, 150),
					util.Prioritized(strikethroughParser{}, 500),
				),
				parser.WithParagraphTransformers(util.Prioritized(tableParagraphTransformer{}, 200)),
				parser.WithASTTransformers(
					util.Prioritized(tableCodeTransformer{}, 100),
					util.Prioritized(footnoteTransformer{}, 200),
				),
			),
			goldmark.WithRendererOptions(
				html.WithUnsafe(),
				// Japanese paragraphs wrapped in the source must not gain
				// spaces between characters.
				html.WithEastAsianLineBreaks(html.EastAsianLineBreaksSimple),
				html.WithWriter(html.NewWriter(html.WithEscapedSpace())),
				renderer.WithNodeRenderers(
					util.Prioritized(tableRenderer{}, 500),
					util.Prioritized(gfmInlineRenderer{}, 500),
					util.Prioritized(footnoteRenderer{}, 500),
				),
			),
		)
	})
	return r.md
}

// linkifyHTML copies sanitized HTML to l.b, linking hashtags, mentions,
// bare URLs and (with l.auto) e-mail addresses in text nodes outside <a>,
// <code> and <pre>. It works on tokens, never on raw markup, so a '#'
// inside an attribute can never be touched. Tags are copied byte for byte:
// the input is the sanitizer's output, which is already well formed.
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
