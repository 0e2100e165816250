package murlog

import (
	"strings"
	"testing"
	"unicode"
)

// TestFolder: Lower is unicode.ToLower for every rune, whatever the cache
// held before (each cache slot is shared by runes 64 apart), and Fold is
// strings.Map(unicode.ToLower).
func TestFolder(t *testing.T) {
	t.Parallel()
	var f Folder
	for r := rune(0); r <= 0x2ffff; r++ {
		for _, q := range []rune{r, r ^ 64, r} {
			if got, want := f.Lower(q), unicode.ToLower(q); got != want {
				t.Fatalf("Lower(%U) = %U; want %U", q, got, want)
			}
		}
	}
	for _, s := range []string{"", "already lower", "Mixed Case", "ÀÉÎÕÜ Жж İstanbul ΣΑΣ", "日本語とEnglish", "K (kelvin)", "\xffbad"} {
		if got, want := f.Fold(s), strings.Map(unicode.ToLower, s); got != want {
			t.Errorf("Fold(%q) = %q; want %q", s, got, want)
		}
	}
}
