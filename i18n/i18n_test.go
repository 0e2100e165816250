package i18n

import (
	"strings"
	"testing"
)

func TestNegotiate(t *testing.T) {
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
	for key, m := range catalog {
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
