package i18n

import (
	"strings"
	"testing"
)

func TestNegotiate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header string
		want   Lang
	}{
		{"", En},
		{"ja", Ja},
		{"ja-JP,ja;q=0.9,en;q=0.8", Ja},
		{"en-US,en;q=0.9,ja;q=0.8", En},
		{"fr-FR,ja;q=0.5", Ja},
		{"de, fr", En},
		{"en;q=0.1, ja;q=0.7", Ja},
		{"ja;q=0, en", En},
		{"*", En},
	} {
		if got := Negotiate(tc.header); got != tc.want {
			t.Errorf("Negotiate(%q) = %s; want %s", tc.header, got, tc.want)
		}
	}
}

func TestCatalogIsComplete(t *testing.T) {
	t.Parallel()
	for key, m := range catalog() {
		for _, l := range []Lang{En, Ja} {
			if strings.TrimSpace(m[l]) == "" {
				t.Errorf("message %q has no %s text", key, l)
			}
		}
	}
	if T(Ja, "no.such.key") != "no.such.key" {
		t.Error("a missing key should come back as itself")
	}
}

// TestMessagesArePageText: messages are shown as they are, so a Markdown
// backtick would appear literally; and both languages take the same
// arguments, so Tf fills the same places.
func TestMessagesArePageText(t *testing.T) {
	t.Parallel()
	for key, m := range catalog() {
		for _, l := range []Lang{En, Ja} {
			if strings.Contains(m[l], "`") {
				t.Errorf("message %q (%s) has a literal backtick: %q", key, l, m[l])
			}
		}
		if a, b := strings.Count(m[En], "%"), strings.Count(m[Ja], "%"); a != b {
			t.Errorf("message %q has %d verbs in English and %d in Japanese", key, a, b)
		}
	}
	if got := Tf(Ja, "dir.system", "/etc"); got != "/etc はシステムのディレクトリです。" {
		t.Errorf("Tf = %q", got)
	}
}
