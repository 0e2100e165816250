package murlog

import (
	"unicode"
	"unicode/utf8"
)

// Folder lower-cases text as unicode.ToLower does rune by rune (the case
// folding of search and of its KWIC lines), faster: ASCII without a table
// lookup, other runes through a small cache, since a text uses few
// distinct letters. unicode.ToLower's range search costs tens of
// nanoseconds a rune, which on a 100,000-character article adds up. The
// zero value is ready; a Folder is for one goroutine.
type Folder struct {
	keys, vals [64]rune
}

// Lower returns unicode.ToLower(r).
func (f *Folder) Lower(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	k := r & 63
	if f.keys[k] != r || r == 0 {
		f.keys[k], f.vals[k] = r, unicode.ToLower(r)
	}
	return f.vals[k]
}

// Fold returns s with every rune lowered (s itself, not a copy, when s is
// lower-case ASCII).
func (f *Folder) Fold(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, i, len(s))
	copy(b, s[:i])
	for _, r := range s[i:] {
		b = utf8.AppendRune(b, f.Lower(r))
	}
	return string(b)
}
