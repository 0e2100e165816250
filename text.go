package murlog

import (
	"strings"
	"unicode/utf8"
)

// CheckText is the one check for text a person typed, used by every
// service that stores text: it normalises line breaks to LF (browsers
// send CRLF from a textarea) and refuses invalid UTF-8 and control
// characters other than LF and TAB, which have no business in a post or a
// profile and can hide text or confuse terminals and logs. It returns the
// normalised text; the error is an EInvalid naming field.
func CheckText(field, s string) (string, error) {
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	if err := checkRunes(field, s, false); err != nil {
		return "", err
	}
	return s, nil
}

// CheckName checks a name that stands for someone: a username, a display
// name, a profile field's name. Besides what CheckText refuses it refuses
// line breaks and tabs (a name is one line) and the bidirectional controls
// (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), with which
// "\u202Eecila" displays as "alice" backwards and any name can pose as
// another.
func CheckName(field, s string) error {
	return checkRunes(field, s, true)
}

// checkRunes refuses invalid UTF-8 and control characters (all of them in a
// name; all but LF and TAB otherwise) in s. The loop only decodes bytes
// outside printable ASCII, so ordinary text costs one pass of comparisons.
func checkRunes(field, s string, name bool) error {
	n := 0 // characters before i, for the message
	for i := 0; i < len(s); n++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return Invalid(field, "is not valid UTF-8 (byte %d)", i)
			}
		}
		switch {
		case (r == '\n' || r == '\t') && !name:
		case r == '\n' || r == '\t':
			return Invalid(field, "must be one line without tabs (character %d)", n+1)
		case IsControl(r):
			return Invalid(field, "contains the control character U+%04X at character %d; only line breaks and tabs are allowed", r, n+1)
		case name && isBidiControl(r):
			return Invalid(field, "contains the bidirectional control character U+%04X at character %d, which could make it display as another name", r, n+1)
		}
		i += size
	}
	return nil
}

// IsControl reports whether r is a C0 or C1 control character or DEL.
// Unlike unicode.IsControl it is spelled out, so the rule is visible where
// it is enforced. config refuses the same set in paths, and markup strips
// it (less tab and line breaks) from output with a byte-level twin that a
// test holds to this one.
func IsControl(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f
}

func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}
