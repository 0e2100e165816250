// Package xmltext is the one escaper of text and attribute values in the
// XML murlog writes by hand (feeds, the sitemap, host-meta).
package xmltext

import (
	"strings"
	"unicode/utf8"
)

// Escape writes s as XML character data that is also safe in a quoted
// attribute: the five special characters as entities, a carriage return
// as a reference (a parser would otherwise turn it into a line feed), and
// nothing of what XML 1.0 cannot hold: invalid UTF-8, the control
// characters other than tab, line feed and carriage return, surrogates,
// U+FFFE and U+FFFF.
func Escape(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case '&':
				b.WriteString("&amp;")
			case '<':
				b.WriteString("&lt;")
			case '>':
				b.WriteString("&gt;")
			case '"':
				b.WriteString("&quot;")
			case '\'':
				b.WriteString("&apos;")
			case '\r':
				b.WriteString("&#xD;")
			case '\t', '\n':
				b.WriteByte(c)
			default:
				if c >= 0x20 && c != 0x7f {
					b.WriteByte(c)
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if xmlChar(r) && !(r == utf8.RuneError && size == 1) && !(r >= 0x80 && r <= 0x9f) {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
}

// xmlChar reports the characters of XML 1.0's Char production above
// ASCII.
func xmlChar(r rune) bool {
	return (r >= 0x80 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}
