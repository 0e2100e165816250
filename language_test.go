package murlog

import (
	"regexp"
	"testing"
)

// TestValidLanguageMatchesPattern checks the written-out ValidLanguage
// against the regular expression it replaces, on a table and on every
// string of up to 4 characters from a small alphabet.
func TestValidLanguageMatchesPattern(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)
	want := func(s string) bool { return len(s) <= 35 && re.MatchString(s) }
	cases := []string{"", "j", "ja", "jpn", "japa", "en-US", "zh-Hant-TW", "en-", "-en", "en--US", "en-123456789",
		"en-12345678", "e1", "12", "en_US", "ja\n", "ja-JP-x-abcdefgh", "aa-aaaaaaaa-aaaaaaaa-aaaaaaaa-aaaaaa", "aa-aaaaaaaa-aaaaaaaa-aaaaaaaa-aaaaa"}
	alphabet := []byte{'a', 'Z', '1', '-', '_'}
	var gen func(prefix []byte, n int)
	gen = func(prefix []byte, n int) {
		cases = append(cases, string(prefix))
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			gen(append(prefix, c), n-1)
		}
	}
	gen(nil, 4)
	for _, s := range cases {
		if got := ValidLanguage(s); got != want(s) {
			t.Errorf("ValidLanguage(%q) = %v; the pattern says %v", s, got, want(s))
		}
	}
}
