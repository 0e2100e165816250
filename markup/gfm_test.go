package markup

import (
	"strings"
	"testing"
)

// gfmCases pin the output of murlog's own GFM plug-ins (tables,
// strikethrough, task lists, footnotes) and of the article autolinks.
var gfmCases = []struct {
	name, in, want string
}{
	// Tables.
	{"table alignment", "| a | b | c | d |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |",
		"<table>\n<thead>\n<tr>\n<th align=\"left\">a</th>\n<th align=\"center\">b</th>\n<th align=\"right\">c</th>\n<th>d</th>\n" +
			"</tr>\n</thead>\n<tbody>\n<tr>\n<td align=\"left\">1</td>\n<td align=\"center\">2</td>\n<td align=\"right\">3</td>\n<td>4</td>\n" +
			"</tr>\n</tbody>\n</table>\n"},
	{"table without body", "| a |\n| - |", "<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n</table>\n"},
	{"table without outer pipes", "a | b\n-|-\n1",
		"<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td></td>\n</tr>\n</tbody>\n</table>\n"},
	{"table extra cells dropped", "|a|\n|-|\n|1|2|", "<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n</tr>\n</tbody>\n</table>\n"},
	{"table escaped pipes", "| `a\\|b` | c \\| d |\n|---|---|",
		"<table>\n<thead>\n<tr>\n<th><code>a|b</code></th>\n<th>c | d</th>\n</tr>\n</thead>\n</table>\n"},
	{"table inline markup", "| *em* | [l](/x) |\n|---|---|",
		"<table>\n<thead>\n<tr>\n<th><em>em</em></th>\n<th><a href=\"/x\" rel=\"nofollow noreferrer\">l</a></th>\n</tr>\n</thead>\n</table>\n"},
	{"table after paragraph line", "intro\n| a |\n|---|\n| b |\nlazy",
		"<p>intro</p>\n<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>b</td>\n</tr>\n<tr>\n<td>lazy</td>\n</tr>\n</tbody>\n</table>\n"},
	{"table ends at blank line", "| a |\n|---|\n| b |\n\nafter",
		"<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>b</td>\n</tr>\n</tbody>\n</table>\n<p>after</p>"},
	{"table in list item", "- | a |\n  |---|",
		"<ul>\n<li>\n<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n</table>\n</li>\n</ul>"},
	{"header and delimiter must match", "| a | b |\n|---|", "<p>| a | b |\n|---|</p>"},
	{"indented delimiter is text", "Foo\n    ---", "<p>Foo\n---</p>"},
	{"setext heading wins", "Foo\n---", `<h2 id="user-content-foo">Foo</h2>`},

	// Strikethrough.
	{"strikethrough", "~~two~~ ~one~", "<p><del>two</del> <del>one</del></p>"},
	{"three tildes are text", "a ~~~no~~~ b", "<p>a ~~~no~~~ b</p>"},
	{"unequal runs do not pair", "~~a~ b", "<p>~~a~ b</p>"},
	{"strikethrough spans markup", "~~a *b* c~~", "<p><del>a <em>b</em> c</del></p>"},
	{"no strikethrough across paragraphs", "~~a\n\nb~~", "<p>~~a</p>\n<p>b~~</p>"},

	// Task lists.
	{"task list", "- [ ] todo\n- [x] done\n- [X] Done", "<ul>\n<li>☐ todo</li>\n<li>☑ done</li>\n<li>☑ Done</li>\n</ul>"},
	{"empty task", "- [ ]", "<ul>\n<li>☐ </li>\n</ul>"},
	{"task needs space", "- [x]done", "<ul>\n<li>[x]done</li>\n</ul>"},
	{"loose task list", "1. [x] a\n\n   more", "<ol>\n<li>\n<p>☑ a</p>\n<p>more</p>\n</li>\n</ol>"},
	{"not a task outside lists", "[ ] x\n\n> [ ] y", "<p>[ ] x</p>\n<blockquote>\n<p>[ ] y</p>\n</blockquote>"},
	{"task box only first", "- a [ ] b", "<ul>\n<li>a [ ] b</li>\n</ul>"},
	{"task with link", "- [ ] [x](/y)", "<ul>\n<li>☐ <a href=\"/y\" rel=\"nofollow noreferrer\">x</a></li>\n</ul>"},

	// Footnotes.
	{"footnotes", "a[^1] b[^note] c[^1] d[^none]\n\n[^note]: Second.\n[^1]: First.\n\n    Para.\n\n[^unused]: x",
		`<p>a<sup id="user-content-fnref-1"><a href="#user-content-fn-1" class="footnote-ref" rel="nofollow noreferrer">1</a></sup>` +
			` b<sup id="user-content-fnref-2"><a href="#user-content-fn-2" class="footnote-ref" rel="nofollow noreferrer">2</a></sup>` +
			` c<sup id="user-content-fnref-1-2"><a href="#user-content-fn-1" class="footnote-ref" rel="nofollow noreferrer">1</a></sup> d[^none]</p>` + "\n" +
			"<div class=\"footnotes\">\n<hr/>\n<ol>\n<li id=\"user-content-fn-1\">\n<p>First.</p>\n" +
			"<p>Para.\u00a0<a href=\"#user-content-fnref-1\" class=\"footnote-backref\" rel=\"nofollow noreferrer\">\u21a9\ufe0e</a>" +
			"\u00a0<a href=\"#user-content-fnref-1-2\" class=\"footnote-backref\" rel=\"nofollow noreferrer\">\u21a9\ufe0e</a></p>\n</li>\n" +
			"<li id=\"user-content-fn-2\">\n<p>Second.\u00a0<a href=\"#user-content-fnref-2\" class=\"footnote-backref\" rel=\"nofollow noreferrer\">\u21a9\ufe0e</a></p>\n</li>\n" +
			"</ol>\n</div>\n"},
	{"footnote after bang, labels ignore case", "Wow![^A]\n\n[^a]: x",
		`<p>Wow!<sup id="user-content-fnref-1"><a href="#user-content-fn-1" class="footnote-ref" rel="nofollow noreferrer">1</a></sup></p>` + "\n" +
			"<div class=\"footnotes\">\n<hr/>\n<ol>\n<li id=\"user-content-fn-1\">\n<p>x\u00a0<a href=\"#user-content-fnref-1\" class=\"footnote-backref\" rel=\"nofollow noreferrer\">\u21a9\ufe0e</a></p>\n</li>\n</ol>\n</div>\n"},
	{"footnote ending in a list", "x[^1]\n\n[^1]: - a\n    - b",
		`<p>x<sup id="user-content-fnref-1"><a href="#user-content-fn-1" class="footnote-ref" rel="nofollow noreferrer">1</a></sup></p>` + "\n" +
			"<div class=\"footnotes\">\n<hr/>\n<ol>\n<li id=\"user-content-fn-1\">\n<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n" +
			"\u00a0<a href=\"#user-content-fnref-1\" class=\"footnote-backref\" rel=\"nofollow noreferrer\">\u21a9\ufe0e</a></li>\n</ol>\n</div>\n"},
	{"first definition wins", "x[^1]\n\n[^1]: one\n\n[^1]: two",
		`<p>x<sup id="user-content-fnref-1"><a href="#user-content-fn-1" class="footnote-ref" rel="nofollow noreferrer">1</a></sup></p>` + "\n" +
			"<div class=\"footnotes\">\n<hr/>\n<ol>\n<li id=\"user-content-fn-1\">\n<p>one\u00a0<a href=\"#user-content-fnref-1\" class=\"footnote-backref\" rel=\"nofollow noreferrer\">\u21a9\ufe0e</a></p>\n</li>\n</ol>\n</div>\n"},
	{"definition interrupts paragraph, lazy line", "text\n[^1]: note\nlazy\n\nref[^1]",
		"<p>text</p>\n" + `<p>ref<sup id="user-content-fnref-1"><a href="#user-content-fn-1" class="footnote-ref" rel="nofollow noreferrer">1</a></sup></p>` + "\n" +
			"<div class=\"footnotes\">\n<hr/>\n<ol>\n<li id=\"user-content-fn-1\">\n<p>note\nlazy\u00a0<a href=\"#user-content-fnref-1\" class=\"footnote-backref\" rel=\"nofollow noreferrer\">\u21a9\ufe0e</a></p>\n</li>\n</ol>\n</div>\n"},
	{"unreferenced definitions vanish", "[^1]: gone\n\ntext", "<p>text</p>"},

	// CJK.
	{"east asian line break", "日本語の\n文章です。\nEnglish\ntext", "<p>日本語の文章です。\nEnglish\ntext</p>"},
	{"escaped space", "**太郎**\\ さん", "<p><strong>太郎</strong>さん</p>"},

	// Autolinks in articles.
	{"www link", "see www.example.com/x.", `<p>see <a href="http://www.example.com/x" rel="nofollow noopener noreferrer" target="_blank">www.example.com/x</a>.</p>`},
	{"email", "mail bob.b+x@mail.example.org.", `<p>mail <a href="mailto:bob.b+x@mail.example.org" rel="nofollow noreferrer">bob.b+x@mail.example.org</a>.</p>`},
	{"email after japanese", "連絡はbob@example.orgまで", `<p>連絡は<a href="mailto:bob@example.org" rel="nofollow noreferrer">bob@example.org</a>まで</p>`},
	{"not emails", "v1.2@3.4 a@b.c_ a@b a@b.example@c x/y@z.example", "<p>v1.2@3.4 a@b.c_ a@b a@b.example@c x/y@z.example</p>"},
	{"no autolinks in code", "`www.example.com bob@example.org`", "<p><code>www.example.com bob@example.org</code></p>"},
	{"www inside word", "awww.example.com foo.www.example.com", "<p>awww.example.com foo.www.example.com</p>"},
	{"www after japanese and parenthesis", "詳細はwww.example.com (www.example.org)",
		`<p>詳細は<a href="http://www.example.com" rel="nofollow noopener noreferrer" target="_blank">www.example.com</a>` +
			` (<a href="http://www.example.org" rel="nofollow noopener noreferrer" target="_blank">www.example.org</a>)</p>`},
}

// TestArticleGFM checks Article against gfmCases.
func TestArticleGFM(t *testing.T) {
	t.Parallel()
	r := testRenderer()
	for _, tt := range gfmCases {
		t.Run(tt.name, func(t *testing.T) {
			// Block output ends with a newline; the tables need not say so.
			got := r.Article(tt.in).HTML
			if strings.TrimSuffix(got, "\n") != strings.TrimSuffix(tt.want, "\n") {
				t.Errorf("Article(%q).HTML\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestArticleOutputIsSanitizerStable checks that everything the GFM
// plug-ins produce is allowed markup: sanitizing Article output again may
// rewrite link attributes but must not remove any element.
func TestArticleOutputIsSanitizerStable(t *testing.T) {
	t.Parallel()
	in := benchArticle + "\n\n<details open><summary>s</summary>b</details>\n\n![i](https://img.example/i.png)"
	got := testRenderer().Article(in).HTML
	if again := sanitized(got); strings.Count(again, "<") != strings.Count(got, "<") {
		t.Errorf("sanitizing Article output again changed its markup:\n got %s\nagain %s", got, again)
	}
}
