package config

import (
	"os"
	"strings"
	"testing"
)

// Every key murlog.ini accepts has its row in docs/configuration.md.
func TestEveryKeyIsDocumented(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Keys {
		if !strings.Contains(string(b), "\n| `"+k+"` |") {
			t.Errorf("docs/configuration.md has no row for %s", k)
		}
	}
}
