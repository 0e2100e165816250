package markup

import (
	"strings"
	"testing"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// xssVectors are filter-evasion attempts in the style of the OWASP XSS
// filter evasion cheat sheet. want, when set, is the exact output; every
// output must also pass checkSanitized.
var xssVectors = []struct {
	name, in, want string
}{
	// Script in all its spellings.
	{"script", `<script>alert(1)</script>`, ""},
	{"script uppercase with src", `<SCRIPT SRC=https://xss.example/xss.js></SCRIPT>ok`, "ok"},
	{"script mixed case", `<ScRiPt>alert(1)</sCrIpT>ok`, "ok"},
	{"nested script split", `<scr<script>ipt>alert(1)</scr</script>ipt>`, "ipt&gt;alert(1)ipt&gt;"},
	{"script with extra lt", `<<script>alert(1)//<</script>`, "&lt;"},
	{"script in attribute position", `<p <script>alert(1)</script>>x</p>`, "<p>alert(1)&gt;x</p>"},
	{"unterminated script", `<script>alert(1)`, ""},
	{"script after quote break", `<img """><script>alert(1)</script>">`, "&#34;&gt;"},
	{"script in table", `<table><tr><td>a</td></tr><script>alert(1)</script></table>`,
		"<table><tbody><tr><td>a</td></tr></tbody></table>"},

	// javascript: and other schemes in links.
	{"javascript href", `<a href="javascript:alert(1)">x</a>`, "x"},
	{"javascript uppercase", `<A HREF="JAVASCRIPT:alert(1)">x</A>`, "x"},
	{"javascript tab entity", `<a href="jav&#x09;ascript:alert(1)">x</a>`, "x"},
	{"javascript raw tab", "<a href=\"jav\tascript:alert(1)\">x</a>", "x"},
	{"javascript newline entity", `<a href="jav&#x0A;ascript:alert(1)">x</a>`, "x"},
	{"javascript cr entity", `<a href="jav&#x0D;ascript:alert(1)">x</a>`, "x"},
	{"javascript hex entity", `<a href="&#x6A;avascript:alert(1)">x</a>`, "x"},
	{"javascript padded decimal entities", `<a href="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)">x</a>`, "x"},
	{"javascript named colon", `<a href="javascript&colon;alert(1)">x</a>`, "x"},
	{"javascript leading space", `<a href=" javascript:alert(1)">x</a>`, "x"},
	{"javascript leading control", `<a href="&#1;javascript:alert(1)">x</a>`, "x"},
	{"javascript nul", `<a href="java&#0;script:alert(1)">x</a>`, "x"},
	{"javascript soft hyphen", `<a href="java&shy;script:alert(1)">x</a>`, "x"},
	{"vbscript", `<a href="vbscript:msgbox(1)">x</a>`, "x"},
	{"data html", `<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>`, "x"},
	{"http without host", `<a href="https:alert(1)">x</a>`, "x"},
	{"unquoted javascript", `<a href=javascript:alert(1)>x</a>`, "x"},
	{"link event and style", `<a href="https://e.example/" onclick="alert(1)" style="position:fixed">x</a>`,
		`<a href="https://e.example/" rel="nofollow noreferrer noopener" target="_blank">x</a>`},
	{"rel and target replaced", `<a href="https://e.example/" target="_self" rel="opener">x</a>`,
		`<a href="https://e.example/" rel="nofollow noreferrer noopener" target="_blank">x</a>`},
	{"relative link", `<a href="/about" title="About">x</a>`, `<a href="/about" title="About" rel="nofollow noreferrer">x</a>`},
	{"scheme-relative link is external", `<a href="//e.example/x">x</a>`,
		`<a href="//e.example/x" rel="nofollow noreferrer noopener" target="_blank">x</a>`},
	{"mailto", `<a href="MAILTO:a@example.com">x</a>`, `<a href="mailto:a@example.com" rel="nofollow noreferrer">x</a>`},
	{"nested links", `<a href="https://e.example/"><a href="javascript:alert(1)">x</a></a>`,
		`<a href="https://e.example/" rel="nofollow noreferrer noopener" target="_blank"></a>x`},
	{"title with newline", `<a href="/x" title="a&#10;b">x</a>`, `<a href="/x" rel="nofollow noreferrer">x</a>`},

	// Attribute injection: values are always re-escaped.
	{"quote breakout in title", `<a href="https://e.example/" title='"><script>alert(1)</script>'>x</a>`,
		`<a href="https://e.example/" title="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" rel="nofollow noreferrer noopener" target="_blank">x</a>`},
	{"quote breakout in href", `<a href='https://e.example/"onmouseover="alert(1)'>x</a>`,
		`<a href="https://e.example/%22onmouseover=%22alert%281%29" rel="nofollow noreferrer noopener" target="_blank">x</a>`},
	{"backtick attribute", "<img src=`https://e.example/a.png` onerror=`alert(1)`>", ""},
	{"mailto query escaped", `<a href="mailto:a@example.com?body=<script>">x</a>`,
		`<a href="mailto:a@example.com?body=&lt;script&gt;" rel="nofollow noreferrer">x</a>`},

	// Images.
	{"img onerror", `<img src=x onerror=alert(1)>`, ""},
	{"img onerror keeps valid src", `<IMG SRC="https://e.example/a.png" ONERROR="alert(1)">`, `<img src="https://e.example/a.png"/>`},
	{"img javascript", `<img src="javascript:alert(1)">`, ""},
	{"img data", `<img src="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=" alt="a">`, `<img alt="a"/>`},
	{"img scheme-relative", `<img src="//evil.example/a.png">`, ""},
	{"img relative", `<img src="/a.png">`, ""},
	{"img srcset", `<img src="https://e.example/a.png" srcset="javascript:alert(1) 1x">`, `<img src="https://e.example/a.png"/>`},
	{"img sizes", `<img src="https://e.example/a.png" width="100%" height="50">`, `<img src="https://e.example/a.png" height="50"/>`},
	{"image element alias", `<image src="https://e.example/a.png">`, `<img src="https://e.example/a.png"/>`},

	// SVG and MathML are dropped with their content.
	{"svg onload", `<svg onload=alert(1)>`, ""},
	{"svg script", `<svg><script>alert(1)</script></svg>ok`, "ok"},
	{"svg xlink", `<svg><a xlink:href="javascript:alert(1)"><text x="0" y="20">x</text></a></svg>`, ""},
	{"svg animate", `<svg><animate onbegin=alert(1) attributeName=x dur=1s>`, ""},
	{"svg style mxss", `<svg><style><img src=x onerror=alert(1)></style></svg>`, ""},
	{"math xlink", `<math><mi xlink:href="javascript:alert(1)">x</mi></math>`, ""},
	{"math mglyph mxss", `<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`, ""},
	{"math breakout", `<math><mi><p>x</p></mi></math>`, ""},

	// Style.
	{"style element", `<style>body{background:url("javascript:alert(1)")}</style>ok`, "ok"},
	{"style expression", `<p style="width: expression(alert(1))">x</p>`, "<p>x</p>"},
	{"style import", `<STYLE>@import'https://xss.example/xss.css';</STYLE>`, ""},
	{"link stylesheet", `<link rel="stylesheet" href="https://xss.example/xss.css">ok`, "ok"},

	// Forms.
	{"form action", `<form action="javascript:alert(1)"><button>go</button></form>`, "go"},
	{"formaction", `<button formaction="javascript:alert(1)">x</button>`, "x"},
	{"input image", `<input type="image" src="https://e.example/a.png" onerror="alert(1)">`, ""},
	{"textarea", `<textarea><script>alert(1)</script></textarea>`, ""},
	{"select", `<select><option>a<script>alert(1)</script></option></select>`, ""},

	// Embedding and document-level elements.
	{"iframe", `<iframe src="javascript:alert(1)"></iframe>`, ""},
	{"iframe srcdoc", `<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>`, ""},
	{"object", `<object data="javascript:alert(1)"><param name=x></object>`, ""},
	{"embed", `<embed src="javascript:alert(1)">`, ""},
	{"applet", `<applet code="x">fallback</applet>`, ""},
	{"meta refresh", `<meta http-equiv="refresh" content="0;url=javascript:alert(1)">`, ""},
	{"base", `<base href="javascript:alert(1)//">`, ""},
	{"title", `<title>t</title>ok`, "ok"},
	{"template", `<template><script>alert(1)</script></template>`, ""},
	{"noscript mxss", `<noscript><p title="</noscript><img src=x onerror=alert(1)>">`, "&#34;&gt;"},
	{"xmp", `<xmp><script>alert(1)</script></xmp>`, ""},
	{"plaintext", `<plaintext><script>alert(1)</script>`, ""},

	// Comments and CDATA.
	{"comment", `<!--<script>alert(1)</script>-->ok`, "ok"},
	{"conditional comment", `<!--[if gte IE 4]><script>alert(1)</script><![endif]-->`, ""},
	{"comment bang close", `<!-- --!><script>alert(1)</script> -->`, " --&gt;"},
	{"unterminated comment", `<p>a</p><!--<script>`, "<p>a</p>"},
	{"cdata", `<![CDATA[<script>alert(1)</script>]]>`, "alert(1)]]&gt;"},

	// Allowed markup keeps only allowed attributes.
	{"event handlers", `<p onclick="alert(1)" onmouseover=x>x</p>`, "<p>x</p>"},
	{"details ontoggle", `<details open ontoggle=alert(1)><summary>s</summary>b</details>`,
		`<details open=""><summary>s</summary>b</details>`},
	{"heading id", `<h2 id="javascript:alert(1)">h</h2><h3 id="ok-id">i</h3>`, `<h2>h</h2><h3 id="user-content-ok-id">i</h3>`},
	{"footnote ids", `<sup id="fnref-1-2">1</sup><li id="user-content-fn-1">x</li><li id="fn:x">y</li>`,
		`<sup id="user-content-fnref-1-2">1</sup><li id="user-content-fn-1">x</li><li>y</li>`},
	{"clobbering ids", `<h1 id="config">a</h1><li id="location">b</li><p id="x">c</p>`,
		`<h1 id="user-content-config">a</h1><li id="user-content-location">b</li><p>c</p>`},
	{"fragment links follow", `<a href="#config">a</a><a href="#user-content-x">b</a><a href="/p#config">c</a>`,
		`<a href="#user-content-config" rel="nofollow noreferrer">a</a><a href="#user-content-x" rel="nofollow noreferrer">b</a><a href="/p#config" rel="nofollow noreferrer">c</a>`},
	{"div class", `<div class="footnotes" id="x">a</div><div class="evil">b</div>`, `<div class="footnotes">a</div><div>b</div>`},
	{"code class", `<code class="language-c++">x</code><code class="lang-go">y</code>`,
		`<code class="language-c++">x</code><code>y</code>`},
	{"table attributes", `<table border=1><tr><td align="center" colspan="2" valign="top" rowspan="x">a</td></tr></table>`,
		`<table><tbody><tr><td align="center" colspan="2">a</td></tr></tbody></table>`},
	{"ol start", `<ol start="3" type="i"><li>a</li></ol><ol start="1;x"></ol>`, `<ol start="3"><li>a</li></ol><ol></ol>`},
	{"unknown elements unwrapped", `<center><font color=red><u>x</u></font></center><custom-el>y</custom-el>`, "xy"},
	{"data attributes", `<p data-x="1" aria-label="l" lang="en">x</p>`, "<p>x</p>"},

	// Structure the parser would not build again after unwrapping.
	{"p in button in p", `<p>a<button><p>b</p></button></p>`, "<p>a</p><p>b</p><p></p>"},
	{"heading in unwrapped element", `<h1><u><h2>x</h2></u></h1>`, "<h1></h1><h2>x</h2>"},
}

func TestSanitizeXSS(t *testing.T) {
	t.Parallel()
	for _, tt := range xssVectors {
		t.Run(tt.name, func(t *testing.T) {
			got := Sanitize(tt.in, ArticlePolicy())
			if got != tt.want {
				t.Errorf("Sanitize(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			checkSanitized(t, tt.in, got)
		})
	}
}

// allowedAttrs is the policy restated independently of sanitize.go: the
// attributes each element may carry after sanitizing.
var allowedAttrs = map[string][]string{
	"a": {"href", "title", "class", "rel", "target"}, "img": {"src", "alt", "title", "width", "height"},
	"abbr": {"title"}, "code": {"class"}, "div": {"class"}, "span": {"class"},
	"h1": {"id"}, "h2": {"id"}, "h3": {"id"}, "h4": {"id"}, "h5": {"id"}, "h6": {"id"},
	"sup": {"id"}, "li": {"id"}, "ol": {"start"}, "details": {"open"},
	"th": {"align", "colspan", "rowspan"}, "td": {"align", "colspan", "rowspan"},
	"p": nil, "br": nil, "hr": nil, "blockquote": nil, "pre": nil, "ul": nil,
	"em": nil, "strong": nil, "b": nil, "i": nil, "del": nil, "s": nil, "ins": nil, "sub": nil, "kbd": nil,
	"summary": nil, "ruby": nil, "rb": nil, "rt": nil, "rp": nil,
	"table": nil, "caption": nil, "thead": nil, "tbody": nil, "tfoot": nil, "tr": nil,
}

// checkSanitized fails t unless out, the sanitized form of in, is valid
// UTF-8, parses (as a browser would parse it into a <div>) to allowed
// elements with allowed attributes and safe URLs only, holds no comments,
// and is a fixed point: sanitizing it again changes nothing.
func checkSanitized(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Sanitize(%q): got invalid UTF-8 %q", in, out)
	}
	ctx := &xhtml.Node{Type: xhtml.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := xhtml.ParseFragment(strings.NewReader(out), ctx)
	if err != nil {
		t.Fatalf("Sanitize(%q): output %q does not parse: %v", in, out, err)
	}
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		switch n.Type {
		case xhtml.TextNode:
		case xhtml.ElementNode:
			attrs, ok := allowedAttrs[n.Data]
			if !ok || n.Namespace != "" {
				t.Fatalf("Sanitize(%q): got element <%s> (namespace %q) in %q", in, n.Data, n.Namespace, out)
			}
			for _, a := range n.Attr {
				if a.Namespace != "" || !contains(attrs, a.Key) {
					t.Fatalf("Sanitize(%q): got attribute %s on <%s> in %q", in, a.Key, n.Data, out)
				}
				if a.Key == "id" && !strings.HasPrefix(a.Val, "user-content-") ||
					a.Key == "href" && strings.HasPrefix(a.Val, "#") && !strings.HasPrefix(a.Val, "#user-content-") {
					t.Fatalf("Sanitize(%q): got %s=%q without the user-content- prefix in %q", in, a.Key, a.Val, out)
				}
				if (a.Key == "href" || a.Key == "src") && !safeURL(a.Val, a.Key == "src") {
					t.Fatalf("Sanitize(%q): got unsafe %s=%q in %q", in, a.Key, a.Val, out)
				}
			}
		default:
			t.Fatalf("Sanitize(%q): got node type %d (%q) in %q", in, n.Type, n.Data, out)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	if again := sanitized(out); again != out {
		t.Fatalf("Sanitize(%q) is not idempotent:\n once  %q\n twice %q", in, out, again)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// safeURL is an independent, deliberately blunt check: no whitespace or
// control characters, and a scheme (if any) of http, https or mailto; image
// sources must be absolute http(s).
func safeURL(v string, image bool) bool {
	for _, r := range v {
		if r <= ' ' || r == 0x7f {
			return false
		}
	}
	lv := strings.ToLower(v)
	if image {
		return strings.HasPrefix(lv, "http://") || strings.HasPrefix(lv, "https://")
	}
	if i := strings.IndexAny(lv, ":/?#"); i >= 0 && lv[i] == ':' {
		return strings.HasPrefix(lv, "http:") || strings.HasPrefix(lv, "https:") || strings.HasPrefix(lv, "mailto:")
	}
	return true
}

func FuzzSanitize(f *testing.F) {
	for _, v := range xssVectors {
		f.Add(v.in)
	}
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Add(`<p>a<b>b<i>c</b>d</i>e</p><table><td>x<a href="/y">y<table><td><a href="/z">z`)
	f.Add(`<ul><li>a<ul><li>b</ul><li id="fn:1">c<pre>` + "\n\nx</pre><ruby>a<rt>b</ruby>")
	f.Fuzz(func(t *testing.T, in string) {
		checkSanitized(t, in, sanitized(in))
	})
}

// TestSanitizeTagSoup feeds the sanitizer random tag soup built from the
// elements whose parsing rules interact (formatting elements, scoping
// elements, tables, ruby, lists, headings, foreign content, raw text), which
// byte-level fuzzing reaches only slowly.
func TestSanitizeTagSoup(t *testing.T) {
	t.Parallel()
	tags := []string{
		"p", "div", "h1", "h2", "li", "ul", "ol", "b", "i", "em", "s", "code", "span", "sup",
		"u", "font", "nobr", "big", "button", "marquee", "applet", "object", "custom-x", "form", "dl", "dd", "dt",
		"table", "tbody", "tr", "td", "th", "caption", "colgroup", "col",
		"ruby", "rb", "rt", "rp", "rtc", "pre", "listing", "blockquote", "details", "summary", "hr", "br",
		"svg", "math", "mi", "mtext", "foreignObject", "desc", "annotation-xml",
		"script", "style", "template", "select", "option", "textarea", "noscript", "title", "xmp", "iframe",
	}
	attrs := []string{"", "", "", ` href="/x"`, ` href="https://e.example/"`, ` href="javascript:alert(1)"`,
		` src="https://e.example/a.png"`, ` id="fn:1"`, ` class="mention"`, ` onclick="alert(1)"`, ` open`}
	texts := []string{"x", " ", "\n", "\nlead", "&amp;", "&lt;script&gt;", "<!--c-->", "\x00", "#t @a@b.example"}
	n := 3000
	if testing.Short() {
		n = 300
	}
	rng := uint64(1)
	next := func(k int) int {
		rng = rng*6364136223846793005 + 1442695040888963407
		return int((rng >> 33) % uint64(k))
	}
	for i := 0; i < n; i++ {
		var b strings.Builder
		for j, m := 0, 5+next(30); j < m; j++ {
			tag := tags[next(len(tags))]
			switch next(4) {
			case 0, 1:
				b.WriteString("<" + tag + attrs[next(len(attrs))] + ">")
			case 2:
				b.WriteString("</" + tag + ">")
			default:
				b.WriteString(texts[next(len(texts))])
			}
		}
		in := b.String()
		checkSanitized(t, in, sanitized(in))
	}
}

// sanitized is sanitizeHTML without the ok result.
func sanitized(s string) string {
	out, _ := sanitizeHTML(s, ArticlePolicy())
	return out
}

func TestSanitizeTooDeep(t *testing.T) {
	t.Parallel()
	// The HTML parser refuses more than 512 open elements; the sanitizer
	// then fails closed, and Article falls back to a plain-text note.
	deep := strings.Repeat("<div>", 600) + "<script>alert(1)</script>x"
	if got := Sanitize(deep, ArticlePolicy()); got != "" {
		t.Errorf("Sanitize(600 nested divs): got %.80q...; want \"\"", got)
	}
	md := strings.Repeat(">", 600) + " #tag <b>x</b>"
	res := testRenderer().Article(md)
	if want := testRenderer().Note(md); res.HTML != want.HTML || len(res.Tags) != 1 {
		t.Errorf("Article(600 nested quotes): got %.120q, tags %q; want the Note rendering %.120q", res.HTML, res.Tags, want.HTML)
	}
	ok := strings.Repeat("<div>", 500) + "x"
	if got := Sanitize(ok, ArticlePolicy()); !strings.HasPrefix(got, "<div><div>") {
		t.Errorf("Sanitize(500 nested divs): got %.80q; want them kept", got)
	}
}

// TestArticleIDsArePrefixed covers issue 6 point 12: every id an article
// gets (headings, footnotes, the author's raw HTML) carries the
// user-content- prefix and links inside the article follow it, so a post
// cannot name an element after a global of the theme's or SPA's scripts.
func TestArticleIDsArePrefixed(t *testing.T) {
	t.Parallel()
	in := "## config\n\n## はじめに\n\nSee [config](#config), [intro](#はじめに) and [elsewhere](/p#config).[^1]\n\n" +
		`<h3 id="location">raw</h3>` + "\n\n[^1]: A note."
	got := testRenderer().Article(in).HTML
	for _, want := range []string{
		`<h2 id="user-content-config">config</h2>`,
		`<h2 id="user-content-はじめに">はじめに</h2>`,
		`<a href="#user-content-config" rel="nofollow noreferrer">config</a>`,
		`<a href="#user-content-%E3%81%AF%E3%81%98%E3%82%81%E3%81%AB" rel="nofollow noreferrer">intro</a>`,
		`<a href="/p#config" rel="nofollow noreferrer">elsewhere</a>`,
		`<h3 id="user-content-location">raw</h3>`,
		`<sup id="user-content-fnref-1"><a href="#user-content-fn-1" class="footnote-ref"`,
		`<li id="user-content-fn-1">`,
		`<a href="#user-content-fnref-1" class="footnote-backref"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Article(%q)\n got %s\nwant it to contain %s", in, got, want)
		}
	}
	ctx := &xhtml.Node{Type: xhtml.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, _ := xhtml.ParseFragment(strings.NewReader(got), ctx)
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		for _, a := range n.Attr {
			if a.Key == "id" && !strings.HasPrefix(a.Val, IDPrefix) {
				t.Errorf("id %q lacks the prefix in %s", a.Val, got)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
}

// TestSanitizePolicy checks that a Policy value, not code, decides ids,
// classes and images, as a stricter policy for remote HTML will.
func TestSanitizePolicy(t *testing.T) {
	t.Parallel()
	in := `<h2 id="x">h</h2><a href="#x" class="mention">m</a><code class="language-go">c</code><img src="https://e.example/a.png" alt="a">`
	for _, tc := range []struct {
		name string
		p    Policy
		want string
	}{
		{"article", ArticlePolicy(), `<h2 id="user-content-x">h</h2><a href="#user-content-x" class="mention" rel="nofollow noreferrer">m</a>` +
			`<code class="language-go">c</code><img src="https://e.example/a.png" alt="a"/>`},
		{"strict", Policy{NoImages: true}, `<h2>h</h2><a href="#x" rel="nofollow noreferrer">m</a><code>c</code>`},
		{"mentions only", Policy{IDPrefix: "remote-", Class: func(el, v string) bool { return el == "a" && v == "mention" }},
			`<h2 id="remote-x">h</h2><a href="#remote-x" class="mention" rel="nofollow noreferrer">m</a><code>c</code><img src="https://e.example/a.png" alt="a"/>`},
	} {
		if got := Sanitize(in, tc.p); got != tc.want {
			t.Errorf("Sanitize with the %s policy\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestBareHashIsNoIDLink: a link to "#" names no id, so it never becomes
// a dead "#user-content-" (an empty URL is dropped, keeping the text).
func TestBareHashIsNoIDLink(t *testing.T) {
	t.Parallel()
	in := `<a href="#">top</a>`
	if got := Sanitize(in, ArticlePolicy()); strings.Contains(got, IDPrefix+`"`) || !strings.Contains(got, "top") {
		t.Errorf("Sanitize(%q) = %q; want the text, and no link to an empty id", in, got)
	}
}

// TestSanitizeStripsControls checks remote HTML too loses its control
// characters, written raw or as character references. (&#x85; is not one:
// HTML maps it to U+2026 as windows-1252 would.)
func TestSanitizeStripsControls(t *testing.T) {
	t.Parallel()
	in := "<p>a\x07b&#27;[2Jc\u0085d\x7fe</p>"
	if got, want := Sanitize(in, ArticlePolicy()), "<p>ab[2Jcde</p>"; got != want {
		t.Errorf("Sanitize(%q) = %q; want %q", in, got, want)
	}
}
