package murlog

import (
	"strings"
	"unicode"
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

// CheckName checks a name that stands for someone or something: a
// username, a display name, a profile field's name, the site's name and
// author. Besides what CheckText refuses it refuses line breaks and tabs
// (a name is one line), the bidirectional controls (U+202A–U+202E,
// U+2066–U+2069, U+200E, U+200F, U+061C), with which "\u202Eecila"
// displays as "alice" backwards, and invisible characters (see
// checkInvisible), with which "alice\u200B" looks like "alice" and
// "\u3164" like no name at all. "" passes: whether a name may be empty is
// its caller's rule.
func CheckName(field, s string) error {
	if err := checkRunes(field, s, true); err != nil {
		return err
	}
	return checkInvisible(field, s)
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

// IsDefaultIgnorable reports whether r has Unicode's derived property
// Default_Ignorable_Code_Point: characters a renderer shows as nothing
// when it does not support them (U+00AD SOFT HYPHEN, U+200B–U+200F,
// U+2060–U+2064, U+3164 HANGUL FILLER, U+115F, U+1160, U+FFA0, U+FEFF,
// the variation selectors, the tag characters …). It is computed as
// DerivedCoreProperties.txt derives it, from the tables of Go's unicode
// package: Other_Default_Ignorable_Code_Point + Cf + Variation_Selector,
// less White_Space, the interlinear annotation controls U+FFF9–U+FFFB,
// the Egyptian hieroglyph format controls U+13430–U+13440 and the
// prepended concatenation marks (U+0600…, which are visible).
func IsDefaultIgnorable(r rune) bool {
	if r < 0xad || r >= 0xfff9 && r <= 0xfffb || r >= 0x13430 && r <= 0x13440 {
		return false
	}
	return unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector) &&
		!unicode.In(r, unicode.White_Space, unicode.Prepended_Concatenation_Mark)
}

// isBlank reports whether r shows as nothing or blank space on its own:
// white space, default-ignorable characters, combining marks (which need a
// base) and the fillers that are not default-ignorable, such as U+2800
// BRAILLE PATTERN BLANK.
func isBlank(r rune) bool {
	return unicode.IsSpace(r) || IsDefaultIgnorable(r) || unicode.In(r, unicode.Mn, unicode.Me) || r == 0x2800
}

// checkInvisible is CheckName's rule for invisible characters. A name
// that is not empty must show something: one that is only white space,
// fillers, marks or default-ignorable characters is refused. And a
// default-ignorable character is refused anywhere in a name unless the
// sequence it is in needs it (nameJoinerOK, variationOK, tagOK): a name
// that shows like another is a way to pose as someone. Printable ASCII
// holds none of these, so an ASCII name costs one pass of comparisons.
func checkInvisible(field, s string) error {
	if s == "" {
		return nil
	}
	visible, ascii := false, true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
		if s[i] != ' ' {
			visible = true
		}
	}
	if ascii {
		if !visible {
			return Invalid(field, "has no visible character, only spaces")
		}
		return nil
	}
	rs := []rune(s)
	first := rune(-1) // the first blank character, for the message
	for i, r := range rs {
		if !isBlank(r) {
			visible = true
		} else if first < 0 {
			first = r
		}
		if !IsDefaultIgnorable(r) || nameJoinerOK(rs, i) || variationOK(rs, i) || tagOK(rs, i) {
			continue
		}
		return Invalid(field, "contains the invisible character U+%04X at character %d, which could make it look like another name or like none", r, i+1)
	}
	if !visible {
		return Invalid(field, "has no visible character, only blank or invisible ones such as U+%04X", first)
	}
	return nil
}

// nameJoinerOK reports whether rs[i], U+200D ZERO WIDTH JOINER or U+200C
// ZERO WIDTH NON-JOINER, does a joiner's work: the ZWJ between two symbols
// of an emoji sequence (👨‍👩‍👧, 🏳️‍🌈), or either between two letters or
// marks of one script that shapes with them (Persian می‌خواهم, Sinhala
// ශ්‍රී). Between letters of scripts whose letters never join (Latin,
// Greek, Cyrillic, Han, kana, Hangul) a joiner only hides itself.
func nameJoinerOK(rs []rune, i int) bool {
	r := rs[i]
	if r != 0x200d && r != 0x200c || i == 0 || i == len(rs)-1 {
		return false
	}
	prev, next := rs[i-1], rs[i+1]
	if r == 0x200d {
		// Skip back over the emoji presentation selector and skin tone
		// modifiers to the symbol they modify.
		j := i - 1
		for j > 0 && (prev == 0xfe0f || prev >= 0x1f3fb && prev <= 0x1f3ff) {
			j--
			prev = rs[j]
		}
		if unicode.Is(unicode.So, prev) && unicode.Is(unicode.So, next) {
			return true
		}
		prev = rs[i-1]
	}
	if !unicode.In(prev, unicode.L, unicode.M) || !unicode.In(next, unicode.L, unicode.M) {
		return false
	}
	for _, t := range nonJoiningScripts {
		if unicode.Is(t, prev) || unicode.Is(t, next) {
			return false
		}
	}
	for _, t := range unicode.Scripts {
		if unicode.Is(t, prev) {
			return unicode.Is(t, next)
		}
	}
	return false
}

// nonJoiningScripts are the scripts in which ZWJ and ZWNJ change nothing
// a reader sees, with Common and Inherited (a mark not of one script).
var nonJoiningScripts = []*unicode.RangeTable{unicode.Latin, unicode.Greek, unicode.Cyrillic,
	unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Common, unicode.Inherited}

// variationOK reports whether rs[i], a variation selector, follows a
// base it can select a glyph of. An ideographic one (U+E0100–U+E01EF)
// follows a Han ideograph (葛󠄀); the text and emoji presentation
// selectors (U+FE0E, U+FE0F) follow a symbol, digit or punctuation mark
// (❤️, 1️⃣), not a letter; the other standardized ones (U+FE00–U+FE0D)
// follow anything visible but a Latin, Greek or Cyrillic letter, which
// have no variation sequences; the Mongolian ones (U+180B–U+180D, U+180F)
// follow a Mongolian letter. So "alice\uFE00" and "山田\uFE0F太郎" do not
// pass.
func variationOK(rs []rune, i int) bool {
	if i == 0 || isBlank(rs[i-1]) {
		return false
	}
	r, base := rs[i], rs[i-1]
	switch {
	case r >= 0xe0100 && r <= 0xe01ef:
		return unicode.Is(unicode.Han, base)
	case r == 0xfe0e || r == 0xfe0f:
		return !unicode.In(base, unicode.L, unicode.M)
	case r >= 0xfe00 && r <= 0xfe0d:
		return !unicode.IsLetter(base) || !unicode.In(base, unicode.Latin, unicode.Greek, unicode.Cyrillic)
	case r >= 0x180b && r <= 0x180d || r == 0x180f:
		return unicode.Is(unicode.Mongolian, base) && unicode.IsLetter(base)
	}
	return false
}

// tagOK reports whether rs[i], a tag character (U+E0020–U+E007F), is part
// of an emoji tag sequence: the flags of England, Scotland and Wales are
// U+1F3F4 WAVING BLACK FLAG, tag letters and U+E007F CANCEL TAG.
func tagOK(rs []rune, i int) bool {
	r := rs[i]
	if r < 0xe0020 || r > 0xe007f || i == 0 {
		return false
	}
	prev := rs[i-1]
	inTags := prev >= 0xe0020 && prev <= 0xe007e
	if r == 0xe007f {
		return inTags
	}
	return inTags || prev == 0x1f3f4
}
