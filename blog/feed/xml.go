package feed

import (
	"strings"
	"unicode/utf8"

	"github.com/murlog/murlog/internal/xmltext"
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

// escape is the one XML escaper (internal/xmltext), which discovery's
// host-meta uses too.
var escape = xmltext.Escape

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
