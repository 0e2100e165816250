package markup

import (
	"slices"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
)

func TestBreakLongWords(t *testing.T) {
	t.Parallel()
	const long = "https://example.com/a/very/long/path?x=1&amp;y=2#top"
	for _, tc := range []struct{ name, in, want string }{
		{"an address shown as a link's text", `<p>see <a href="` + long + `" rel="nofollow">` + long + `</a> now</p>`,
			`<p>see <a href="` + long + `" rel="nofollow">https://<wbr>example<wbr>.com/<wbr>a/<wbr>very/<wbr>long/<wbr>path<wbr>?x<wbr>=1<wbr>&amp;y<wbr>=2<wbr>#top</a> now</p>`},
		{"www", `<a href="http://www.example.com/abc/def/ghi">www.example.com/abc/def/ghi</a>`,
			`<a href="http://www.example.com/abc/def/ghi">www<wbr>.example<wbr>.com/<wbr>abc/<wbr>def/<wbr>ghi</a>`},
		{"an address in the text", `<p>at https://example.com/a/very/long/path/here.</p>`, `<p>at https://<wbr>example<wbr>.com/<wbr>a/<wbr>very/<wbr>long/<wbr>path/<wbr>here<wbr>.</p>`},
		{"a long word", `<p>Donaudampfschifffahrtsgesellschaftskapitän ahoy</p>`,
			`<p>Donaudam<wbr>pfschiff<wbr>fahrtsge<wbr>sellscha<wbr>ftskapitän ahoy</p>`},
		{"a long word in Japanese text", `<p>長いDonaudampfschifffahrtsgesellschaftの話</p>`,
			`<p>長いDonaudam<wbr>pfschiff<wbr>fahrtsge<wbr>sellschaftの話</p>`},
		{"a named link stays", `<a href="https://example.com/a/very/long/path/to/somewhere">the long path on example.com</a>`,
			`<a href="https://example.com/a/very/long/path/to/somewhere">the long path on example.com</a>`},
		{"short words and a short address stay", `<p>internationalization at <a href="https://go.dev/">https://go.dev/</a></p>`,
			`<p>internationalization at <a href="https://go.dev/">https://go.dev/</a></p>`},
		{"code stays", `<pre><code>https://example.com/a/very/long/path/here</code></pre><p><code>aVeryLongIdentifierNameInCode</code></p>`,
			`<pre><code>https://example.com/a/very/long/path/here</code></pre><p><code>aVeryLongIdentifierNameInCode</code></p>`},
		{"a break after a double slash, not inside it", `<a href="x">https://example.com//a//very/long/path</a>`,
			`<a href="x">https://<wbr>example<wbr>.com//<wbr>a//<wbr>very/<wbr>long/<wbr>path</a>`},
		{"Japanese only", `<p>` + strings.Repeat("縦書き", 40) + `</p>`, `<p>` + strings.Repeat("縦書き", 40) + `</p>`},
	} {
		got := BreakLongWords(tc.in)
		if got != tc.want {
			t.Errorf("%s: BreakLongWords(%q)\n got %q\nwant %q", tc.name, tc.in, got, tc.want)
		}
		if strings.ReplaceAll(got, "<wbr>", "") != tc.in {
			t.Errorf("%s: BreakLongWords(%q) changed more than break opportunities: %q", tc.name, tc.in, got)
		}
	}
}

func FuzzBreakLongWords(f *testing.F) {
	for _, s := range []string{`<p>Donaudampfschifffahrtsgesellschaftskapitän</p>`, `<a href="x">https://example.com/a/b/c/d/e/f/g</a>`,
		`<pre>aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</pre>`, "a &amp; bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "<p>縦書き</p>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := BreakLongWords(in)
		// Only <wbr> is added, and only between characters of text: the
		// tokenizer sees the same tags (each <wbr> aside) and the same text.
		if strings.ReplaceAll(out, "<wbr>", "") != strings.ReplaceAll(in, "<wbr>", "") {
			t.Fatalf("BreakLongWords(%q) = %q: more than <wbr> changed", in, out)
		}
		noWBR := func(tags []string) []string {
			return slices.DeleteFunc(tags, func(s string) bool { return s == "<wbr>" })
		}
		if a, b := noWBR(tags(in)), noWBR(tags(out)); strings.Join(a, "\x00") != strings.Join(b, "\x00") {
			t.Fatalf("BreakLongWords(%q) = %q: tags changed\n in %q\nout %q", in, out, a, b)
		}
		if a, b := tokenText(in), tokenText(out); a != b {
			t.Fatalf("BreakLongWords(%q) = %q: text changed\n in %q\nout %q", in, out, a, b)
		}
		if !hasLongRun(in) && out != in {
			t.Fatalf("BreakLongWords(%q) = %q; want it unchanged (no long run)", in, out)
		}
	})
}

// tokenText is the text the tokenizer reads in s, all nodes together.
func tokenText(s string) string {
	var b strings.Builder
	z := xhtml.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return b.String()
		case xhtml.TextToken:
			b.Write(z.Text())
		}
	}
}

// TestLongWordsOfOtherLatinLetters: a long word with letters outside
// ASCII is one word, broken like any other, never inside a character or
// between a letter and its combining mark (a 17-character piece around
// "ä" left a 4 em gap in justified text).
func TestLongWordsOfOtherLatinLetters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherung",
			"Donaudam<wbr>pfschiff<wbr>fahrtsge<wbr>sellscha<wbr>ftskapit<wbr>änswitwe<wbr>nrentenv<wbr>ersicherung"},
		// e + U+0301: the mark stays with its letter.
		{"abcdefge\u0301hijklmnopqrstuvwxyzabcd", "abcdefge\u0301<wbr>hijklmno<wbr>pqrstuvw<wbr>xyzabcd"},
		{"Достопримечательностидостопримечательности", "Достопри<wbr>мечатель<wbr>ностидос<wbr>топримеч<wbr>ательности"},
		// Japanese stays as it is: the browser breaks it anywhere.
		{"日本語の文章は単語の間に空白がないのでどこでも折り返せるのです", "日本語の文章は単語の間に空白がないのでどこでも折り返せるのです"},
	} {
		got := BreakLongWords("<p>" + tc.in + "</p>")
		if want := "<p>" + tc.want + "</p>"; got != want {
			t.Errorf("BreakLongWords(%q)\n got %q\nwant %q", tc.in, got, want)
		}
	}
}
