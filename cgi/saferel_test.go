package cgi

import (
	"regexp"
	"testing"
)

// TestSafeRelMatchesPattern checks the written-out safeRel against the
// regular expression it replaces.
func TestSafeRelMatchesPattern(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
	cases := []string{"", "data", "a/b.c-d_e", "a b", "a\n", "$x", "ä", "(x)"}
	for _, c := range []byte("aZ9_-./ \x00$^") {
		cases = append(cases, string(c), "x"+string(c), string(c)+"x")
	}
	for _, s := range cases {
		if got, want := safeRel(s), re.MatchString(s); got != want {
			t.Errorf("safeRel(%q) = %v; the pattern says %v", s, got, want)
		}
	}
}
