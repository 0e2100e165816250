package markup

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
)

// TestVerticalText: Latin words and long numbers stay as written (the
// theme sets them sideways); one or two digits between Japanese text, and
// "!?" after it, become full-width (upright).
func TestVerticalText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"日本語だけ。", "日本語だけ。"},
		{"ABC xyz 123", "ABC xyz 123"},
		{"Donaudampfschifffahrtsgesellschaft", "Donaudampfschifffahrtsgesellschaft"},
		{"12月1日に", "１２月１日に"},
		{"2026年12月1日にGoで書いた", "2026年１２月１日にGoで書いた"},
		{"第3回", "第３回"},
		{"今日は 12 月", "今日は １２ 月"},
		{"Go 1.24 を試した", "Go 1.24 を試した"},
		{"A4の紙", "A4の紙"},
		{"4Kテレビ", "4Kテレビ"},
		{"本当!?", "本当！？"},
		{"すごい!!!", "すごい!!!"},
		{"Hello! 元気?", "Hello! 元気？"},
		{"https://example.com/2026/12/01", "https://example.com/2026/12/01"},
		{"\x7f", "\x7f"},
	} {
		if got := VerticalText(tc.in); got != tc.want {
			t.Errorf("VerticalText(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestVertical(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"latin kept, digit pair upright", `<p>今日はGo 1.24を試した。12月3日。</p>`, `<p>今日はGo 1.24を試した。<span class="tcy">12</span>月３日。</p>`},
		{"href unchanged", `<p>見て <a href="https://example.com/a?b=1&amp;c=2" rel="nofollow">example.com</a></p>`,
			`<p>見て <a href="https://example.com/a?b=1&amp;c=2" rel="nofollow">example.com</a></p>`},
		{"entities decoded and escaped again", `<p>A &amp; B &lt;3 「&quot;12&quot;」は12月</p>`, `<p>A &amp; B &lt;3 「&#34;12&#34;」は<span class="tcy">12</span>月</p>`},
		{"code kept", `<p>第<code>12</code>回 run <code>go test ./...</code> now</p>`, `<p>第<code>12</code>回 run <code>go test ./...</code> now</p>`},
		{"pre code kept", "<pre><code>x := 12 &amp;&amp; y\n</code></pre><p>第1回</p>", "<pre><code>x := 12 &amp;&amp; y\n</code></pre><p>第１回</p>"},
		{"neighbours across inline tags", `<p>第<b>12</b>回、https://e.example/2026/<wbr>12/<wbr>01</p>`, `<p>第<b><span class="tcy">12</span></b>回、https://e.example/2026/<wbr>12/<wbr>01</p>`},
		{"not across blocks", `<p>A</p><p>12月</p>`, `<p>A</p><p><span class="tcy">12</span>月</p>`},
		{"exclamation pair", `<p>本当!?</p>`, `<p>本当<span class="tcy">!?</span></p>`},
		{"whitespace between blocks", "<p>a</p>\n<p>b</p>", "<p>a</p>\n<p>b</p>"},
		{"img alt untouched", `<p><img src="/m/12.png" alt="12月"></p>`, `<p><img src="/m/12.png" alt="12月"></p>`},
		{"no group", `<p>縦書き、です。</p>`, `<p>縦書き、です。</p>`},
	} {
		if got := Vertical(tc.in); got != tc.want {
			t.Errorf("%s: Vertical(%q)\n got %q\nwant %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// tags lists the tag tokens of s (name and attributes), which Vertical must
// keep exactly: it converts text only.
func tags(s string) []string {
	var out []string
	z := xhtml.NewTokenizer(strings.NewReader(s))
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return out
		}
		if tt == xhtml.TextToken {
			continue
		}
		out = append(out, z.Token().String())
	}
}

func FuzzVertical(f *testing.F) {
	for _, s := range []string{
		`<p>今日はGo 1.24を試した。</p>`, `<p>A &amp; B <code>x&lt;y</code></p>`, `<a href="x?a=1&b=2">t</a>`,
		"<pre>a\n b</pre>", `<p>日本語</p>`, "<script>x<y</script>z", "a < b", "<p>&#0;&#x41;</p>", "<!-- c -->d",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !utf8.ValidString(in) {
			return
		}
		out := Vertical(in)
		if !utf8.ValidString(out) {
			t.Fatalf("Vertical(%q) = %q: not UTF-8", in, out)
		}
		// Well-formed: the same tags and attributes, and no new markup
		// but the tate-chu-yoko spans.
		a, b := tags(in), slices.DeleteFunc(tags(out), func(s string) bool { return s == `<span class="tcy">` || s == "</span>" })
		a = slices.DeleteFunc(a, func(s string) bool { return s == "</span>" })
		if strings.Join(a, "\x00") != strings.Join(b, "\x00") {
			t.Fatalf("Vertical(%q) = %q: tags changed\n in %q\nout %q", in, out, a, b)
		}
		// Idempotent on its own output: the groups it converted are no
		// longer ASCII, or sit in a tcy span, which it leaves alone.
		if again := Vertical(out); again != out {
			t.Fatalf("Vertical(Vertical(%q)) = %q; want %q", in, again, out)
		}
		// Text without digits, "!" or "?" is unchanged.
		if !strings.ContainsFunc(in, isUprightRune) {
			if got := VerticalText(in); got != in {
				t.Fatalf("VerticalText(%q) = %q; want it unchanged", in, got)
			}
			if out != in {
				t.Fatalf("Vertical(%q) = %q; want it unchanged (nothing to set upright)", in, out)
			}
		}
	})
}
