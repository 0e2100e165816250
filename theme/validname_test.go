package theme

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidNameMatchesPattern checks the written-out validName against
// validNamePattern.
func TestValidNameMatchesPattern(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(validNamePattern)
	cases := []string{"", "default", "a-b_c9", "../x", "a/b", "a.b", "a b", "x\n", "日本", strings.Repeat("a", 50), strings.Repeat("a", 51)}
	for _, c := range []byte("aZ9_-./ \x00") {
		cases = append(cases, string(c), "x"+string(c), string(c)+"x")
	}
	for _, s := range cases {
		if got, want := validName(s), re.MatchString(s); got != want {
			t.Errorf("validName(%q) = %v; the pattern says %v", s, got, want)
		}
	}
}
