package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/internal/fedtest"
	"github.com/murlog/murlog/internal/testsite"
)

// TestAppInBrowser drives the owner's app at /my/ in Debian's headless
// chromium (playwright-core, e2e/browser/app.mjs) against a real `murlog
// serve` that the browser itself sets up through the wizard, and a second
// one (bob) to federate with, both named 127.0.0.1:PORT. Scenario after
// scenario it checks what the owner sees: setup ending logged in at /my/,
// logout and login (password, then with two-factor codes: a reused code
// and a reused recovery code refused), notes, articles, a scheduled post
// that the public site shows only after its time, a draft, following bob
// and reading his post in the timeline, a follow request approved, a theme
// change on the public page, a dead job retried, an expired session that
// keeps the unsent draft, the length limit, remote HTML and scripts that
// never run, a failing server shown with a retry, axe-core on every
// screen, keyboard focus, the offline shell and an update picked up
// without a hard reload. It records (and logs) the first paint of the
// timeline from a warm cache and checks that scrolling through 1,000 posts
// keeps the DOM bounded. Screenshots at 360 and 1280 px are kept in
// $MURLOG_ARTIFACTS/app-browser (default e2e/browser/artifacts/app-browser).
//
// It skips when node, chromium, java or the npm packages of e2e/browser and
// web/spa are missing, except with CI=true, where that is a failure.
func TestAppInBrowser(t *testing.T) {
	t.Parallel()
	tools := requireBrowserTools(t)
	npm := requireSPAPackages(t, tools.root)
	art := browserArtifacts(t, tools.root, "app-browser")
	t.Logf("screenshots and report: %s", art)

	// The app as `make web` builds it, into the folder the wizard is told
	// is web_dir (while the sites start); app.mjs builds it again
	// (unminified: other hashes) while its first scenarios run, and
	// installs that build there to see the app pick up a new version.
	web := t.TempDir()
	var buildErr error
	built := make(chan struct{})
	go func() {
		defer close(built)
		buildErr = buildSPA(npm, tools.root, web, "--emptyOutDir")
	}()
	t.Cleanup(func() { <-built }) // before web is removed, should the test stop early

	bin := apachetest.Murlog(t)
	names := fedtest.NewNames()
	b := fedtest.StartProcess(t, names, bin, fedtest.Options{Username: "bob"})
	var tok struct {
		Token string `json:"token"`
	}
	b.Call(t, "tokens.create", map[string]any{"name": "app-browser"}, &tok)
	// A as a new owner finds it: no murlog.ini, the wizard waiting.
	a := fedtest.Serve(t, names, bin, fedtest.Options{})
	t.Cleanup(func() {
		for name, in := range map[string]*fedtest.Instance{"a": a, "b": b} {
			os.WriteFile(filepath.Join(art, "murlog-"+name+".log"), []byte(in.Logs.String()), 0o644)
			if t.Failed() {
				t.Logf("murlog %s's last warnings and errors (all in %s):\n%s", name, filepath.Join(art, "murlog-"+name+".log"),
					strings.Join(fedtest.Warnings(in, 30), "\n"))
			}
		}
	})

	<-built
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	next := t.TempDir()
	spec := appSpec{
		A: a.Base, Password: testsite.Password, Username: "owner", WebDir: web,
		Rebuild: []string{npm, "run", "build", "--", "--outDir", next, "--emptyOutDir", "--minify", "false"}, NextDir: next,
		SPADir: filepath.Join(tools.root, "web", "spa"),
		B:      b.Base, BAcct: b.Acct(), BToken: tok.Token,
	}
	out, err := runAppMJS(tools, art, spec)
	t.Logf("app.mjs:\n%s", out)
	if err != nil {
		t.Errorf("app.mjs: %v (report: %s)", err, filepath.Join(art, "report.json"))
	}
}

// appSpec is app.mjs's spec.json.
type appSpec struct {
	A        string   `json:"a"` // the unconfigured site's base URL
	Username string   `json:"username"`
	Password string   `json:"password"`
	WebDir   string   `json:"web_dir"`  // the built app, entered in the wizard
	Rebuild  []string `json:"rebuild"`  // the command that builds another version into NextDir
	NextDir  string   `json:"next_dir"` // installed into WebDir as the new version
	SPADir   string   `json:"spa_dir"`  // where Rebuild runs
	B        string   `json:"b"`        // the second site, set up, owner bob
	BAcct    string   `json:"b_acct"`
	BToken   string   `json:"b_token"` // an API token of bob's
}

func runAppMJS(tools browserTools, art string, spec appSpec) ([]byte, error) {
	b, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return nil, err
	}
	file := filepath.Join(art, "spec.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tools.node, filepath.Join(tools.dir, "app.mjs"), art, file)
	cmd.Dir = tools.dir
	cmd.Env = append(os.Environ(), "MURLOG_CHROMIUM="+tools.chromium, "NO_COLOR=1")
	return cmd.CombinedOutput()
}

// requireSPAPackages finds npm and web/spa's installed packages, skipping
// the test with what to do when they are missing (failing under CI=true).
func requireSPAPackages(t *testing.T, root string) string {
	t.Helper()
	npm, err := exec.LookPath("npm")
	missing := ""
	switch {
	case err != nil:
		missing = "npm (apt-get install npm)"
	default:
		if _, err := os.Stat(filepath.Join(root, "web", "spa", "node_modules", "vite", "package.json")); err != nil {
			missing = "web/spa/node_modules (cd web/spa && npm ci --ignore-scripts)"
		}
	}
	if missing != "" {
		msg := "the app's browser test builds the app and needs " + missing
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI=true, so this is a failure, not a skip (.ci/run installs them)")
		}
		t.Skip(msg)
	}
	return npm
}

// buildSPA builds web/spa into out with Vite (npm run build -- --outDir).
func buildSPA(npm, root, out string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, append([]string{"run", "build", "--", "--outDir", out}, args...)...)
	cmd.Dir = filepath.Join(root, "web", "spa")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the app: %v\n%s", err, b)
	}
	return nil
}
