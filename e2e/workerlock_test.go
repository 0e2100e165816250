package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/apachetest"
)

// TestRootWorkerLeavesTheLockToTheSite runs `worker --once` as root (a
// crontab line without a user) on a site the CGI user owns: the lock file
// it creates goes to the data directory's owner, so the site's own
// workers keep working afterwards.
func TestRootWorkerLeavesTheLockToTheSite(t *testing.T) {
	uid, gid, asRoot, err := apachetest.CGICredential()
	if err != nil {
		t.Skip(err)
	}
	if !asRoot {
		t.Skip("needs root: the test runs one worker as root and the others as " + apachetest.CGIUser)
	}
	dir := apachetest.NewDir(t)
	os.Mkdir(filepath.Join(dir, "data"), 0o700)
	os.WriteFile(filepath.Join(dir, "murlog.ini"), []byte("data_dir = ./data\nmedia_path = ./media\n"), 0o600)
	bin := filepath.Join(dir, "murlog.cgi")
	b, err := os.ReadFile(apachetest.Murlog(t))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bin, b, 0o755)
	if err := apachetest.ChownTree(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	site := &jobsSite{dir: dir, ini: filepath.Join(dir, "murlog.ini"), dataDir: filepath.Join(dir, "data"), bin: bin,
		cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	site.worker(t, "first").wait(t, 30*time.Second) // creates the database as the site's user
	lock := filepath.Join(site.dataDir, "worker.lock")
	os.Remove(lock)

	asRootSite := *site
	asRootSite.cred = nil
	asRootSite.worker(t, "root").wait(t, 30*time.Second)
	st, err := os.Stat(lock)
	if err != nil {
		t.Fatal(err)
	}
	if owner := st.Sys().(*syscall.Stat_t).Uid; int(owner) != uid {
		t.Fatalf("worker.lock created by a root worker belongs to uid %d; want the data directory's owner %d", owner, uid)
	}
	p := site.worker(t, "after")
	p.wait(t, 30*time.Second)
	if l := p.log(t); strings.Contains(l, "permission denied") {
		t.Errorf("the site's worker after a root run: %s", l)
	}
}
