package markup

import (
	"reflect"
	"strings"
	"testing"
)

func TestArticleHTML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []string // fragments that must appear
		notWant []string // fragments that must not appear
	}{
		{name: "empty", in: "  \n\n", want: nil, notWant: []string{"<p>"}},
		{name: "paragraph and emphasis", in: "Hello *world* **bold** ~~gone~~",
			want: []string{"<p>Hello <em>world</em> <strong>bold</strong> <del>gone</del></p>"}},
		{name: "heading ids", in: "# Hello World\n\n## Hello World\n\n## Go (programming language)",
			want: []string{`<h1 id="user-content-hello-world">Hello World</h1>`, `<h2 id="user-content-hello-world-1">Hello World</h2>`,
				`<h2 id="user-content-go-programming-language">`}},
		{name: "japanese heading id", in: "## はじめに\n\n## はじめに",
			want: []string{`<h2 id="user-content-はじめに">はじめに</h2>`, `<h2 id="user-content-はじめに-1">`}},
		{name: "emoji-only heading id", in: "## 🎉", want: []string{`<h2 id="user-content-section">🎉</h2>`}},
		{name: "setext heading id", in: "Title\n=====", want: []string{`<h1 id="user-content-title">Title</h1>`}},
		{name: "lists", in: "- a\n- b\n\n3. c\n4. d",
			want: []string{"<ul>\n<li>a</li>\n<li>b</li>\n</ul>", `<ol start="3">`}},
		{name: "blockquote and hr", in: "> quote\n\n---", want: []string{"<blockquote>\n<p>quote</p>\n</blockquote>", "<hr/>"}},
		{name: "fenced code keeps language", in: "```go\nfmt.Println(\"<hi>\") // #notag @a@b.example\n```",
			want:    []string{`<pre><code class="language-go">fmt.Println(&#34;&lt;hi&gt;&#34;) // #notag @a@b.example`},
			notWant: []string{"hashtag", "h-card"}},
		{name: "code language injection", in: "```go\" onclick=\"x\nx\n```", notWant: []string{"onclick"}},
		{name: "table", in: "| a | b |\n|:--|--:|\n| 1 | 2 |",
			want: []string{"<table>", `<th align="left">a</th>`, `<td align="right">2</td>`}},
		{name: "task list", in: "- [ ] todo\n- [x] done", want: []string{"<li>☐ todo</li>", "<li>☑ done</li>"},
			notWant: []string{"<input"}},
		{name: "footnote", in: "text[^1]\n\n[^1]: note",
			want: []string{`<sup id="user-content-fnref-1"><a href="#user-content-fn-1" class="footnote-ref"`, `<li id="user-content-fn-1">`,
				`<div class="footnotes">`, `class="footnote-backref"`}},
		{name: "autolink", in: "see https://example.com/a.",
			want: []string{urlHTML("https://example.com/a") + "."}},
		{name: "url after japanese", in: "詳細はhttps://example.com/を参照",
			want: []string{"詳細は" + urlHTML("https://example.com/") + "を参照"}},
		{name: "link", in: "[Go](https://go.dev)",
			want: []string{`<a href="https://go.dev" rel="nofollow noreferrer noopener" target="_blank">Go</a>`}},
		{name: "relative and mailto links", in: "[about](/about) [mail](mailto:a@example.com)",
			want: []string{`<a href="/about" rel="nofollow noreferrer">about</a>`, `href="mailto:a@example.com"`}},
		{name: "image", in: `![cat](https://img.example/cat.png "Cat")`,
			want: []string{`<img src="https://img.example/cat.png" alt="cat" title="Cat"/>`}},
		{name: "image size from raw html", in: `<img src="https://img.example/c.png" width="100" height="50" alt="c">`,
			want: []string{`width="100"`, `height="50"`}},
		{name: "relative image dropped", in: "![x](/local.png)", notWant: []string{"src="}},
		{name: "details and ruby", in: "<details><summary>more</summary>body</details>\n\n<ruby>漢字<rp>(</rp><rt>かんじ</rt><rp>)</rp></ruby>",
			want: []string{"<details><summary>more</summary>body</details>", "<ruby>漢字<rp>(</rp><rt>かんじ</rt><rp>)</rp></ruby>"}},
		{name: "sup sub", in: "H<sub>2</sub>O x<sup>2</sup>", want: []string{"H<sub>2</sub>O x<sup>2</sup>"}},
		{name: "japanese soft line break", in: "日本語の\n文章です。", want: []string{"<p>日本語の文章です。</p>"}},
		{name: "emoji", in: "🎉 party 👨‍👩‍👧", want: []string{"<p>🎉 party 👨‍👩‍👧</p>"}},
		{name: "crlf", in: "a\r\n\r\nb", want: []string{"<p>a</p>\n<p>b</p>"}},

		// XSS attempts.
		{name: "script block", in: "<script>alert(1)</script>\n\nok", want: []string{"<p>ok</p>"},
			notWant: []string{"<script", "alert"}},
		{name: "inline script", in: "a <script>alert(1)</script> b", notWant: []string{"<script", "alert"}},
		{name: "img onerror", in: `<img src=x onerror=alert(1)>`, notWant: []string{"onerror", "alert", `src="x"`}},
		{name: "javascript link", in: "[x](javascript:alert(1))", want: []string{"<p>x</p>"}, notWant: []string{"javascript", "href"}},
		{name: "javascript link mixed case", in: "[x](JaVaScRiPt:alert(1))", notWant: []string{"avascript", "href"}},
		{name: "javascript entity link", in: "[x](&#106;avascript:alert(1))", notWant: []string{"avascript", "href"}},
		{name: "raw javascript href", in: `<a href="javascript:alert(1)">x</a>`, notWant: []string{"javascript", "href"}},
		{name: "data link", in: "[x](data:text/html,<script>alert(1)</script>)", notWant: []string{"data:", "<script"}},
		{name: "javascript image", in: "![x](javascript:alert(1))", notWant: []string{"javascript", "src="}},
		{name: "iframe", in: `<iframe src="https://evil.example"></iframe>`, notWant: []string{"iframe", "evil"}},
		{name: "style element and attribute", in: "<style>p{}</style><p style=\"color:red\">x</p>",
			notWant: []string{"<style", "style="}},
		{name: "event attribute", in: `<p onclick="alert(1)" onmouseover=x>x</p>`, notWant: []string{"onclick", "onmouseover"}},
		{name: "forms", in: `<form action="https://evil.example"><input name="pw"><button>go</button></form>`,
			notWant: []string{"<form", "<input", "<button"}},
		{name: "object embed svg", in: `<object data="x"></object><embed src="x"><svg onload=alert(1)></svg>`,
			notWant: []string{"<object", "<embed", "<svg", "onload"}},
		{name: "heading id injection", in: `<h2 id="user-content-x y" onclick="z">h</h2>`, want: []string{"<h2>h</h2>"}},
		{name: "hostile class", in: `<a href="https://e.example" class="evil mention">x</a>`, notWant: []string{"class="}},
	}
	r := testRenderer()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Article(tt.in).HTML
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Article(%q).HTML\n got %s\nwant it to contain %s", tt.in, got, w)
				}
			}
			for _, nw := range tt.notWant {
				if strings.Contains(got, nw) {
					t.Errorf("Article(%q).HTML\n got %s\nwant it not to contain %s", tt.in, got, nw)
				}
			}
		})
	}
}

func TestArticleEmpty(t *testing.T) {
	t.Parallel()
	r := testRenderer()
	for _, in := range []string{"", " ", "\n\r\n\t"} {
		if got := r.Article(in); !reflect.DeepEqual(got, Result{}) {
			t.Errorf("Article(%q): got %#v; want zero Result", in, got)
		}
	}
}

func TestArticleTagsAndMentions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		want     []string // HTML fragments
		tags     []string
		mentions []Mention
	}{
		{name: "tag in text", in: "I like #golang.", want: []string{"<p>I like " + tagHTML("golang") + ".</p>"},
			tags: []string{"golang"}},
		{name: "japanese tag", in: "「#タグ」と#ゲーム_2026。", want: []string{"「" + tagHTML("タグ") + "」"},
			tags: []string{"タグ"}},
		{name: "tag with underscore emphasis chars", in: "#ゲーム_2026 and #a_b_c", tags: []string{"ゲーム_2026", "a_b_c"}},
		{name: "tag in heading", in: "## About #go", want: []string{`<h2 id="user-content-about-go">About ` + tagHTML("go") + "</h2>"},
			tags: []string{"go"}},
		{name: "tag in list and table", in: "- #one\n\n| #two |\n|---|\n| #three |", tags: []string{"one", "two", "three"}},
		{name: "tag in emphasis", in: "*#em* **#strong**", tags: []string{"em", "strong"}},
		{name: "not in code span", in: "`#code` and `@a@b.example`", want: []string{"<code>#code</code>"}},
		{name: "not in code block", in: "    #indented\n\n```\n#fenced\n```"},
		{name: "not in link text", in: "[#linked @a@b.example](https://e.example)", want: []string{">#linked @a@b.example</a>"}},
		{name: "not in url fragment", in: "https://e.example/#frag and <https://e.example/#auto>"},
		{name: "not in image alt", in: "![#alt](https://img.example/a.png)"},
		{name: "not in attribute", in: `<abbr title="#attr">x</abbr>`},
		{name: "not after bold word", in: "**bold**#notag"},
		{name: "digits only", in: "#123 issue"},
		{name: "new paragraph is a boundary", in: "word\n\n#tag", tags: []string{"tag"}},
		{name: "dedup", in: "#Go #go\n\n## #GO", tags: []string{"Go"}},
		{name: "mention", in: "Hi @alice@Example.com!", want: []string{"Hi " + mentionHTML("alice", "example.com") + "!"},
			mentions: []Mention{{"alice", "example.com"}}},
		{name: "mention not mailto", in: "@bob@example.org and bob@example.org",
			want:     []string{mentionHTML("bob", "example.org"), `href="mailto:bob@example.org"`},
			mentions: []Mention{{"bob", "example.org"}}},
		{name: "dedup mentions", in: "@a@x.example @A@X.example\n\n- @b@y.example",
			mentions: []Mention{{"a", "x.example"}, {"b", "y.example"}}},
		{name: "bare mention", in: "@alice only"},
		{name: "escaped text stays escaped", in: "a &lt;b&gt; #t", want: []string{"a &lt;b&gt; " + tagHTML("t")},
			tags: []string{"t"}},
	}
	r := testRenderer()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := r.Article(tt.in)
			for _, w := range tt.want {
				if !strings.Contains(res.HTML, w) {
					t.Errorf("Article(%q).HTML\n got %s\nwant it to contain %s", tt.in, res.HTML, w)
				}
			}
			if !reflect.DeepEqual(res.Tags, tt.tags) {
				t.Errorf("Article(%q).Tags: got %q; want %q", tt.in, res.Tags, tt.tags)
			}
			if !reflect.DeepEqual(res.Mentions, tt.mentions) {
				t.Errorf("Article(%q).Mentions: got %v; want %v", tt.in, res.Mentions, tt.mentions)
			}
			if tt.tags == nil && strings.Contains(res.HTML, "hashtag") {
				t.Errorf("Article(%q).HTML: got %s; want no hashtag link", tt.in, res.HTML)
			}
			if tt.mentions == nil && strings.Contains(res.HTML, "h-card") {
				t.Errorf("Article(%q).HTML: got %s; want no mention link", tt.in, res.HTML)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", "<p>hi</p>", "<p>hi</p>"},
		{"script", "<p>a<script>alert(1)</script>b</p>", "<p>ab</p>"},
		{"onerror", `<img src="https://e.example/a.png" onerror="alert(1)">`, `<img src="https://e.example/a.png"/>`},
		{"javascript href", `<a href="javascript:alert(1)">x</a>`, "x"},
		{"data src", `<img src="data:image/png;base64,AAAA" alt="a">`, `<img alt="a"/>`},
		{"iframe", `<iframe src="https://e.example"></iframe>ok`, "ok"},
		{"mastodon mention survives", `<span class="h-card"><a href="https://e.example/@a" class="u-url mention">@<span>a</span></a></span>`,
			`<span class="h-card"><a href="https://e.example/@a" class="u-url mention" rel="nofollow noreferrer noopener" target="_blank">@<span>a</span></a></span>`},
		{"mastodon invisible url parts", `<a href="https://e.example/x"><span class="invisible">https://</span><span class="ellipsis">e.example</span></a>`,
			`<a href="https://e.example/x" rel="nofollow noreferrer noopener" target="_blank"><span class="invisible">https://</span><span class="ellipsis">e.example</span></a>`},
		{"unknown class dropped", `<span class="evil">x</span>`, "<span>x</span>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sanitize(tt.in, ArticlePolicy()); got != tt.want {
				t.Errorf("Sanitize(%q)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Hello World", "hello-world"},
		{"  Hello   *World*  ", "hello-world"},
		{"Go (programming language)", "go-programming-language"},
		{"snake_case and kebab-case", "snake_case-and-kebab-case"},
		{"はじめに", "はじめに"},
		{"第1章 概要", "第1章-概要"},
		{"❤️ Love", "love"},
		{"!!!", "section"},
		{"Café Ünïcödé", "café-ünïcödé"},
	}
	for _, tt := range tests {
		if got := slug([]byte(tt.in)); got != tt.want {
			t.Errorf("slug(%q): got %q; want %q", tt.in, got, tt.want)
		}
	}
}
