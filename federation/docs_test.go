package federation_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/federation"
)

// docs/federation.md states the federation's numbers and what is
// signed; they are the code's.
func TestDocsSayWhatTheCodeDoes(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/federation.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ") // line breaks are spaces
	minutes := func(d time.Duration) string {
		if d == time.Minute {
			return "1 minute"
		}
		return fmt.Sprintf("%d minutes", int(d/time.Minute))
	}
	for _, want := range []string{
		"not more than once every " + minutes(federation.RefetchEvery) + " per actor",
		"not tried again for " + minutes(federation.FailedFor),
		fmt.Sprintf("**%d fetches at once and one every %g s**", federation.DefaultFetchDomainBurst, 1/federation.DefaultFetchDomainRate),
		fmt.Sprintf("**%d at once and %g a second**", federation.DefaultFetchTotalBurst, float64(federation.DefaultFetchTotalRate)),
		"WebFinger lookups (`/.well-known/webfinger`) go out unsigned",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/federation.md does not say %q", want)
		}
	}
	for _, wrong := range []string{"signs every outbound request", "not more than once a minute per actor"} {
		if strings.Contains(doc, wrong) {
			t.Errorf("docs/federation.md still says %q", wrong)
		}
	}
}
