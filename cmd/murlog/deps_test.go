package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHeavyInitStaysOut keeps packages out of the binary whose package
// initialisation costs every CGI process more than murlog needs them for:
// each entry says what it cost and what replaced it.
func TestHeavyInitStaysOut(t *testing.T) {
	t.Parallel()
	banned := map[string]string{
		// Fills a 512 KB Kanji table at start (≈ 135 page faults of a CGI
		// post page) for the two-factor QR code: package qr encodes it.
		"github.com/piglig/go-qr": "package qr's own encoder",
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for b, instead := range banned {
			if pkg == b || strings.HasPrefix(pkg, b+"/") {
				t.Errorf("cmd/murlog links %s; use %s", pkg, instead)
			}
		}
	}
}
