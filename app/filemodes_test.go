package app_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/internal/testsite"
)

// TestStartFixesAnOldInstallsModes: an install made before murlog kept its
// files private (data 0755, database 0644, ini 0644) is fixed at start with
// a log line for what was changed, and a warning for the ini, which the
// owner may have opened on purpose.
func TestStartFixesAnOldInstallsModes(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	s.App.Close()
	data := filepath.Join(s.Dir, "data")
	os.Chmod(data, 0o755)
	os.Chmod(filepath.Join(data, "murlog.db"), 0o644)
	os.Chmod(filepath.Join(s.Dir, "murlog.ini"), 0o644)
	s.Restart(t)
	for name, want := range map[string]os.FileMode{"data": 0o700, "data/murlog.db": 0o600} {
		if st, err := os.Stat(filepath.Join(s.Dir, name)); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s after start: %v mode %v; want %v", name, err, st.Mode().Perm(), want)
		}
	}
	logs := s.Logs.String()
	for _, want := range []string{`"msg":"made data_dir private (mode 0700)"`, `"msg":"made database files private (mode 0600)"`,
		`"level":"WARN","msg":"murlog.ini is readable by other users; run chmod 600 on it"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s", want)
		}
	}
}

// TestStartLeavesADocumentRootDataDir: a data_dir that holds murlog.ini
// (under CGI, the document root Apache serves) is reported, not closed.
func TestStartLeavesADocumentRootDataDir(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	s.App.Close()
	os.WriteFile(filepath.Join(s.Dir, "murlog.ini"), []byte("data_dir = .\nmedia_path = ./media\n"), 0o600)
	os.Chmod(s.Dir, 0o755)
	s.Restart(t)
	if st, _ := os.Stat(s.Dir); st.Mode().Perm() != 0o755 {
		t.Errorf("the ini's folder became %v; want it left 0755", st.Mode().Perm())
	}
	if !strings.Contains(s.Logs.String(), "data_dir is readable by other users and holds murlog.ini") {
		t.Errorf("no warning about the data_dir holding murlog.ini")
	}
}

// TestResetCommandUnderCGI: the pages name the reset command that applies:
// under CGI the entry point run from its folder, not a `murlog` binary the
// shared host does not have.
func TestResetCommandUnderCGI(t *testing.T) {
	s := testsite.New(t)
	t.Setenv("SCRIPT_FILENAME", filepath.Join(s.Dir, "murlog.cgi"))
	a := cgiApp(t, s)
	defer a.Close()
	rec := httptest.NewRecorder()
	a.ServeHTTP(rec, httptest.NewRequest("GET", "/admin/reset", nil))
	if !strings.Contains(rec.Body.String(), "<code>./murlog.cgi reset</code>") || strings.Contains(rec.Body.String(), "murlog reset<") {
		t.Errorf("reset page under CGI = %d %s; want it to name ./murlog.cgi reset", rec.Code, rec.Body)
	}
}

// cgiApp is the app over s as one CGI process builds it (OneShot).
func cgiApp(t *testing.T, s *testsite.Site) *app.App {
	t.Helper()
	a, err := app.New(ctx, app.Options{ConfigPath: filepath.Join(s.Dir, "murlog.ini"), Getenv: func(k string) string { return s.Env[k] },
		Logger: testsite.Discard(), OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	return a
}
