package markup

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/murlog/murlog"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Helpers that read rendered HTML back as text, for page descriptions,
// Plain lists, KWIC search lines and feed summaries. They read with the
// tokenizer, not the tree parser: the input is already sanitized, so only
// the text and the element boundaries matter, and one pass with no tree
// keeps them cheap on every list page.

// Ellipsis marks text that was cut.
const Ellipsis = "…"

// PlainText returns the text of sanitized HTML: tags dropped, entities
// decoded, block boundaries as single spaces, whitespace collapsed.
// The text of script, style, template and ruby annotations (rt, rp) is
// left out: it is not what a reader reads in the line.
func PlainText(html string) string { return PlainTextPrefix(html, -1) }

// PlainTextPrefix is PlainText cut after its first n characters (n < 0:
// all of it). It stops reading there, so an excerpt of a long article costs
// what its first paragraph costs, not the whole text.
func PlainTextPrefix(html string, n int) string {
	switch {
	case n == 0:
		return ""
	case n < 0:
		n = 0
	}
	w := spaceWriter{limit: n}
	z := xhtml.NewTokenizer(strings.NewReader(html))
	skip := atom.Atom(0) // the element whose content is being skipped
	depth := 0           // nesting of skip inside itself (rt in rt)
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return w.String()
		case xhtml.TextToken:
			if skip == 0 {
				w.WriteText(string(z.Text()))
				if w.full() {
					return w.String()
				}
			}
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if skip != 0 {
				if a == skip {
					depth++
				}
				continue
			}
			// A self-closing <script/> opens an element all the same.
			if skippedText(a) {
				skip, depth = a, 1
				continue
			}
			if breaksText(a) {
				w.Space()
			}
		case xhtml.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if skip != 0 {
				if a == skip {
					if depth--; depth == 0 {
						skip = 0
					}
				}
				continue
			}
			if breaksText(a) {
				w.Space()
			}
		}
	}
}

// skippedText reports the elements whose text PlainText leaves out.
func skippedText(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Noembed, atom.Noframes,
		atom.Iframe, atom.Title, atom.Xmp, atom.Plaintext, atom.Textarea, atom.Rt, atom.Rp:
		return true
	}
	return false
}

// breaksText reports the elements whose boundaries separate words: the
// block elements, line breaks, table cells and images (whose alt text is
// not read but which stand between words).
func breaksText(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Br, atom.Dd, atom.Details,
		atom.Dialog, atom.Div, atom.Dl, atom.Dt, atom.Fieldset, atom.Figcaption, atom.Figure,
		atom.Footer, atom.Form, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Header,
		atom.Hgroup, atom.Hr, atom.Img, atom.Li, atom.Main, atom.Nav, atom.Ol, atom.P, atom.Pre,
		atom.Section, atom.Summary, atom.Table, atom.Tbody, atom.Td, atom.Tfoot, atom.Th,
		atom.Thead, atom.Tr, atom.Ul, atom.Caption, atom.Video, atom.Audio:
		return true
	}
	return false
}

// spaceWriter collects text with every run of white space (and every
// element boundary) written as one space, and none at either end.
type spaceWriter struct {
	b       strings.Builder
	pending bool // a space is owed before the next character
	limit   int  // characters to keep; 0 for all
	n       int  // characters written
}

func (w *spaceWriter) full() bool { return w.limit > 0 && w.n >= w.limit }

func (w *spaceWriter) Space() { w.pending = w.b.Len() > 0 }

func (w *spaceWriter) WriteText(s string) {
	for _, r := range s {
		if w.full() {
			return
		}
		if unicode.IsSpace(r) {
			w.Space()
			continue
		}
		if w.pending {
			w.b.WriteByte(' ')
			w.pending = false
			if w.n++; w.full() {
				return
			}
		}
		w.b.WriteRune(r)
		w.n++
	}
}

func (w *spaceWriter) String() string { return w.b.String() }

// Excerpt returns the first n characters of PlainText(html), cut at a word
// or sentence boundary where one is near, with "…" when cut.
func Excerpt(html string, n int) string { return ExcerptText(PlainText(html), n) }

// ExcerptText is Excerpt for text that is already plain (a title, a
// profile's introduction): white space is collapsed, and the result is at
// most n characters plus the "…" that says it was cut. n ≤ 0 gives "".
//
// The cut prefers, within the last third of the n characters, the end of
// a sentence ("。", "！", "？", or ".", "!", "?" before a space), then a
// space, then a Japanese or Latin comma; only text without any of them
// is cut in the middle of a word.
func ExcerptText(text string, n int) string {
	if n <= 0 {
		return ""
	}
	s := strings.TrimSuffix(text, " ")
	if !collapsed(s) {
		var w spaceWriter
		w.WriteText(text)
		s = w.String()
	}
	lo := max(n-n/3, 1)
	if !utf8.ValidString(s) {
		// Invalid bytes become U+FFFD, as []rune makes them.
		rs := []rune(s)
		if len(rs) <= n {
			return s
		}
		cut := excerptCut(n, lo, func(k int) rune { return rs[k] })
		return strings.TrimRightFunc(string(rs[:cut]), unicode.IsSpace) + Ellipsis
	}
	// Only the starts of runes lo-1 … n are needed to choose the cut: the
	// text is not converted to runes (pages cut every link's title and
	// every post's description).
	var buf [128]int
	starts := buf[:0]
	if n-lo+2 > len(buf) {
		starts = make([]int, 0, n-lo+2)
	}
	k, longer := 0, false
	for b := range s {
		if k >= lo-1 {
			starts = append(starts, b)
		}
		if k == n {
			longer = true
			break
		}
		k++
	}
	if !longer {
		return s // often already an excerpt: pages pass theirs on
	}
	cut := excerptCut(n, lo, func(k int) rune {
		r, _ := utf8.DecodeRuneInString(s[starts[k-lo+1]:])
		return r
	})
	return strings.TrimRightFunc(s[:starts[cut-lo+1]], unicode.IsSpace) + Ellipsis
}

// collapsed reports whether text is already as spaceWriter writes it:
// no white space but single ASCII spaces between other characters.
func collapsed(text string) bool {
	prevSpace := true // a leading space is not collapsed
	for _, r := range text {
		switch {
		case r == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
		case unicode.IsSpace(r):
			return false
		default:
			prevSpace = false
		}
	}
	return !prevSpace || text == ""
}

// excerptCut returns where to cut a text of more than n runes (at gives
// its k-th rune, for lo-1 ≤ k ≤ n) to keep at most n runes: the best
// boundary at or after lo, else n.
func excerptCut(n, lo int, at func(k int) rune) int {
	sentence, space, comma := -1, -1, -1
	// i is the length kept: the cut falls between rs[i-1] and rs[i].
	for i := n; i >= lo; i-- {
		prev, next := at(i-1), at(i)
		switch {
		case sentence < 0 && (prev == '。' || prev == '！' || prev == '？' || prev == '．'):
			sentence = i
		case sentence < 0 && (prev == '.' || prev == '!' || prev == '?') && next == ' ':
			sentence = i
		case space < 0 && next == ' ':
			space = i
		case comma < 0 && (prev == '、' || prev == '，' || prev == ',' || prev == '\u3000'):
			comma = i
		}
	}
	for _, c := range []int{sentence, space, comma} {
		if c > 0 {
			return c
		}
	}
	return n
}

// FirstImage returns the src of the first <img> of sanitized HTML, "" for
// none: an article's featured image. The src is returned as written
// (absolute, or site-relative), entities decoded.
func FirstImage(html string) string {
	// With no "<img" (in any case) there is no image, and most posts
	// need no tokenizing at all.
	i := indexImgTag(html)
	if i < 0 {
		return ""
	}
	z := xhtml.NewTokenizer(strings.NewReader(html[i:]))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return ""
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if !hasAttr || atom.Lookup(name) != atom.Img {
				continue
			}
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				if string(k) == "src" {
					if src := strings.TrimSpace(string(v)); src != "" {
						return src
					}
				}
			}
		}
	}
}

// indexImgTag returns the index of the first "<img" of html, compared
// without case, or -1.
func indexImgTag(html string) int {
	for i := 0; i+4 <= len(html); i++ {
		j := strings.IndexByte(html[i:], '<')
		if j < 0 || i+j+4 > len(html) {
			return -1
		}
		i += j
		if strings.EqualFold(html[i+1:i+4], "img") {
			return i
		}
	}
	return -1
}

// KWICHit is one keyword-in-context line of a search result.
type KWICHit struct{ Before, Match, After string }

// KWIC returns up to max lines of text around case-insensitive matches of
// any of terms, with about width characters on each side. max ≤ 0 gives
// none.
//
// Matching is on lower-cased runes, so the positions found are positions
// in text whatever the script (strings.ToLower of the whole text may
// change byte lengths and shift every index after a "İ"). Where terms
// overlap at one position the longest wins. A match that starts within
// width characters after the previous one's end joins its line (Match
// then runs from the first match to the last), since it would otherwise
// be shown twice, as long as the joined Match stays within 3×width
// characters (or one match): a long run of matches makes several lines,
// not one line of the whole run. The Before of a later line never reaches
// back into the previous line, so no text is repeated. "…" stands at each
// end where text was left out, and nowhere else.
//
// The text is searched for each term with strings.Index, in time linear
// in the text, so a long text of near-matches costs no more than others.
func KWIC(text string, terms []string, width, max int) []KWICHit {
	hits, _ := kwic(text, kwicTerms(terms), width, max)
	return hits
}

// kwicFirstRead is how many characters KWICOf reads first.
const kwicFirstRead = 2000

// KWICOf is KWIC(PlainTextPrefix(html, limit), terms, width, max), with
// the same result, but it reads the text only as far as the lines need:
// the first 2,000 characters, and four times as many each time the lines
// could still change with more text. Most posts show their lines from
// the start, so a page of long articles costs what their first
// paragraphs cost.
func KWICOf(html string, terms []string, width, max, limit int) []KWICHit {
	pats := kwicTerms(terms)
	for n := kwicFirstRead; ; n *= 4 {
		if limit > 0 && n > limit {
			n = limit
		}
		text := PlainTextPrefix(html, n)
		hits, need := kwic(text, pats, width, max)
		if n == limit || need < n || utf8.RuneCountInString(text) < n {
			return hits
		}
	}
}

// kwic is KWIC. need is how many characters of text the lines depend on:
// the end of the last line's match, its After and a match that could
// still join it (the longest term); more text than that changes nothing
// once max lines are found.
func kwic(text string, pats []kwicTerm, width, max int) (hits []KWICHit, need int) {
	need = math.MaxInt
	if max <= 0 || text == "" || len(pats) == 0 {
		return nil, need
	}
	if width < 0 {
		width = 0
	}
	if !utf8.ValidString(text) {
		text = string([]rune(text)) // each bad byte one U+FFFD, as a range reads it
	}
	// low is text lower-cased rune by rune; rune i of text starts at byte
	// orig[i] of text and at byte at[i] of low (and orig[n], at[n] are the
	// lengths, n the number of runes).
	var f murlog.Folder
	lowb := make([]byte, 0, len(text))
	orig := make([]int32, 0, len(text)+1)
	at := make([]int32, 0, len(text)+1)
	for i, r := range text {
		orig, at = append(orig, int32(i)), append(at, int32(len(lowb)))
		lowb = utf8.AppendRune(lowb, f.Lower(r))
	}
	n := len(orig)
	orig, at = append(orig, int32(len(text))), append(at, int32(len(lowb)))
	low := string(lowb)
	cut := func(from, to int) string { return text[orig[from]:orig[to]] }
	// next[k] is the rune index of pats[k]'s next match at or after the
	// scan, -1 when there is none left.
	next := make([]int, len(pats))
	find := func(k, from int) {
		j := strings.Index(low[at[from]:], pats[k].s)
		if j < 0 {
			next[k] = -1
			return
		}
		b := at[from] + int32(j)
		next[k] = from + sort.Search(n-from, func(i int) bool { return at[from+i] >= b })
	}
	for k := range pats {
		find(k, 0)
	}
	type span struct{ start, end int }
	var spans []span
	for i := 0; ; {
		s, n := -1, 0
		for k, p := range pats {
			if next[k] >= 0 && next[k] < i {
				find(k, i)
			}
			// pats are longest first: a later one wins only by starting
			// earlier.
			if next[k] >= 0 && (s < 0 || next[k] < s) {
				s, n = next[k], p.n
			}
		}
		if s < 0 {
			break
		}
		if k := len(spans) - 1; k >= 0 && s-spans[k].end <= width && s+n-spans[k].start <= max2(3*width, n) {
			spans[k].end = s + n
		} else {
			if len(spans) == max {
				break
			}
			spans = append(spans, span{s, s + n})
		}
		i = s + n
	}
	if len(spans) == 0 {
		return nil, need
	}
	if len(spans) == max {
		need = spans[max-1].end + width + pats[0].n
	}
	hits = make([]KWICHit, 0, len(spans))
	prevEnd := 0 // where the previous line's After stopped
	for k, s := range spans {
		from := s.start - width
		if from < prevEnd {
			from = prevEnd
		}
		to := s.end + width
		if k+1 < len(spans) && to > spans[k+1].start {
			to = spans[k+1].start
		}
		if to > n {
			to = n
		}
		before := cut(from, s.start)
		if from > prevEnd || (from > 0 && k == 0) {
			before = Ellipsis + strings.TrimLeftFunc(before, unicode.IsSpace)
		}
		after := cut(s.end, to)
		next := n
		if k+1 < len(spans) {
			next = spans[k+1].start - width
			if next < to {
				next = to
			}
		}
		if to < next {
			after = strings.TrimRightFunc(after, unicode.IsSpace) + Ellipsis
		}
		hits = append(hits, KWICHit{Before: before, Match: cut(s.start, s.end), After: after})
		prevEnd = to
	}
	return hits, need
}

func max2(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// kwicTerm is a lower-cased term and its length in runes.
type kwicTerm struct {
	s string
	n int
}

// kwicTerms lower-cases the distinct non-empty terms (rune by rune, as
// KWIC lowers the text), longest first.
func kwicTerms(terms []string) []kwicTerm {
	var out []kwicTerm
	seen := map[string]bool{}
	for _, t := range terms {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		rs := []rune(t)
		for i, r := range rs {
			rs[i] = unicode.ToLower(r)
		}
		if key := string(rs); !seen[key] {
			seen[key] = true
			out = append(out, kwicTerm{key, len(rs)})
		}
	}
	// Insertion sort: a search has a handful of terms.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].n > out[j-1].n; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
