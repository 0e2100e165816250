package metrics

import "testing"

// Label values escape backslash, double quote and newline, as the text
// format requires; nothing else changes.
func TestQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`plain.topic`: `"plain.topic"`,
		`a"b`:         `"a\"b"`,
		`a\b`:         `"a\\b"`,
		"a\nb":        `"a\nb"`,
		`\"` + "\n":   `"\\\"\n"`,
		"ünï ☃":       `"ünï ☃"`,
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s; want %s", in, got, want)
		}
	}
}
