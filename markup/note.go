package markup

import (
	"strings"
	"unicode/utf8"
)

// Note renders a plain-text note the way Mastodon renders plain-text
// statuses: nothing the owner types becomes markup, blank lines separate
// paragraphs, single newlines become <br>, and URLs, #hashtags and
// @user@host mentions become links. It needs neither goldmark nor the
// sanitizer, which keeps the common CGI request cheap.
func (r *Renderer) Note(text string) Result {
	text = normalizeText(text)
	if text == "" {
		return Result{}
	}
	var b strings.Builder
	// Escaping and links grow the text; guessing generously avoids most
	// re-allocations for typical notes.
	b.Grow(len(text)*3/2 + 64)
	l := linker{r: r, b: &b}

	para := -1   // start of the current paragraph, or -1 between paragraphs
	lastEnd := 0 // end of the last non-blank line
	for pos := 0; pos <= len(text); {
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		if strings.TrimSpace(text[pos:end]) == "" {
			if para >= 0 {
				writeParagraph(&l, text[para:lastEnd])
				para = -1
			}
		} else {
			if para < 0 {
				para = pos
			}
			lastEnd = end
		}
		pos = end + 1
	}
	if para >= 0 {
		writeParagraph(&l, text[para:lastEnd])
	}
	return Result{HTML: b.String(), Tags: l.c.tags, Mentions: l.c.mentions}
}

// writeParagraph writes one <p> whose lines are joined by <br>.
func writeParagraph(l *linker, s string) {
	l.b.WriteString("<p>")
	l.text(s, 0, true)
	l.b.WriteString("</p>")
}

// normalizeText makes input from browsers and API clients uniform: invalid
// UTF-8 is replaced, CRLF and lone CR become LF, control characters are
// removed and surrounding whitespace is trimmed.
func normalizeText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return strings.TrimSpace(stripControls(s))
}

// stripControls removes C0 controls other than TAB, LF and CR, DEL and the
// C1 controls (U+0080–U+009F) from valid UTF-8. murlog refuses them on
// input; this keeps them out of the HTML of posts stored before that, and
// of remote HTML. Text without any is returned as is, after one pass.
func stripControls(s string) string {
	i := 0
	for ; i < len(s); i++ {
		if isStripped(s, i) {
			break
		}
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for start := 0; i <= len(s); i++ {
		if i == len(s) || isStripped(s, i) {
			b.WriteString(s[start:i])
			if i < len(s) && s[i] == 0xc2 {
				i++ // a C1 control is two bytes
			}
			start = i + 1
		}
	}
	return b.String()
}

// isStripped reports whether a control character to strip starts at s[i].
func isStripped(s string, i int) bool {
	switch c := s[i]; {
	case c < 0x20:
		return c != '\t' && c != '\n' && c != '\r'
	case c == 0x7f:
		return true
	case c == 0xc2:
		return i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f
	}
	return false
}
