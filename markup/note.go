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
// UTF-8 is replaced, CRLF and lone CR become LF, and surrounding whitespace
// is trimmed.
func normalizeText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return strings.TrimSpace(s)
}
