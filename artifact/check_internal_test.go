package artifact

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestASCIIKeyAgreesWithCheck: the ASCII fast path accepts exactly the
// ASCII strings the full check accepts, keys and prefixes, on random
// strings over an alphabet of the allowed, the refused and the edges.
func TestASCIIKeyAgreesWithCheck(t *testing.T) {
	t.Parallel()
	const alphabet = "ab9/.-_~@+Z %\x00\\:é"
	rng := rand.New(rand.NewPCG(7, 11))
	runes := []rune(alphabet)
	for n := 0; n < 200_000; n++ {
		var b strings.Builder
		for l := rng.IntN(24); l > 0; l-- {
			b.WriteRune(runes[rng.IntN(len(runes))])
		}
		s := b.String()
		if rng.IntN(50) == 0 {
			s = strings.Repeat("a", MaxSegment+rng.IntN(3)-1) // segment length edges
		}
		for _, prefix := range []bool{false, true} {
			fast, full := asciiKey(s, prefix), checkFull(s, prefix) == nil
			ascii := !strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf })
			if fast && !full || ascii && full && !fast {
				t.Fatalf("%q (prefix %v): fast path %v, full check %v", s, prefix, fast, full)
			}
		}
	}
}
