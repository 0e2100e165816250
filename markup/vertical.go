package markup

import (
	"html"
	"strings"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
)

// Vertical writing (縦書き), for display only (stored text never changes).
// A vertical-rl theme sets text with text-orientation: mixed, so Latin
// words and long numbers lie sideways and read as words, as Japanese
// vertical typesetting sets them. Only a short group between Japanese
// text stands upright (縦中横, tate-chu-yoko): one or two digits, or one or
// two of "!" and "?" after Japanese text — "12月", "第3回", "本当!?". One
// character becomes its full-width form (upright by itself); two become a
// <span class="tcy"> that the theme's CSS sets with
// text-combine-upright: all (CSS's "digits 2" would say it without
// markup, but Chromium does not implement it). Plain text (titles) cannot
// carry the span: both of a pair become full-width there.

// MaxUpright is the length of the longest group set upright.
const MaxUpright = 2

// VerticalText converts plain text: each upright group (see above)
// becomes full-width; every other rune is kept.
func VerticalText(s string) string {
	if !strings.ContainsFunc(s, isUprightRune) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 4)
	eachUpright(s, ' ', func(t string) { b.WriteString(t) }, func(g string) { writeFullWidth(&b, g) })
	return b.String()
}

// Vertical converts the text nodes of sanitized HTML: a single upright
// character becomes full-width and a pair a <span class="tcy">. Tags,
// attributes (URLs) and the text of <code>, <pre>, <kbd>, <samp>,
// <script> and <style> (code is read as written) stay as they are, and so
// does text that has no upright group. Entities are decoded before the
// conversion and the result is escaped again. A group's neighbours are
// looked for across inline tags too, so "2026/<wbr>12" keeps its 12 in the
// date.
func Vertical(src string) string {
	if !strings.ContainsFunc(src, isUprightRune) {
		return src
	}
	var b strings.Builder
	b.Grow(len(src) + len(src)/8)
	z := xhtml.NewTokenizer(strings.NewReader(src))
	skip := 0        // depth of elements whose text stays as is
	prev := ' '      // the last rune of text before this token (' ': none)
	var spans []bool // open <span>s: whether each is a tcy span (already upright)
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
				prev = 'x' // code reads as Latin; a tcy span's group does not
				if n := len(spans); n > 0 && spans[n-1] {
					prev = upright
				}
				continue
			}
			t := string(z.Text())
			if !strings.ContainsFunc(t, isUprightRune) {
				b.WriteString(raw)
				if r := lastNonSpace(t); r != 0 {
					prev = r
				}
			} else if r := writeVertical(&b, t, prev); r != 0 {
				prev = r
			}
		case xhtml.StartTagToken, xhtml.EndTagToken:
			b.Write(z.Raw())
			name, hasAttr := z.TagName()
			keep := keepsText(string(name))
			if string(name) == "span" {
				// A span this function wrote is kept as it is, so that
				// converting twice changes nothing.
				if tt == xhtml.StartTagToken {
					keep = hasAttr && isTCY(z)
					spans = append(spans, keep)
				} else if n := len(spans); n > 0 {
					keep, spans = spans[n-1], spans[:n-1]
				}
			}
			if keep {
				if tt == xhtml.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
			}
			if endsRun(string(name)) {
				prev = ' '
			}
		default:
			b.Write(z.Raw())
		}
	}
}

// writeVertical writes text t, escaped, with its upright groups converted;
// before is the last rune of the text before it.
func writeVertical(b *strings.Builder, t string, before rune) rune {
	return eachUpright(t, before, func(t string) { b.WriteString(html.EscapeString(t)) }, func(g string) {
		if len(g) == 1 {
			writeFullWidth(b, g)
			return
		}
		b.WriteString(`<span class="tcy">`)
		b.WriteString(g)
		b.WriteString(`</span>`)
	})
}

// writeFullWidth writes ASCII g in its full-width form (U+FF01–U+FF5E).
func writeFullWidth(b *strings.Builder, g string) {
	for _, r := range g {
		b.WriteRune(r - 0x21 + 0xff01)
	}
}

// eachUpright splits s into its upright groups, given to group, and the
// text between them, given to plain. A group is a run of at most
// MaxUpright digits, or of "!" and "?", whose nearest non-space
// neighbours are not Latin (printable ASCII but the space): a digit group
// needs that on both sides ("Go 1.24" and "A4" stay Latin), "!?" only
// before it ("Hello!" stays). before is the last rune ahead of s (a space
// for none, which counts as no neighbour).
func eachUpright(s string, before rune, plain, group func(string)) (last rune) {
	last = before
	if isSpace(last) {
		last = 0
	}
	from := 0 // start of the plain text not given yet
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isUprightRune(r) {
			if !isSpace(r) {
				last = r
			}
			i += size
			continue
		}
		digits := isDigit(r)
		j := i
		for j < len(s) && isUprightRune(rune(s[j])) && isDigit(rune(s[j])) == digits {
			j++
		}
		ok := j-i <= MaxUpright && !isLatin(last)
		if ok && digits {
			ok = !isLatin(nextNonSpace(s[j:]))
		}
		last = rune(s[j-1])
		if ok {
			if from < i {
				plain(s[from:i])
			}
			group(s[i:j])
			from = j
			last = upright // what is written now: no longer Latin
		}
		i = j
	}
	if from < len(s) {
		plain(s[from:])
	}
	return last
}

// upright stands for a converted group as a neighbour: not Latin.
const upright = '\uff10'

func lastNonSpace(s string) rune {
	for i := len(s); i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !isSpace(r) {
			return r
		}
		i -= size
	}
	return 0
}

func nextNonSpace(s string) rune {
	for _, r := range s {
		if !isSpace(r) {
			return r
		}
	}
	return 0
}

func isUprightRune(r rune) bool { return isDigit(r) || r == '!' || r == '?' }
func isDigit(r rune) bool       { return r >= '0' && r <= '9' }
func isSpace(r rune) bool       { return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' }

// isLatin reports whether r is printable ASCII other than the space: a
// neighbour that makes a digit part of a Latin word or number.
func isLatin(r rune) bool { return r > ' ' && r <= '~' }

// isTCY reports whether the start tag z is at has exactly class="tcy".
func isTCY(z *xhtml.Tokenizer) bool {
	for {
		k, v, more := z.TagAttr()
		if string(k) == "class" {
			return string(v) == "tcy"
		}
		if !more {
			return false
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

// endsRun reports whether the element ends a run of text, so that
// the text on its two sides are not neighbours.
func endsRun(name string) bool {
	switch name {
	case "p", "br", "li", "ul", "ol", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "div", "td", "th", "tr",
		"table", "pre", "hr", "img", "figure", "figcaption", "dd", "dt", "dl", "section", "details", "summary":
		return true
	}
	return false
}
