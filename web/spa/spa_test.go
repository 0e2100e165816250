// Package spa_test runs the owner's app's own checks from go test, so the
// README's test command covers them: its unit tests (Vitest), and a
// production build whose output is what package my serves — an entry
// chunk within the size budget, no inline script for the strict CSP to
// refuse, and the files the server names.
package spa_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// MaxEntryGzip is the budget for the entry chunk, gzip-compressed.
const MaxEntryGzip = 60 << 10

// npmTools finds npm (and node, which it runs) and the app's installed
// packages. A missing one skips the test with what to do — or fails it
// under CI=true, where .ci/run has installed them all.
func npmTools(t *testing.T) string {
	t.Helper()
	var missing []string
	npm, err := exec.LookPath("npm")
	if err != nil {
		missing = append(missing, "npm (apt-get install nodejs npm)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing = append(missing, "node (apt-get install nodejs)")
	}
	for _, f := range []struct{ path, hint string }{
		{"package.json", "the app's sources in web/spa"},
		{filepath.Join("node_modules", "vite", "package.json"), "cd web/spa && npm ci --ignore-scripts"},
	} {
		if _, err := os.Stat(f.path); err != nil {
			missing = append(missing, "web/spa/"+filepath.ToSlash(f.path)+" ("+f.hint+")")
		}
	}
	if len(missing) > 0 {
		msg := "the owner's app's tests need: " + strings.Join(missing, "; ")
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI=true, so this is a failure, not a skip (.ci/run installs them)")
		}
		t.Skip(msg)
	}
	return npm
}

// run runs npm with args in web/spa and fails the test with its output.
func run(t *testing.T, npm string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestUnit runs the app's Vitest tests once.
func TestUnit(t *testing.T) {
	t.Parallel()
	npm := npmTools(t)
	run(t, npm, "test")
}

var (
	scriptTag = regexp.MustCompile(`(?is)<script\b([^>]*)>(.*?)</script>`)
	srcAttr   = regexp.MustCompile(`(?i)\bsrc\s*=\s*"([^"]+)"`)
	typeAttr  = regexp.MustCompile(`(?i)\btype\s*=\s*"module"`)
)

// TestBuild builds the app into a temporary folder, as make web builds it
// into web/dist, and checks what the server relies on: index.html whose
// scripts are all files under /my/assets/ (no inline script: the CSP of
// /my/ has no 'unsafe-inline'), the service worker and the manifest at
// the root, and an entry chunk of at most MaxEntryGzip bytes gzipped. The
// size is logged, so the test output records it.
func TestBuild(t *testing.T) {
	t.Parallel()
	npm := npmTools(t)
	out := t.TempDir()
	run(t, npm, "run", "build", "--", "--outDir", out, "--emptyOutDir")

	for _, f := range []string{"index.html", "sw.js", "manifest.webmanifest"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("the build has no %s: %v", f, err)
		}
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	var entry string
	for _, m := range scriptTag.FindAllSubmatch(index, -1) {
		attrs, body := m[1], bytes.TrimSpace(m[2])
		src := srcAttr.FindSubmatch(attrs)
		if src == nil || len(body) > 0 {
			t.Errorf("index.html has an inline script (the CSP of /my/ refuses it): %s", m[0])
			continue
		}
		if !strings.HasPrefix(string(src[1]), "/my/assets/") {
			t.Errorf("index.html loads %s; want scripts under /my/assets/ (Vite base /my/)", src[1])
		}
		if entry == "" && typeAttr.Match(attrs) {
			entry = string(src[1])
		}
	}
	if entry == "" {
		t.Fatalf("no entry script (<script type=\"module\" src=…>) in index.html:\n%s", index)
	}
	js, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(strings.TrimPrefix(entry, "/my/"))))
	if err != nil {
		t.Fatalf("entry chunk %s: %v", entry, err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	zw.Write(js)
	zw.Close()
	t.Logf("entry chunk %s: %d bytes, %d bytes gzip (budget %d)", entry, len(js), gz.Len(), MaxEntryGzip)
	if gz.Len() > MaxEntryGzip {
		t.Errorf("entry chunk %s is %d bytes gzipped; the budget is %d", entry, gz.Len(), MaxEntryGzip)
	}
}
