package markup

import (
	"strings"
	"unicode"
	"unicode/utf8"
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
// are; only "<wbr>" is ever added. It scans the HTML as it is (entities
// are one character each and never split) rather than tokenize it: every
// post page pays for it, under CGI too.
func BreakLongWords(src string) string {
	if !hasLongRun(src) {
		return src
	}
	var b strings.Builder
	b.Grow(len(src) + len(src)/32)
	skip := 0 // depth of elements whose text stays as is
	for i := 0; i < len(src); {
		if isTagAt(src, i) {
			j := tagEnd(src, i)
			b.WriteString(src[i:j])
			if name, closing := tagName(src[i:j]); keepsText(name) {
				if !closing {
					skip++
				} else if skip > 0 {
					skip--
				}
			}
			i = j
			continue
		}
		j := i + 1
		for {
			k := strings.IndexByte(src[j:], '<')
			if k < 0 {
				j = len(src)
				break
			}
			if j += k; isTagAt(src, j) {
				break
			}
			j++
		}
		if seg := src[i:j]; skip == 0 && hasLongRun(seg) {
			writeBroken(&b, seg)
		} else {
			b.WriteString(seg)
		}
		i = j
	}
	return b.String()
}

// isTagAt reports whether a tag, an end tag, a comment or a declaration
// starts at s[i], as the HTML tokenizer would see it.
func isTagAt(s string, i int) bool {
	if s[i] != '<' || i+1 >= len(s) {
		return false
	}
	c := s[i+1]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}

// tagEnd returns the index after the tag that starts at s[i]: after its
// ">" outside quoted attribute values, after "-->" for a comment, or
// len(s) when it is not closed.
func tagEnd(s string, i int) int {
	if strings.HasPrefix(s[i:], "<!--") {
		if k := strings.Index(s[i+4:], "-->"); k >= 0 {
			return i + 4 + k + 3
		}
		return len(s)
	}
	quote := byte(0)
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			if s[j-1] == '=' || s[j-1] == ' ' {
				quote = c
			}
		case c == '>':
			return j + 1
		}
	}
	return len(s)
}

// tagName is the lower-case name of tag ("<pre class=x>" → "pre") and
// whether it is an end tag.
func tagName(tag string) (string, bool) {
	t := strings.TrimPrefix(tag, "<")
	closing := strings.HasPrefix(t, "/")
	t = strings.TrimPrefix(t, "/")
	n := 0
	for n < len(t) && (t[n] >= 'a' && t[n] <= 'z' || t[n] >= 'A' && t[n] <= 'Z' || t[n] >= '0' && t[n] <= '9') {
		n++
	}
	return strings.ToLower(t[:n]), closing
}

// hasLongRun reports whether s has, outside its tags, MinLongWord Latin
// characters in a row (printable ASCII but the space). It is the cheap
// test that spares most posts any further work.
func hasLongRun(s string) bool {
	n, inTag := 0, false
	for i := 0; i < len(s); {
		c := s[i]
		size, word := wordRuneAt(s, i)
		switch {
		case c == '<':
			inTag, n = true, 0
		case inTag:
			inTag = c != '>'
		case word:
			if n++; n >= MinLongWord {
				return true
			}
		default:
			n = 0
		}
		i += size
	}
	return false
}

// wordRuneAt reports the size of the character at s[i] and whether it
// belongs to a word of a script written with spaces between words:
// printable ASCII, and the letters and combining marks of the Latin,
// Greek, Cyrillic, Armenian and Georgian scripts ("Kapitänswitwe" is one
// word, not two on either side of its ä). Japanese, Chinese, Thai and the
// like are not: the browser breaks them between any two characters or by
// its own dictionary.
func wordRuneAt(s string, i int) (int, bool) {
	c := s[i]
	if c < utf8.RuneSelf {
		return 1, c > ' ' && c <= '~'
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError {
		return size, false
	}
	return size, unicode.Is(unicode.Mn, r) || unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic, unicode.Armenian, unicode.Georgian)
}

// markAt reports whether a combining mark starts at s[i]: a break never
// goes between a letter and its marks.
func markAt(s string, i int) bool {
	if i >= len(s) || s[i] < utf8.RuneSelf {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.Is(unicode.Mn, r)
}

// writeBroken writes the raw (escaped) text t with its long runs given
// break opportunities.
func writeBroken(b *strings.Builder, t string) {
	for len(t) > 0 {
		i := 0
		for i < len(t) {
			size, word := wordRuneAt(t, i)
			if word {
				break
			}
			i += size
		}
		b.WriteString(t[:i])
		t = t[i:]
		j := 0
		for j < len(t) {
			size, word := wordRuneAt(t, j)
			if !word {
				break
			}
			j += size
		}
		run := t[:j]
		t = t[j:]
		switch {
		case len(run) < MinLongWord:
			b.WriteString(run)
		case isAddress(run):
			writeAddress(b, run)
		default:
			writeChunks(b, run)
		}
	}
}

func isAddress(w string) bool {
	return strings.HasPrefix(w, "https://") || strings.HasPrefix(w, "http://") || strings.HasPrefix(w, "www.")
}

// entityLen is the length of the character reference at the start of s
// ("&amp;", "&#38;", "&#x26;"), 0 when there is none. A name without its
// ";" ("&amp0") counts to the end of its letters and digits: the
// tokenizer may still read a reference in it, so it is never split.
func entityLen(s string) int {
	if len(s) < 2 || s[0] != '&' {
		return 0
	}
	i := 1
	if s[i] == '#' {
		i++
	}
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9') {
		i++
	}
	if i < len(s) && s[i] == ';' {
		i++
	}
	if i == 1 || i == 2 && s[1] == '#' {
		return 0
	}
	return i
}

// writeAddress writes an address (raw text) with a break after its
// "://", after each "/" (after a "//", not inside it) and before each
// ".", "?", "&", "=" and "#"; a character reference is never split.
func writeAddress(b *strings.Builder, t string) {
	i := 0
	if k := strings.Index(t, "://"); k >= 0 {
		i = k + 3
		b.WriteString(t[:i])
		b.WriteString("<wbr>")
	}
	from := i
	brk := func(at int) {
		if at > from {
			b.WriteString(t[from:at])
			b.WriteString("<wbr>")
			from = at
		}
	}
	for i < len(t) {
		switch c := t[i]; c {
		case '&':
			brk(i)
			if n := entityLen(t[i:]); n > 0 {
				i += n
				continue
			}
		case '/':
			if i+1 < len(t) && t[i+1] != '/' {
				brk(i + 1)
			}
		case '.', '?', '=', '#':
			brk(i)
		}
		i++
	}
	b.WriteString(t[from:])
}

// writeChunks writes a long word (raw text) with a break every WordChunk
// characters, none in its last few (a line never starts with a scrap of
// it); a character reference or a multi-byte character counts as one and
// is never split, nor a letter from its combining marks.
func writeChunks(b *strings.Builder, w string) {
	step := func(i int) int {
		if n := entityLen(w[i:]); n > 0 {
			return n
		}
		_, size := utf8.DecodeRuneInString(w[i:])
		return size
	}
	units := 0
	for i := 0; i < len(w); i += step(i) {
		units++
	}
	n, since, from := 0, 0, 0
	for i := 0; i < len(w); {
		i += step(i)
		n++
		since++
		if since >= WordChunk && units-n > WordChunk/2 && i < len(w) && !markAt(w, i) {
			b.WriteString(w[from:i])
			b.WriteString("<wbr>")
			from, since = i, 0
		}
	}
	b.WriteString(w[from:])
}
