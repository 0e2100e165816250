package markup

import (
	"testing"

	"github.com/murlog/murlog"
)

// TestStrippedMatchesTheDomainsControls: the byte-level check markup
// strips with is the domain's control set (murlog.IsControl) less the
// line breaks and tab that text keeps.
func TestStrippedMatchesTheDomainsControls(t *testing.T) {
	t.Parallel()
	for r := rune(0); r < 0x100; r++ {
		s := string(r)
		want := murlog.IsControl(r) && r != '\t' && r != '\n' && r != '\r'
		if got := isStripped(s, 0); got != want {
			t.Errorf("isStripped(%U) = %v; murlog.IsControl says %v", r, got, want)
		}
	}
}
