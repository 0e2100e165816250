package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/apachetest"
)

// browserTools are the programs the browser tests run.
type browserTools struct {
	root     string // the module root
	dir      string // e2e/browser
	node     string
	chromium string
	java     string
	vnu      string // vnu.jar from the vnu-jar npm package
}

// requireBrowserTools finds node, Debian's chromium (MURLOG_CHROMIUM
// overrides /usr/bin/chromium), the CJK fonts, java and the npm packages
// of e2e/browser. A missing one skips the test with what to install — or
// fails it under CI=true, where .ci/run has installed them all.
func requireBrowserTools(t *testing.T) browserTools {
	t.Helper()
	root := apachetest.ModuleRoot(t)
	tl := browserTools{root: root, dir: filepath.Join(root, "e2e", "browser"), chromium: os.Getenv("MURLOG_CHROMIUM")}
	if tl.chromium == "" {
		tl.chromium = "/usr/bin/chromium"
	}
	tl.vnu = filepath.Join(tl.dir, "node_modules", "vnu-jar", "build", "dist", "vnu.jar")
	var missing []string
	for _, p := range []struct {
		name string
		dst  *string
		hint string
	}{{"node", &tl.node, "apt-get install nodejs npm"}, {"java", &tl.java, "apt-get install openjdk-17-jre-headless"}} {
		path, err := exec.LookPath(p.name)
		if err != nil {
			missing = append(missing, p.name+" ("+p.hint+")")
			continue
		}
		*p.dst = path
	}
	for _, f := range []struct{ path, hint string }{
		{tl.chromium, "apt-get install chromium"},
		{"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", "apt-get install fonts-noto-cjk"},
		{filepath.Join(tl.dir, "node_modules", "playwright-core", "package.json"), "cd e2e/browser && npm ci"},
		{tl.vnu, "cd e2e/browser && npm ci"},
	} {
		if _, err := os.Stat(f.path); err != nil {
			missing = append(missing, f.path+" ("+f.hint+")")
		}
	}
	if len(missing) > 0 {
		msg := "browser tests need: " + strings.Join(missing, "; ")
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI=true, so this is a failure, not a skip (.ci/run installs them)")
		}
		t.Skip(msg)
	}
	return tl
}

// browserArtifacts returns the kept folder of a browser test's output,
// $MURLOG_ARTIFACTS/<name> or e2e/browser/artifacts/<name> (blog-browser,
// app-browser), emptied of an earlier run's files.
func browserArtifacts(t *testing.T, root, name string) string {
	t.Helper()
	base := os.Getenv("MURLOG_ARTIFACTS")
	if base == "" {
		base = filepath.Join(root, "e2e", "browser", "artifacts")
	}
	dir, err := filepath.Abs(filepath.Join(base, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// vnuMessage is one message of the Nu HTML Checker's JSON output.
type vnuMessage struct {
	Type    string `json:"type"`
	URL     string `json:"url"`
	Line    int    `json:"lastLine"`
	Column  int    `json:"firstColumn"`
	Message string `json:"message"`
	Extract string `json:"extract"`
}

// validateHTML runs the Nu HTML Checker (vnu.jar, errors only) once over
// every page blog.mjs saved, and fails the test with each error, by file.
func validateHTML(t *testing.T, tools browserTools, art string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(art, "*.html"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Errorf("no saved pages in %s to validate", art)
		return
	}
	byFile, err := vnuErrors(tools, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(byFile) == 0 {
		t.Logf("Nu HTML Checker: %d pages, no errors", len(files))
		return
	}
	names := make([]string, 0, len(byFile))
	for f := range byFile {
		names = append(names, f)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, f := range names {
		fmt.Fprintf(&b, "%s:\n    %s\n", f, strings.Join(byFile[f], "\n    "))
	}
	t.Errorf("Nu HTML Checker: errors in %d of %d pages:\n%s", len(byFile), len(files), b.String())
}

// vnuErrors runs vnu.jar --errors-only on files and returns its errors by
// file name (base name), each as "line L:C: message" and the extract.
func vnuErrors(tools browserTools, files []string) (map[string][]string, error) {
	files = slices.Clone(files)
	sort.Strings(files)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"-jar", tools.vnu, "--format", "json", "--errors-only"}, files...)
	cmd := exec.CommandContext(ctx, tools.java, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run() // exits 1 when a page has errors; the JSON says which
	var out struct {
		Messages []vnuMessage `json:"messages"`
	}
	if err := json.Unmarshal(stderr.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("vnu.jar: %v, and its output is not JSON (%v):\n%s\n%s", runErr, err, stderr.Bytes(), stdout.Bytes())
	}
	byFile := map[string][]string{}
	for _, m := range out.Messages {
		if m.Type != "error" && m.Type != "non-document-error" {
			continue
		}
		f := filepath.Base(strings.TrimPrefix(m.URL, "file:"))
		byFile[f] = append(byFile[f], fmt.Sprintf("line %d:%d: %s\n        %s", m.Line, m.Column, m.Message, strings.TrimSpace(m.Extract)))
	}
	if len(byFile) == 0 && runErr != nil {
		return nil, fmt.Errorf("vnu.jar failed without messages: %v\n%s", runErr, stderr.Bytes())
	}
	return byFile, nil
}
