package markup

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestPlainText(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"paragraphs", "<p>one</p><p>two</p>", "one two"},
		{"br", "a<br>b<br/>c", "a b c"},
		{"inline joins", "<p>foo<strong>bar</strong><em>baz</em></p>", "foobarbaz"},
		{"entities", "<p>a &amp; b &lt;c&gt; &quot;d&quot; &#x3042;</p>", `a & b <c> "d" あ`},
		{"whitespace collapsed", "<p>  a \n\t b  </p>\n\n<p>\n c </p>", "a b c"},
		{"nbsp and ideographic space", "a&nbsp;&nbsp;b\u3000c", "a b c"},
		{"script and style skipped", "<p>a</p><script>var x = '<p>no</p>';</script><style>p{}</style><p>b</p>", "a b"},
		{"self-closing script still opens", "a<script/>alert(1)</script>b", "ab"},
		{"ruby annotation dropped", "<ruby>漢字<rp>(</rp><rt>かんじ</rt><rp>)</rp></ruby>を書く", "漢字を書く"},
		{"lists and headings", "<h2>Title</h2><ul><li>one</li><li>two</li></ul>", "Title one two"},
		{"table cells", "<table><tr><td>a</td><td>b</td></tr></table>", "a b"},
		{"pre keeps words apart", "<pre><code>x := 1\ny := 2</code></pre>", "x := 1 y := 2"},
		{"image between words", "a<img src=x.png alt=pic>b", "a b"},
		{"japanese", "<p>今日は晴れ。</p><p>明日は雨。</p>", "今日は晴れ。 明日は雨。"},
		{"unclosed tags", "<p>a<b>b", "ab"},
		{"text that looks like markup is decoded, not parsed", "&lt;script&gt;alert(1)&lt;/script&gt;", "<script>alert(1)</script>"},
	}
	for _, tt := range tests {
		if got := PlainText(tt.in); got != tt.want {
			t.Errorf("%s: PlainText(%q) = %q; want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestPlainTextOfRenderedArticle(t *testing.T) {
	t.Parallel()
	res := testRenderer().Article("# Heading\n\nSome *text* with a [link](https://example.com/) and #tag.\n\n- one\n- two\n")
	if got, want := PlainText(res.HTML), "Heading Some text with a link and #tag. one two"; got != want {
		t.Errorf("PlainText(%q) = %q; want %q", res.HTML, got, want)
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 40) // 200 characters
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"short stays", "<p>Hello world.</p>", 20, "Hello world."},
		{"exact length stays", "<p>abcde</p>", 5, "abcde"},
		{"n zero", "<p>abc</p>", 0, ""},
		{"cut at space", "<p>The quick brown fox jumps over</p>", 18, "The quick brown…"},
		{"prefers sentence end", "<p>First one. Second sentence goes on</p>", 14, "First one.…"},
		{"japanese sentence", "<p>今日は晴れです。明日は雨が降るでしょう。</p>", 12, "今日は晴れです。…"},
		{"japanese comma", "<p>今日は晴れで、明日は雨が降るでしょう</p>", 9, "今日は晴れで、…"},
		{"hard cut without boundary", "<p>abcdefghijklmnop</p>", 5, "abcde…"},
		{"hard cut in japanese", "<p>あいうえおかきくけこ</p>", 4, "あいうえ…"},
		{"boundary too far back is ignored", "<p>ab cdefghijklmnopqrstuvwxyz</p>", 20, "ab cdefghijklmnopqrs…"},
		{"emoji are one character", "<p>😀😀😀😀😀😀</p>", 3, "😀😀😀…"},
		{"long repeated words", "<p>" + long + "</p>", 22, "word word word word…"},
	}
	for _, tt := range tests {
		if got := Excerpt(tt.in, tt.n); got != tt.want {
			t.Errorf("%s: Excerpt(%q, %d) = %q; want %q", tt.name, tt.in, tt.n, got, tt.want)
		}
	}
}

func TestExcerptLength(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		strings.Repeat("あ", 500), strings.Repeat("ab. ", 200), strings.Repeat("x", 1000),
		strings.Repeat("日本語、", 100), strings.Repeat("🍣 ", 300),
	} {
		for _, n := range []int{1, 2, 7, 80, 200} {
			got := ExcerptText(s, n)
			if !utf8.ValidString(got) {
				t.Fatalf("ExcerptText(%.20q…, %d) = %q: invalid UTF-8", s, n, got)
			}
			body := strings.TrimSuffix(got, Ellipsis)
			if c := utf8.RuneCountInString(body); c > n || c == 0 {
				t.Errorf("ExcerptText(%.20q…, %d) kept %d characters (%q); want 1…%d", s, n, c, got, n)
			}
			if !strings.HasSuffix(got, Ellipsis) {
				t.Errorf("ExcerptText(%.20q…, %d) = %q: cut without %q", s, n, got, Ellipsis)
			}
		}
	}
}

func TestFirstImage(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"none", "<p>text</p>", ""},
		{"first of two", `<p><img src="/media/a.png" alt="a"><img src="https://x.test/b.png"></p>`, "/media/a.png"},
		{"absolute", `<figure><img alt="x" src="https://cdn.example/i.jpg?w=1&amp;h=2"></figure>`, "https://cdn.example/i.jpg?w=1&h=2"},
		{"self-closing", `<img src="/m/c.webp"/>`, "/m/c.webp"},
		{"empty src skipped", `<img src=""><img src="/m/d.png">`, "/m/d.png"},
		{"no src skipped", `<img alt="x"><img src="/m/e.png">`, "/m/e.png"},
		{"not in text", `<p>&lt;img src="/no.png"&gt;</p>`, ""},
		{"uppercase tag", `<IMG SRC="/m/f.png">`, "/m/f.png"},
		{"mixed case after other tags", `<p>a &lt; b</p><p><Img src="/m/g.png"></p>`, "/m/g.png"},
		{"cut short", `<p>x</p><im`, ""},
	}
	for _, tt := range tests {
		if got := FirstImage(tt.in); got != tt.want {
			t.Errorf("%s: FirstImage(%q) = %q; want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestFirstImageOfRenderedArticle(t *testing.T) {
	t.Parallel()
	res := testRenderer().Article("Intro\n\n![cat](https://example.com/cat.png)\n\n![dog](https://example.com/dog.jpg)\n")
	if got := FirstImage(res.HTML); got != "https://example.com/cat.png" {
		t.Errorf("FirstImage(%q) = %q; want https://example.com/cat.png", res.HTML, got)
	}
}

func TestKWIC(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		text       string
		terms      []string
		width, max int
		want       []KWICHit
	}{
		{"no match", "hello world", []string{"xyz"}, 5, 3, nil},
		{"no terms", "hello world", []string{"", "  "}, 5, 3, nil},
		{"max zero", "hello world", []string{"world"}, 5, 0, nil},
		{"whole text", "hello world", []string{"world"}, 20, 3,
			[]KWICHit{{Before: "hello ", Match: "world", After: ""}}},
		{"cut both sides", "the quick brown fox jumps over the lazy dog", []string{"fox"}, 6, 3,
			[]KWICHit{{Before: "…brown ", Match: "fox", After: " jumps…"}}},
		{"case-insensitive keeps the text's case", "Go is fun. GO GO go!", []string{"gO"}, 3, 1,
			[]KWICHit{{Before: "", Match: "Go", After: " is…"}}},
		{"close matches join one line", "aaa foo bb foo ccc", []string{"foo"}, 4, 5,
			[]KWICHit{{Before: "aaa ", Match: "foo bb foo", After: " ccc"}}},
		{"far matches: two lines, no text twice", "foo 123456789 foo", []string{"foo"}, 4, 5,
			[]KWICHit{{Before: "", Match: "foo", After: " 123…"}, {Before: "…789 ", Match: "foo", After: ""}}},
		{"lines that touch have no ellipsis between them", "foo 123456 foo", []string{"foo"}, 4, 5,
			[]KWICHit{{Before: "", Match: "foo", After: " 123"}, {Before: "456 ", Match: "foo", After: ""}}},
		{"max lines", "x foo x x x x x x foo x x x x x x x foo", []string{"foo"}, 2, 2,
			[]KWICHit{{Before: "x ", Match: "foo", After: " x…"}, {Before: "…x ", Match: "foo", After: " x…"}}},
		{"longest term wins", "a foobar b", []string{"foo", "foobar"}, 2, 3,
			[]KWICHit{{Before: "a ", Match: "foobar", After: " b"}}},
		{"japanese", "今日は良い天気です。明日も良い天気でしょう。", []string{"天気"}, 3, 5,
			[]KWICHit{{Before: "…は良い", Match: "天気", After: "です。…"}, {Before: "…も良い", Match: "天気", After: "でしょ…"}}},
		{"japanese mixed with latin case", "ＧＯ言語とGoの話。gopherも", []string{"go"}, 2, 5,
			[]KWICHit{{Before: "…語と", Match: "Go", After: "の話"}, {Before: "。", Match: "go", After: "ph…"}}},
		// "İ" lower-cases to "i̇" (two runes) with strings.ToLower, which
		// would shift every later index; rune by rune it stays in place.
		{"index shift after a dotted capital I", "İİİ abc ÄÖÜ target end", []string{"target", "äöü"}, 4, 5,
			[]KWICHit{{Before: "…abc ", Match: "ÄÖÜ target", After: " end"}}},
		// A run of matches makes lines of at most 3×width, not one line
		// of the whole run.
		{"a long run of matches", strings.Repeat("ab", 40), []string{"ab"}, 2, 2,
			[]KWICHit{{Before: "", Match: "ababab", After: ""}, {Before: "", Match: "ababab", After: "ab…"}}},
		{"emoji", "🍣🍣 sushi 🍣🍣🍣", []string{"SUSHI"}, 2, 1,
			[]KWICHit{{Before: "…🍣 ", Match: "sushi", After: " 🍣…"}}},
	}
	for _, tt := range tests {
		got := KWIC(tt.text, tt.terms, tt.width, tt.max)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: KWIC(%q, %q, %d, %d) =\n  %q\nwant\n  %q", tt.name, tt.text, tt.terms, tt.width, tt.max, got, tt.want)
		}
	}
}

// TestKWICWidth checks the bound on every line over texts with
// matches everywhere: Before and After never exceed width characters
// (plus the ellipsis), every line is text of the input and every Match
// starts with a term.
func TestKWICWidth(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("日本語のテキストとEnglish text、", 30)
	for _, width := range []int{0, 1, 5, 12} {
		hits := KWIC(text, []string{"テキスト", "ENGLISH"}, width, 100)
		if len(hits) == 0 {
			t.Fatalf("KWIC width %d: no hits", width)
		}
		for _, h := range hits {
			for _, side := range []string{h.Before, h.After} {
				if c := utf8.RuneCountInString(strings.ReplaceAll(side, Ellipsis, "")); c > width {
					t.Errorf("KWIC width %d: side %q has %d characters", width, side, c)
				}
			}
			line := strings.ReplaceAll(h.Before+h.Match+h.After, Ellipsis, "")
			if !strings.Contains(text, strings.TrimSpace(line)) {
				t.Errorf("KWIC width %d: line %q is not text of the input", width, line)
			}
			m := strings.ToLower(h.Match)
			if !strings.HasPrefix(m, "テキスト") && !strings.HasPrefix(m, "english") {
				t.Errorf("KWIC width %d: Match %q does not start with a term", width, h.Match)
			}
		}
	}
}

// FuzzKWIC: every line is text of the input around a match, within the
// width, whatever the text and terms.
func FuzzKWIC(f *testing.F) {
	f.Add("İİİ abc ÄÖÜ target end", "target", 4)
	f.Add("今日は良い天気です。明日も良い天気でしょう。", "天気", 3)
	f.Add("aaaa", "aa", 1)
	f.Add("\xff\xfeabc", "B", 0)
	f.Fuzz(func(t *testing.T, text, term string, width int) {
		width %= 50
		hits := KWIC(text, []string{term}, width, 10)
		if len(hits) > 10 {
			t.Fatalf("KWIC returned %d lines; max 10", len(hits))
		}
		runes := string([]rune(text)) // invalid bytes read as U+FFFD
		for _, h := range hits {
			if h.Match == "" {
				t.Fatalf("KWIC(%q, %q) gave an empty Match", text, term)
			}
			line := strings.ReplaceAll(h.Before+h.Match+h.After, Ellipsis, "")
			if !strings.Contains(runes, strings.TrimSpace(line)) && !strings.Contains(text, Ellipsis) {
				t.Fatalf("KWIC(%q, %q, %d): line %q is not text of the input", text, term, width, line)
			}
		}
	})
}

// TestPlainTextPrefix: the prefix is exactly the start of PlainText, for
// every length, and stops reading once it has it.
func TestPlainTextPrefix(t *testing.T) {
	t.Parallel()
	for _, html := range []string{
		"<p>今日は <b>東京</b>で</p><p>ご飯を  食べた。</p><script>x()</script><p>end</p>",
		"<h2>Title</h2>\n<p>one two&amp;three</p><ul><li>a</li><li>b</li></ul>",
		"", "<p></p>", "plain text only",
	} {
		full := []rune(PlainText(html))
		for n := 0; n <= len(full)+2; n++ {
			want := string(full[:min(n, len(full))])
			if got := PlainTextPrefix(html, n); got != want {
				t.Errorf("PlainTextPrefix(%q, %d) = %q; want %q", html, n, got, want)
			}
		}
	}
}

// TestExcerptTextOfExcerpts: text that is already collapsed and short
// enough comes back as it is, and anything else is still collapsed.
func TestExcerptTextOfExcerpts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"", ""}, {"abc", "abc"}, {"a b c", "a b c"}, {"今日は 東京", "今日は 東京"},
		{" a", "a"}, {"a ", "a"}, {"a  b", "a b"}, {"a\tb", "a b"}, {"a\u3000b", "a b"}, {"a\nb", "a b"},
	} {
		if got := ExcerptText(c.in, 20); got != c.want {
			t.Errorf("ExcerptText(%q, 20) = %q; want %q", c.in, got, c.want)
		}
	}
}

// excerptTextRunes is ExcerptText as first written, over []rune: the
// reference the offset-based cut is compared with.
func excerptTextRunes(text string, n int) string {
	if n <= 0 {
		return ""
	}
	s := strings.TrimSuffix(text, " ")
	if !collapsed(s) {
		var w spaceWriter
		w.WriteText(text)
		s = w.String()
	}
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	cut := excerptCut(n, max(n-n/3, 1), func(k int) rune { return rs[k] })
	return strings.TrimRightFunc(string(rs[:cut]), unicode.IsSpace) + Ellipsis
}

// FuzzExcerptText: the cut found from rune offsets is the cut over runes.
func FuzzExcerptText(f *testing.F) {
	for _, s := range []string{"", "a b. c", "今日は雨。明日は晴れ、たぶん", strings.Repeat("word ", 50), "x\xffy z",
		strings.Repeat("あ", 300), "a\u3000b, c! d? e."} {
		f.Add(s, 10)
		f.Add(s, 80)
		f.Add(s, 200)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 400
		if got, want := ExcerptText(s, n), excerptTextRunes(s, n); got != want {
			t.Fatalf("ExcerptText(%q, %d) = %q; over runes %q", s, n, got, want)
		}
	})
}

// TestKWICOf: reading the text only as far as the lines need gives the
// lines of the whole (limited) text, whatever the text, terms, width and
// number of lines.
func TestKWICOf(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(15, 7))
	words := []string{"tea", "Tea", "green", "日本茶", "の", "話", " ", " ", "。", "xx", "x", "ab", "abab", "İ", "🍣"}
	for i := range 400 {
		var b strings.Builder
		b.WriteString("<p>")
		for n := rnd.IntN(12000); b.Len() < n; {
			b.WriteString(words[rnd.IntN(len(words))])
			if rnd.IntN(40) == 0 {
				b.WriteString("</p><p>")
			}
		}
		html := b.String() + "</p>"
		terms := []string{words[rnd.IntN(len(words))], words[rnd.IntN(len(words))]}
		if rnd.IntN(4) == 0 {
			terms = []string{strings.Repeat("x", 1+rnd.IntN(30))}
		}
		if i%2 == 1 {
			// Few matches, placed around where KWICOf stops reading
			// (2,000 and 8,000 characters): a line there must come out as
			// from the whole text.
			filler := []rune(strings.Repeat("a b c ", 2000))
			for range 1 + rnd.IntN(5) {
				at := []int{2000, 8000}[rnd.IntN(2)] - 60 + rnd.IntN(120)
				copy(filler[at:], []rune("tea"))
			}
			html, terms = "<p>"+string(filler)+"</p>", []string{"tea", "a b c a"}[:1+rnd.IntN(2)]
		}
		width, max, limit := rnd.IntN(50), 1+rnd.IntN(4), []int{-1, 500, 2000, 5000, 20000}[rnd.IntN(5)]
		got := KWICOf(html, terms, width, max, limit)
		want := KWIC(PlainTextPrefix(html, limit), terms, width, max)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: KWICOf(%d bytes, %q, %d, %d, %d) =\n  %q\nwant\n  %q", i, len(html), terms, width, max, limit, got, want)
		}
	}
}
