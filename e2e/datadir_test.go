package e2e

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/apachetest"
)

// lockedDir makes a directory in the document root that the CGI user can
// read but not write: owned by root when the tests run as root (Apache
// runs murlog as www-data), else mode 0555. Nothing may chown the document
// root after this.
func lockedDir(t *testing.T, s *apachetest.Server, name string) {
	t.Helper()
	p := s.Path(name)
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		if err := os.Chmod(p, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(p, 0o755) })
	}
}

// Step 1 pointed at a directory the CGI user cannot write is refused with a
// readable message, and no murlog.ini is written.
func TestStep1UnwritableDataDirThroughApache(t *testing.T) {
	s := apachetest.Start(t, apachetest.Options{})
	lockedDir(t, s, "locked")
	ctx := context.Background()
	c := s.Client()
	c.Get(ctx, "/"+apachetest.Script)
	// As root the tests give the locked folder to root: then it is
	// another user's, which step 1 says before it tries to write.
	locked := "not writable"
	if s.UID >= 0 {
		locked = "belongs to another user"
	}
	for _, tc := range []struct{ dataDir, want string }{
		{"./locked", locked},
		{"./locked/data", "cannot be created"},
	} {
		status, _, body, err := c.SubmitForm(ctx, "/admin/setup/server", url.Values{"data_dir": {tc.dataDir}, "media_path": {"./media"}, "scheme": {"http"}})
		if err != nil {
			t.Fatal(err)
		}
		if status != 400 || !strings.Contains(string(body), tc.want) {
			t.Errorf("step 1 with data_dir %s: status %d; want 400 saying %q\n%s", tc.dataDir, status, tc.want, body)
		}
		if _, err := os.Stat(s.Path("murlog.ini")); !os.IsNotExist(err) {
			t.Fatalf("murlog.ini written although data_dir %s is unusable", tc.dataDir)
		}
	}
}

// murlog started on an ini whose data_dir it cannot write stops at once
// with a message naming the directory, instead of failing on the first
// query with "attempt to write a readonly database".
func TestServeRefusesUnwritableDataDir(t *testing.T) {
	s := apachetest.Start(t, apachetest.Options{})
	// WriteFile hands the document root to the CGI user, so lock the
	// directory only afterwards.
	s.WriteFile(t, "murlog.ini", "data_dir = ./locked\nmedia_path = ./media\n", 0o600)
	lockedDir(t, s, "locked")
	cmd := s.Command(apachetest.Script, "serve", "--listen", "127.0.0.1:0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	timer := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Run()
	if err == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("serve with an unwritable data_dir: %v (exit %d); want exit 1", err, cmd.ProcessState.ExitCode())
	}
	if !strings.Contains(stderr.String(), "data_dir "+s.Path("locked")+" is not writable") {
		t.Errorf("stderr = %q; want it to name the unwritable data_dir", stderr.String())
	}
}
