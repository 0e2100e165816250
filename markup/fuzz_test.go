package markup

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
)

var fuzzSeeds = []string{
	"",
	"hello\n\nworld\r\nline",
	"<script>alert(1)</script>",
	`<img src=x onerror="alert(1)">`,
	`"><svg onload=alert(1)>`,
	"javascript:alert(1) [x](javascript:alert(1))",
	"https://en.wikipedia.org/wiki/Go_(programming_language)). #タグ。",
	"#ゲーム_2026 #123 a#b https://x.example/#frag",
	"@alice@example.com @bob bob@example.com @a@b.example:443",
	"https://e.example/\"onmouseover=\"alert(1)\" ' on x",
	"🎉#party ❤️#love 「#タグ」",
	"a\x00b\xff",
}

// checkSafe fails t if out contains a script element, an event handler
// attribute, or an element or URL the renderer never produces.
func checkSafe(t *testing.T, in, out string, allowed map[string]bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("render(%q): got invalid UTF-8 %q; want valid", in, out)
	}
	if strings.Contains(strings.ToLower(out), "<script") {
		t.Fatalf("render(%q): got %s; want no <script", in, out)
	}
	z := xhtml.NewTokenizer(strings.NewReader(out))
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return
		}
		if tt != xhtml.StartTagToken && tt != xhtml.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		if !allowed[tok.Data] {
			t.Fatalf("render(%q): got element <%s> in %s; want only allowed elements", in, tok.Data, out)
		}
		for _, a := range tok.Attr {
			if strings.HasPrefix(strings.ToLower(a.Key), "on") {
				t.Fatalf("render(%q): got event attribute %s in %s; want none", in, a.Key, out)
			}
			if a.Key == "href" || a.Key == "src" {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				if strings.HasPrefix(v, "javascript:") || strings.HasPrefix(v, "data:") || strings.HasPrefix(v, "vbscript:") {
					t.Fatalf("render(%q): got %s=%q; want no script URL", in, a.Key, a.Val)
				}
			}
		}
	}
}

// visibleText returns the text a reader sees, without whitespace, so it
// can be compared with the input regardless of paragraphs and <br>. A
// mention shows only "@user", so the "@host" taken from its href (as built
// by testRenderer) is put back after it.
func visibleText(html string) string {
	var b strings.Builder
	z := xhtml.NewTokenizer(strings.NewReader(html))
	host := ""
	for tt := z.Next(); tt != xhtml.ErrorToken; tt = z.Next() {
		switch tt {
		case xhtml.TextToken:
			b.Write(z.Text())
		case xhtml.StartTagToken:
			tok := z.Token()
			if tok.Data != "a" {
				continue
			}
			var href, class string
			for _, a := range tok.Attr {
				switch a.Key {
				case "href":
					href = a.Val
				case "class":
					class = a.Val
				}
			}
			if class == "u-url mention" {
				host, _, _ = strings.Cut(strings.TrimPrefix(href, "https://"), "/")
			}
		case xhtml.EndTagToken:
			if host != "" {
				if name, _ := z.TagName(); string(name) == "a" {
					b.WriteString("@" + host)
					host = ""
				}
			}
		}
	}
	return stripSpace(b.String())
}

func stripSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

var noteElements = map[string]bool{"p": true, "br": true, "a": true, "span": true}

func FuzzNote(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	r := testRenderer()
	f.Fuzz(func(t *testing.T, in string) {
		res := r.Note(in)
		checkSafe(t, in, res.HTML, noteElements)
		checkNoControls(t, in, res.HTML)

		// Linking must neither drop nor invent text: what the reader sees
		// is what the owner typed.
		// Control characters other than whitespace are stripped; the
		// tokenizer turns CR into LF, and whitespace is ignored anyway.
		want := strings.Map(func(r rune) rune {
			if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || (r >= 0x7f && r <= 0x9f) {
				return -1
			}
			return r
		}, strings.ToValidUTF8(in, "\uFFFD"))
		// Mention hosts are lowercased, so compare case-insensitively.
		if got, want := visibleText(res.HTML), stripSpace(want); !strings.EqualFold(got, want) {
			t.Fatalf("Note(%q) visible text: got %q; want %q (html %s)", in, got, want, res.HTML)
		}
		for _, tag := range res.Tags {
			if tag == "" || strings.ContainsAny(tag, "#<>&\"' ") {
				t.Fatalf("Note(%q).Tags: got %q; want letters, digits and underscores only", in, res.Tags)
			}
		}
	})
}

var articleElements = map[string]bool{
	"p": true, "br": true, "hr": true, "blockquote": true, "pre": true, "ul": true, "ol": true, "li": true,
	"em": true, "strong": true, "b": true, "i": true, "del": true, "s": true, "ins": true, "sup": true,
	"sub": true, "kbd": true, "details": true, "summary": true, "ruby": true, "rb": true, "rt": true,
	"rp": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "table": true,
	"caption": true, "thead": true, "tbody": true, "tfoot": true, "tr": true, "th": true, "td": true,
	"code": true, "span": true, "a": true, "img": true, "div": true, "abbr": true,
}

func FuzzArticle(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Add("# h\n\n[x](javascript:alert(1))\n\n<iframe src=x></iframe>\n\n```go\n#x\n```\n\n- [ ] t\n\n|a|\n|-|\n|b|\n\nf[^1]\n\n[^1]: n")
	f.Add("x\n| a | `b\\|c` |\n|:-:|--:|\n| ~~d~~ | e | f |\ng\n\n- [x] t[^a]\n  - [ ]\n\n![^a]\n\n[^a]: - l\n    > q\n\n[^A]: dup")
	f.Add("日本語の\n文章。**太郎**\\ さん www.example.com bob@example.org <a href=x>[^1]</a>\n\n[^1]:\n    late")
	r := testRenderer()
	f.Fuzz(func(t *testing.T, in string) {
		html := r.Article(in).HTML
		checkSafe(t, in, html, articleElements)
		checkNoControls(t, in, html)
	})
}

// checkNoControls fails when rendered HTML holds a control character other
// than TAB, LF and CR, escaped or not.
func checkNoControls(t *testing.T, in, html string) {
	t.Helper()
	for _, r := range html {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || (r >= 0x7f && r <= 0x9f) {
			t.Fatalf("render(%q) = %q; holds control character U+%04X", in, html, r)
		}
	}
	for _, ref := range []string{"&#0;", "&#x0;", "&#7;", "&#27;", "&#127;"} {
		if strings.Contains(html, ref) {
			t.Fatalf("render(%q) = %q; holds the control character reference %s", in, html, ref)
		}
	}
}
