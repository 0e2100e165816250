// Command testsum reads `go test -json` on standard input and prints what a
// person needs from a long run: each package's result line as go test
// prints it, the whole output of every failing test, and — because a
// skipped real-engine or Apache test is easy to miss — every skipped test
// with its reason, then one closing line "N passed, N failed, N skipped".
// It exits 1 when a test or a build failed. `make test` pipes into it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output and build-fail events
	Test       string
	Output     string
}

type key struct{ pkg, test string }

func main() {
	os.Exit(run(os.Stdin, os.Stdout))
}

func run(in io.Reader, out io.Writer) int {
	var (
		outputs             = map[key][]string{} // per test, until it ends
		skipped             []string
		passed, failed, nsk int
		buildFailed         bool
		failedPkgs          []string // a package can fail outside any test (a panic in TestMain, a timeout)
	)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(out, "%s\n", line) // not JSON: go's own errors, passed through
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output)
		case "build-fail":
			buildFailed = true
		case "output":
			if e.Test == "" {
				// Package-level lines: "ok  pkg 1.2s", "FAIL pkg", panics
				// outside a test. The bare PASS/FAIL summary lines are noise.
				if t := strings.TrimSpace(e.Output); t != "PASS" && t != "FAIL" && !strings.HasPrefix(t, "=== ") {
					fmt.Fprint(out, e.Output)
				}
				continue
			}
			outputs[k] = append(outputs[k], e.Output)
		case "pass":
			if e.Test != "" {
				passed++
				delete(outputs, k)
			}
		case "skip":
			if e.Test != "" {
				nsk++
				skipped = append(skipped, e.Package+" "+e.Test+": "+reason(outputs[k]))
				delete(outputs, k)
			}
		case "fail":
			if e.Test == "" {
				failedPkgs = append(failedPkgs, e.Package)
			} else {
				failed++
				fmt.Fprintf(out, "--- FAIL: %s (%s)\n", e.Test, e.Package)
				for _, o := range outputs[k] {
					fmt.Fprint(out, o)
				}
				delete(outputs, k)
			}
		}
	}
	if len(skipped) > 0 {
		sort.Strings(skipped)
		fmt.Fprintf(out, "\nSkipped tests (%d):\n", len(skipped))
		for _, s := range skipped {
			fmt.Fprintf(out, "  %s\n", s)
		}
	}
	if len(failedPkgs) > 0 {
		fmt.Fprintf(out, "\nFailed packages: %s\n", strings.Join(failedPkgs, " "))
	}
	fmt.Fprintf(out, "\n%d passed, %d failed, %d skipped\n", passed, failed, nsk)
	if failed > 0 || buildFailed || len(failedPkgs) > 0 || sc.Err() != nil {
		return 1
	}
	return 0
}

// reason returns the message a skipped test logged: its output without
// the === RUN and --- SKIP lines, joined on one line.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}
