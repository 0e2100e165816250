package themes_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestClientTemplatesUpToDate: each committed templates.js is what the
// handlebars compiler makes of the partials today, so the browser renders
// the same partials as the server. It needs Node and `npm ci` here
// (.ci/run does both); without them it skips, except under CI=true.
func TestClientTemplatesUpToDate(t *testing.T) {
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join("node_modules", "handlebars", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node and web/themes/node_modules are needed under CI=true: %v", err)
		}
		t.Skipf("needs node and `npm ci` in web/themes to check the precompiled client partials: %v", err)
	}
	out, err := exec.Command(node, "tools/precompile.mjs", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("templates.js is stale; run `node tools/precompile.mjs` in web/themes and commit it:\n%s", out)
	}
}
