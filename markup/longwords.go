package markup

import (
	"html"
	"strings"

	xhtml "golang.org/x/net/html"
)

// Long words, for display only: a run of Latin text with no break
// opportunity is one unbreakable word to the browser. A line that cannot
// take it ends early (in justified text, with wide gaps between its other
// words) and the word itself is cut wherever the column ends. BreakLongWords
// gives such runs break opportunities (<wbr>, which is neither drawn nor
// copied): an address after its "://" and each "/", and before each ".",
// "?", "&", "=" and "#"; any other word every WordChunk characters.
const (
	// MinLongWord is the length from which a run counts as long: longer
	// than common words ("internationalization" has 20 letters), shorter
	// than a phone's line.
	MinLongWord = 24
	// WordChunk is how many characters of a long word stand between two
	// break opportunities.
	WordChunk = 8
)

// BreakLongWords gives the long Latin runs in the text of sanitized HTML
// break opportunities (see above). Tags, attributes, Japanese text and the
// text of <code>, <pre>, <kbd>, <samp>, <script> and <style> stay as they
// are.
func BreakLongWords(src string) string {
	if !hasLongRun(src) {
		return src
	}
	var b strings.Builder
	b.Grow(len(src) + len(src)/16)
	z := xhtml.NewTokenizer(strings.NewReader(src))
	skip := 0
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			return b.String()
		case xhtml.TextToken:
			raw := z.Raw()
			if skip > 0 || !hasLongRun(string(raw)) {
				b.Write(raw)
				continue
			}
			writeBroken(&b, string(z.Text()))
		case xhtml.StartTagToken, xhtml.EndTagToken:
			b.Write(z.Raw())
			if name, _ := z.TagName(); keepsText(string(name)) {
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

// hasLongRun reports whether s has, outside its tags, MinLongWord Latin
// characters in a row (printable ASCII but the space). It is the cheap
// test that spares most posts the tokenizer.
func hasLongRun(s string) bool {
	n, inTag := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '<':
			inTag, n = true, 0
		case inTag:
			inTag = c != '>'
		case c > ' ' && c <= '~':
			if n++; n >= MinLongWord {
				return true
			}
		default:
			n = 0
		}
	}
	return false
}

// writeBroken writes text t escaped, its long runs with break
// opportunities.
func writeBroken(b *strings.Builder, t string) {
	from := 0
	for i := 0; i <= len(t); i++ {
		if i < len(t) && isLatin(rune(t[i])) {
			continue
		}
		// t[from:i] is a Latin run (maybe empty); t[i] ends it.
		run := t[from:i]
		if len(run) >= MinLongWord {
			if isAddress(run) {
				writeAddress(b, run)
			} else {
				writeChunks(b, run)
			}
		} else {
			b.WriteString(html.EscapeString(run))
		}
		if i < len(t) {
			end := i + 1
			for end < len(t) && !isLatin(rune(t[end])) {
				end++
			}
			b.WriteString(html.EscapeString(t[i:end]))
			from, i = end, end-1
		}
	}
}

func isAddress(w string) bool {
	return strings.HasPrefix(w, "https://") || strings.HasPrefix(w, "http://") || strings.HasPrefix(w, "www.")
}

// writeAddress writes an address with a break after the scheme's "://",
// after each "/" (after a "//", not inside it) and before each ".", "?",
// "&", "=" and "#".
func writeAddress(b *strings.Builder, t string) {
	start := 0
	if i := strings.Index(t, "://"); i >= 0 {
		start = i + 3
		b.WriteString(html.EscapeString(t[:start]))
		b.WriteString("<wbr>")
	}
	from := start
	for i := start; i < len(t); i++ {
		switch t[i] {
		case '/':
			if i+1 < len(t) && t[i+1] != '/' {
				b.WriteString(html.EscapeString(t[from : i+1]))
				b.WriteString("<wbr>")
				from = i + 1
			}
		case '.', '?', '&', '=', '#':
			if i > from {
				b.WriteString(html.EscapeString(t[from:i]))
				b.WriteString("<wbr>")
				from = i
			}
		}
	}
	b.WriteString(html.EscapeString(t[from:]))
}

// writeChunks writes a long word with a break every WordChunk characters,
// none in its last few (a line never starts with a scrap of it).
func writeChunks(b *strings.Builder, w string) {
	for len(w) > WordChunk+WordChunk/2 {
		b.WriteString(html.EscapeString(w[:WordChunk]))
		b.WriteString("<wbr>")
		w = w[WordChunk:]
	}
	b.WriteString(html.EscapeString(w))
}
