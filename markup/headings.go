package markup

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
)

// headingIDs generates heading ids for one document. goldmark's default
// generator drops every non-ASCII character, so all Japanese headings would
// become "heading", "heading-1", ...; this one keeps letters and digits in
// any script, so "## はじめに" links as "#はじめに". Ids depend only on the
// heading text and its order, so they are stable across re-renders. The
// sanitizer's policy then prefixes them (user-content-, see Policy), and
// links to them, so that no id in a post can clobber a script's global.
type headingIDs struct {
	used map[string]struct{}
}

// newHeadingIDs returns a generator with no ids taken; use one per document.
func newHeadingIDs() *headingIDs {
	return &headingIDs{used: map[string]struct{}{}}
}

// Generate implements parser.IDs. value is the raw heading text.
func (h *headingIDs) Generate(value []byte, _ ast.NodeKind) []byte {
	base := slug(value)
	id := base
	for n := 1; ; n++ {
		if _, taken := h.used[id]; !taken {
			break
		}
		id = base + "-" + strconv.Itoa(n)
	}
	h.used[id] = struct{}{}
	return []byte(id)
}

// Put implements parser.IDs, reserving an id set explicitly.
func (h *headingIDs) Put(value []byte) {
	h.used[string(value)] = struct{}{}
}

// slug lowercases s, keeps letters, digits, marks, '-' and '_', turns runs
// of whitespace into a single '-' and drops everything else (Markdown
// punctuation included). It never returns "" so every heading is linkable.
func slug(s []byte) string {
	var b strings.Builder
	dash := false
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		s = s[size:]
		switch {
		case r >= 0xFE00 && r <= 0xFE0F:
			// Emoji variation selectors would dangle once the emoji is gone.
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
		case r == '-' || unicode.IsSpace(r):
			dash = true
		}
	}
	if b.Len() == 0 {
		return "section"
	}
	return b.String()
}
