package feed

import (
	"strings"
	"unicode/utf8"
)

// xmlw builds an XML document. Every text and attribute value goes
// through escape; only the fixed markup of this package goes through raw.
type xmlw struct{ b strings.Builder }

func (w *xmlw) raw(s string) { w.b.WriteString(s) }

func (w *xmlw) bytes() []byte { return []byte(w.b.String()) }

// elem writes <name>text</name> and a line break.
func (w *xmlw) elem(name, text string) { w.elemAttr(name, text) }

// elemAttr writes <name k="v"…>text</name>; attrs are key, value pairs.
func (w *xmlw) elemAttr(name, text string, attrs ...string) {
	w.b.WriteString("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		w.attr(attrs[i], attrs[i+1])
	}
	w.b.WriteByte('>')
	escape(&w.b, text)
	w.b.WriteString("</" + name + ">\n")
}

// empty writes <name k="v"…/> and a line break.
func (w *xmlw) empty(name string, attrs ...string) {
	w.b.WriteString("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		w.attr(attrs[i], attrs[i+1])
	}
	w.b.WriteString("/>\n")
}

// attr writes ` key="value"`.
func (w *xmlw) attr(key, value string) {
	w.b.WriteString(" " + key + `="`)
	escape(&w.b, value)
	w.b.WriteByte('"')
}

// escape writes s as XML character data that is also safe in a quoted
// attribute: the five special characters as entities, a carriage return
// as a reference (a parser would otherwise turn it into a line feed), and
// nothing of what XML 1.0 cannot hold: invalid UTF-8, the control
// characters other than tab, line feed and carriage return, surrogates,
// U+FFFE and U+FFFF.
func escape(b *strings.Builder, s string) {
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

// clean drops from s what cannot stand in a line of robots.txt: line
// breaks and other control characters.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
}
