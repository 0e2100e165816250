package markup

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer/html"
)

// The measurement behind keeping murlog's own GFM plug-ins (gfm_*.go)
// instead of goldmark/extension (docs/benchmarks.md, "GFM: own plug-ins
// or goldmark's extensions"). Linking goldmark/extension costs every CGI
// process its package initialisation, which compiles its regular
// expressions, and its output differs from GitHub's in the cases below.
// The test renders gfmCases and the benchmark article through goldmark's
// Table, Strikethrough, TaskList and Footnote extensions and the same
// sanitizer and autolinker as Article, and fails when a difference
// appears or goes away (a goldmark upgrade), so the comparison is redone
// rather than left stale.

// extDifferences are the gfmCases whose output through goldmark's
// extensions differs from Article's, and why each is a fault of the
// extension's output (compared with GitHub's rendering and the GFM spec).
var extDifferences = map[string]string{
	"unequal runs do not pair":  "Strikethrough pairs runs of unequal length: \"~~a~ b\" gives \"~<del>a</del> b\"; GitHub pairs equal runs only",
	"task list":                 "TaskList renders <input type=checkbox>, which the sanitizer removes: the boxes vanish (a renderer of murlog's would be needed)",
	"empty task":                "as \"task list\"",
	"loose task list":           "as \"task list\"",
	"task with link":            "as \"task list\"",
	"task needs space":          "TaskList takes \"[x]done\" as a task; GFM wants whitespace after the box",
	"footnotes":                 "Footnote's ids (fn:1, fnref:1, fnref1:1) carry ':', which the sanitizer's id rules drop: every footnote link points nowhere",
	"footnote ending in a list": "as \"footnotes\"",
	"first definition wins":     "as \"footnotes\"",
	"definition interrupts paragraph, lazy line": "as \"footnotes\"",
	"footnote after bang, labels ignore case":    "Footnote compares labels case-sensitively: [^A] does not find [^a]:, which link labels (and GitHub) match",
}

// footnoteIDs matches the footnote ids and links of either renderer, to
// compare what is around them.
var footnoteIDs = regexp.MustCompile(` (id|href)="#?user-content-fn[^"]*"`)

// extArticle renders markdown as Article does, with goldmark's extensions
// in place of murlog's plug-ins.
func extArticle(r *Renderer, md goldmark.Markdown, markdown string) string {
	var buf bytes.Buffer
	ctx := parser.NewContext(parser.WithIDs(newHeadingIDs()))
	if err := md.Convert([]byte(stripControls(markdown)), &buf, parser.WithContext(ctx)); err != nil {
		return "error: " + err.Error()
	}
	clean, _ := sanitizeHTML(buf.String(), ArticlePolicy())
	var b strings.Builder
	linkifyHTML(&linker{r: r, b: &b, auto: true}, clean)
	return b.String()
}

func TestOwnGFMAgainstGoldmarkExtensions(t *testing.T) {
	t.Parallel()
	md := goldmark.New(
		goldmark.WithExtensions(
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
			extension.Strikethrough, extension.TaskList, extension.Footnote),
		goldmark.WithParserOptions(parser.WithAutoHeadingID(), parser.WithEscapedSpace()),
		goldmark.WithRendererOptions(html.WithUnsafe(), html.WithEastAsianLineBreaks(html.EastAsianLineBreaksSimple),
			html.WithWriter(html.NewWriter(html.WithEscapedSpace()))),
	)
	r := testRenderer()
	same := 0
	for _, c := range gfmCases {
		own, ext := r.Article(c.in).HTML, extArticle(r, md, c.in)
		why, known := extDifferences[c.name]
		switch {
		case own == ext && known:
			t.Errorf("%s: goldmark's extensions now give Article's output (%q); the difference %q is gone: measure again", c.name, own, why)
		case own != ext && !known:
			t.Errorf("%s: %q\n own %q\n ext %q\nwant them equal, or the difference explained in extDifferences", c.name, c.in, own, ext)
		case own == ext:
			same++
		}
	}
	// The benchmark article mixes every feature: its footnotes and task
	// boxes differ as above, the rest must not.
	own, ext := footnoteIDs.ReplaceAllString(r.Article(benchArticle).HTML, ""), footnoteIDs.ReplaceAllString(extArticle(r, md, benchArticle), "")
	own, ext = strings.ReplaceAll(own, "<li>☑ ", "<li>"), strings.ReplaceAll(ext, "<li> ", "<li>")
	if strings.TrimSpace(own) != strings.TrimSpace(ext) {
		t.Errorf("the benchmark article differs beyond task boxes and footnote ids:\n own %s\n ext %s", own, ext)
	}
	t.Logf("%d of %d GFM cases render the same; %d differ, each explained", same, len(gfmCases), len(extDifferences))

	// Bare addresses are linked after sanitizing by linkifyHTML, which
	// notes share; goldmark's Linkify would also link what is not one.
	withLinkify := goldmark.New(goldmark.WithExtensions(extension.Linkify))
	in := "v1.2@3.4 x/y@z.example"
	if got := extArticle(r, withLinkify, in); !strings.Contains(got, "mailto:v1.2@3.4") || !strings.Contains(got, "mailto:x/y@z.example") {
		t.Errorf("goldmark's Linkify on %q: %s; it used to link both as e-mail addresses (Article links neither): measure again", in, got)
	}
}
