package murlog

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
)

func TestCheckText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
		bad      string // part of the message; "" for accepted
	}{
		{"plain", "plain", ""},
		{"line\r\nbreaks\rand\ttabs\n", "line\nbreaks\nand\ttabs\n", ""},
		{"日本語と絵文字 🎉", "日本語と絵文字 🎉", ""},
		{"right-to-left \u202e is fine in prose", "right-to-left \u202e is fine in prose", ""},
		{"bell\a", "", "U+0007 at character 5"},
		{"nul\x00", "", "U+0000"},
		{"esc\x1b[31m", "", "U+001B"},
		{"del\x7f", "", "U+007F"},
		{"c1\u0085", "", "U+0085"},
		{"bad \xff utf-8", "", "not valid UTF-8 (byte 4)"},
		{"surrogate \xed\xa0\x80", "", "not valid UTF-8"},
	} {
		got, err := CheckText("content", tc.in)
		switch {
		case tc.bad == "" && (err != nil || got != tc.want):
			t.Errorf("CheckText(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad) || AsError(err).Field != "content"):
			t.Errorf("CheckText(%q) = %q, %v; want an invalid content error mentioning %q", tc.in, got, err, tc.bad)
		}
	}
}

func TestCheckName(t *testing.T) {
	t.Parallel()
	for in, bad := range map[string]string{
		"Alice":                 "",
		"アリス 🌸":                 "",
		"\u202eecila":           "U+202E",
		"a\u202ab":              "U+202A",
		"a\u2066b\u2069":        "U+2066",
		"a\u200fb":              "U+200F",
		"a\u061cb":              "U+061C",
		"two\nlines":            "one line",
		"tab\there":             "one line",
		"bell\a":                "U+0007",
		"\xc3":                  "UTF-8",
		"zero\u200dwidth joins": "U+200D", // between Latin letters a ZWJ only hides itself
		"👨\u200d👩\u200d👧":       "",       // in an emoji sequence it builds one
	} {
		err := CheckName("display_name", in)
		if (bad == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), bad) {
			t.Errorf("CheckName(%q) = %v; want %q", in, err, bad)
		}
	}
}

// TestIsDefaultIgnorable holds IsDefaultIgnorable, derived from Go's
// tables, to the Default_Ignorable_Code_Point ranges of Unicode 15.0's
// DerivedCoreProperties.txt, over every code point.
func TestIsDefaultIgnorable(t *testing.T) {
	t.Parallel()
	ranges := [][2]rune{
		{0x00AD, 0x00AD}, {0x034F, 0x034F}, {0x061C, 0x061C}, {0x115F, 0x1160}, {0x17B4, 0x17B5},
		{0x180B, 0x180F}, {0x200B, 0x200F}, {0x202A, 0x202E}, {0x2060, 0x206F}, {0x3164, 0x3164},
		{0xFE00, 0xFE0F}, {0xFEFF, 0xFEFF}, {0xFFA0, 0xFFA0}, {0xFFF0, 0xFFF8}, {0x1BCA0, 0x1BCA3},
		{0x1D173, 0x1D17A}, {0xE0000, 0xE0FFF},
	}
	want := func(r rune) bool {
		for _, rg := range ranges {
			if r >= rg[0] && r <= rg[1] {
				return true
			}
		}
		return false
	}
	bad := 0
	for r := rune(0); r <= unicode.MaxRune && bad < 10; r++ {
		if got := IsDefaultIgnorable(r); got != want(r) {
			t.Errorf("IsDefaultIgnorable(U+%04X) = %v; want %v", r, got, want(r))
			bad++
		}
	}
}

// TestCheckNameRefusesInvisibleNames: every default-ignorable and filler
// character the issue names, alone (a name that shows as none), around a
// name (one that shows as another) and inside one, is refused; names
// whose invisible characters do real work, and names in other scripts,
// pass.
func TestCheckNameRefusesInvisibleNames(t *testing.T) {
	t.Parallel()
	invisible := []rune{
		0x3164, 0x115F, 0x1160, 0xFFA0, // Hangul fillers
		0x00AD,                                 // soft hyphen
		0x200B, 0x200C, 0x200D, 0x200E, 0x200F, // zero-width space, (non-)joiner, marks
		0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x2065, // word joiner, invisible operators
		0x206A, 0x206F, // deprecated format controls
		0xFE00, 0xFE0E, 0xFE0F, 0xE0100, 0xE01EF, // variation selectors
		0x034F, 0x061C, 0x17B4, 0x17B5, 0x180B, 0x180E, 0x180F,
		0xFEFF, 0xFFF0, 0x1BCA0, 0x1D173,
		0xE0001, 0xE0020, 0xE007F, 0xE0FFF, // tags
	}
	for _, r := range invisible {
		c := string(r)
		names := []string{c, c + c, "alice" + c, c + "alice", "ali" + c + "ce", "山田" + c + "太郎"}
		if r >= 0xE0100 && r <= 0xE01EF || r == 0xFE00 {
			names = names[:5] // after 田 these select a variant glyph: their work
		}
		for _, name := range names {
			if err := CheckName("display_name", name); err == nil || AsError(err).Field != "display_name" ||
				!strings.Contains(err.Error(), fmt.Sprintf("U+%04X", r)) {
				t.Errorf("CheckName(%+q) = %v; want refused naming U+%04X", name, err, r)
			}
		}
	}
	for _, name := range []string{" ", "   ", "\u3000", "\u2800", "\u2800\u2800", "\u0301", "\u20e3", " \u2800 "} {
		if err := CheckName("display_name", name); err == nil || !strings.Contains(err.Error(), "no visible character") {
			t.Errorf("CheckName(%+q) = %v; want refused as showing nothing", name, err)
		}
	}
	for _, name := range []string{
		"", "Alice", "Zoë", "Zoe\u0308", "Łukasz", "山田太郎", "やまだ たろう", "ヤマダ", "김민수", "Ωμέγα", "Дмитрий",
		"👨\u200d👩\u200d👧",                           // family: ZWJ between emoji
		"🏳\ufe0f\u200d🌈",                            // rainbow flag: VS16, then ZWJ
		"👩🏽\u200d💻",                                 // skin tone modifier before the ZWJ
		"🧔\u200d♂\ufe0f",                            // ZWJ to a gender sign
		"❤\ufe0f", "1\ufe0f\u20e3", "#\ufe0f\u20e3", // emoji presentation, keycaps
		"🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f", // flag of England: tags
		"葛\U000e0100飾",     // an ideographic variation sequence
		"ශ්\u200dරී ලංකා",  // Sinhala: ZWJ after the virama
		"می\u200cخواهم",    // Persian: ZWNJ between letters
		"क्\u200dष",        // Devanagari half form
		"alice \u2800 bob", // a blank between visible characters shows as a space
	} {
		if err := CheckName("display_name", name); err != nil {
			t.Errorf("CheckName(%+q) = %v; want accepted", name, err)
		}
	}
}
