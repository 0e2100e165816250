package markup

import (
	"html"
	"strings"

	xhtml "golang.org/x/net/html"
)

// Vertical writing (縦書き): direction-dependent text is converted for
// display only. Printable ASCII becomes its full-width form and the ASCII
// space an ideographic space, so Latin letters and digits stand upright in
// a vertical-rl column. Stored text never changes.

// VerticalText converts plain text: U+0021–U+007E to U+FF01–U+FF5E and
// U+0020 to U+3000 (ideographic space); every other rune is kept.
func VerticalText(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r >= 0x20 && r <= 0x7e })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*(len(s)-i))
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		switch {
		case r == ' ':
			b.WriteRune('\u3000')
		case r >= 0x21 && r <= 0x7e:
			b.WriteRune(r - 0x21 + 0xff01)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Vertical converts the text nodes of sanitized HTML, leaving tags,
// attributes (URLs) and the text of <code>, <pre>, <kbd> and <samp> alone
// (code is read as written, not turned upright), and <script> and <style>.
// Entities are decoded before the conversion (&amp; becomes ＆) and the
// result is escaped again. A text node of ASCII white space only (between
// blocks) stays as it is: an ideographic space there would be drawn.
func Vertical(src string) string {
	var b strings.Builder
	b.Grow(len(src) * 2)
	z := xhtml.NewTokenizer(strings.NewReader(src))
	skip := 0 // depth of elements whose text stays as is
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			// io.EOF, or a truncated tail the tokenizer gave up on.
			return b.String()
		case xhtml.TextToken:
			raw := string(z.Raw()) // before Text, which rewrites CRs in place
			if skip > 0 {
				b.WriteString(raw)
				continue
			}
			t := string(z.Text())
			v := VerticalText(t)
			if v == t || strings.Trim(t, " \t\n\r\f") == "" {
				b.WriteString(raw)
				continue
			}
			b.WriteString(html.EscapeString(v))
		case xhtml.StartTagToken, xhtml.EndTagToken:
			b.Write(z.Raw())
			name, _ := z.TagName()
			if keepsText(string(name)) {
				if tt == xhtml.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
			}
		default:
			b.Write(z.Raw())
		}
	}
}

// keepsText reports whether the element's text must not be converted.
func keepsText(name string) bool {
	switch name {
	case "code", "pre", "kbd", "samp", "script", "style":
		return true
	}
	return false
}
