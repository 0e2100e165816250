package main

import (
	"bytes"
	"os/exec"
	"strconv"
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

// TestInitStaysSmall keeps the packages whose start-up work was made lazy
// from growing it back (issue 15, F): under CGI every request pays every
// linked package's init. What each allocates before main is read from
// the runtime's own trace (GODEBUG=inittrace=1) of this binary run as
// murlog; allocation, unlike time, is the same on every run.
func TestInitStaysSmall(t *testing.T) {
	t.Parallel()
	const limit = 32 << 10 // bytes; each allocated 57–140 KB before
	watched := []string{
		"github.com/yuin/goldmark/util",
		"github.com/yuin/goldmark/parser",
		"golang.org/x/net/html",
		"github.com/mailgun/raymond/v2/lexer",
		"github.com/mailgun/raymond/v2/parser",
		"github.com/murlog/murlog/i18n",
		"github.com/murlog/murlog/my",
	}
	cmd := command(t, t.TempDir(), []string{"GODEBUG=inittrace=1"}, "version")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("murlog version: %v\n%s", err, stderr.String())
	}
	// "init github.com/yuin/goldmark/util @0.8 ms, 0.011 ms clock, 4096 bytes, 12 allocs"
	allocated := map[string]int{}
	for _, line := range strings.Split(stderr.String(), "\n") {
		f := strings.Fields(line)
		if len(f) >= 9 && f[0] == "init" && f[8] == "bytes," {
			n, err := strconv.Atoi(f[7])
			if err != nil {
				t.Fatalf("inittrace line %q: %v", line, err)
			}
			allocated[f[1]] = n
		}
	}
	if len(allocated) == 0 {
		t.Fatalf("no inittrace lines in:\n%s", stderr.String())
	}
	for _, pkg := range watched {
		n, ok := allocated[pkg]
		if !ok {
			continue // no init of its own left, or not linked
		}
		if n > limit {
			t.Errorf("%s allocates %d bytes at start-up; want ≤ %d (build tables and regular expressions on first use: third_party/README.md)", pkg, n, limit)
		}
	}
}
