package markup

import (
	"strings"
	"testing"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
)

func TestVerticalText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"日本語だけ。", "日本語だけ。"},
		{"ABC xyz 123", "ＡＢＣ　ｘｙｚ　１２３"},
		{"!~", "！～"},
		{"2026年12月1日にGoで書いた", "２０２６年１２月１日にＧｏで書いた"},
		{"tab\tand\nnewline", "ｔａｂ\tａｎｄ\nｎｅｗｌｉｎｅ"},
		{"é ü", "é　ü"},
		{"\x7f", "\x7f"},
	} {
		if got := VerticalText(tc.in); got != tc.want {
			t.Errorf("VerticalText(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestVertical(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"japanese mixed", `<p>今日はGo 1.24を試した。</p>`, `<p>今日はＧｏ　１．２４を試した。</p>`},
		{"href unchanged", `<p>見て <a href="https://example.com/a?b=1&amp;c=2" rel="nofollow">example.com</a></p>`,
			`<p>見て　<a href="https://example.com/a?b=1&amp;c=2" rel="nofollow">ｅｘａｍｐｌｅ．ｃｏｍ</a></p>`},
		{"entities decoded then converted", `<p>A &amp; B &lt;3 &quot;q&quot;</p>`, `<p>Ａ　＆　Ｂ　＜３　＂ｑ＂</p>`},
		{"code kept", `<p>run <code>go test ./...</code> now</p>`, `<p>ｒｕｎ　<code>go test ./...</code>　ｎｏｗ</p>`},
		{"pre code kept", "<pre><code>x := 1 &amp;&amp; y\n</code></pre><p>ok</p>", "<pre><code>x := 1 &amp;&amp; y\n</code></pre><p>ｏｋ</p>"},
		{"kbd samp", `<p><kbd>Ctrl</kbd>+<samp>OK</samp></p>`, `<p><kbd>Ctrl</kbd>＋<samp>OK</samp></p>`},
		{"whitespace between blocks", "<p>a</p>\n<p>b</p>", "<p>ａ</p>\n<p>ｂ</p>"},
		{"img alt untouched", `<p><img src="/m/a.png" alt="A cat"></p>`, `<p><img src="/m/a.png" alt="A cat"></p>`},
		{"no ascii text", `<p>縦書き、です。</p>`, `<p>縦書き、です。</p>`},
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
		// appears from converted text.
		a, b := tags(in), tags(out)
		if strings.Join(a, "\x00") != strings.Join(b, "\x00") {
			t.Fatalf("Vertical(%q) = %q: tags changed\n in %q\nout %q", in, out, a, b)
		}
		// Idempotent on its own output: converted text has no ASCII left.
		if again := Vertical(out); again != out {
			t.Fatalf("Vertical(Vertical(%q)) = %q; want %q", in, again, out)
		}
		// Text without printable ASCII is unchanged.
		if !strings.ContainsFunc(in, func(r rune) bool { return r >= 0x20 && r <= 0x7e }) {
			if got := VerticalText(in); got != in {
				t.Fatalf("VerticalText(%q) = %q; want it unchanged", in, got)
			}
			if out != in {
				t.Fatalf("Vertical(%q) = %q; want it unchanged (no ASCII)", in, out)
			}
		}
	})
}
