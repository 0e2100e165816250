package murlog

import (
	"strings"
	"testing"
)

func TestCheckText(t *testing.T) {
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
		"zero\u200dwidth joins": "", // ZWJ builds emoji; it is not a bidi control
	} {
		err := CheckName("display_name", in)
		if (bad == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), bad) {
			t.Errorf("CheckName(%q) = %v; want %q", in, err, bad)
		}
	}
}
