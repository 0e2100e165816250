package persona

import (
	"regexp"
	"testing"
)

// TestUsernameCharsMatchesPattern checks the written-out usernameChars
// against the regular expression it replaces.
func TestUsernameCharsMatchesPattern(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	cases := []string{"", "alice", "Alice_9", "al-ice", "al.ice", "a b", "a\n", "ä"}
	for _, c := range []byte("aZ9_-./ \x00@") {
		cases = append(cases, string(c), "x"+string(c), string(c)+"x")
	}
	for _, s := range cases {
		if got, want := usernameChars(s), re.MatchString(s); got != want {
			t.Errorf("usernameChars(%q) = %v; the pattern says %v", s, got, want)
		}
	}
}
