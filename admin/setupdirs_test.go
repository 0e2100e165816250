package admin_test

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/murlog/murlog/internal/testsite"
)

// listing returns every path under dir, for "nothing was left behind".
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		out = append(out, strings.TrimPrefix(p, dir))
		return nil
	})
	return out
}

// TestStep1RefusesHostilePlaces: step 1 puts the database only in a new
// (or murlog's own, empty) private folder: not in a system directory, the
// home directory, the folder of murlog.ini (the document root under CGI)
// or one above it, a folder of another user or one others can write, and
// never through a path with control characters. Each refusal names the
// field, is in the page's language and writes nothing.
func TestStep1RefusesHostilePlaces(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	home, _ := os.UserHomeDir()
	os.Mkdir(filepath.Join(s.Dir, "shared"), 0o777)
	os.Chmod(filepath.Join(s.Dir, "shared"), 0o777)
	os.Mkdir(filepath.Join(s.Dir, "full"), 0o700)
	os.WriteFile(filepath.Join(s.Dir, "full", "notes.txt"), []byte("mine"), 0o600)
	os.Symlink("/etc", filepath.Join(s.Dir, "etclink"))
	if os.Geteuid() == 0 {
		os.Mkdir(filepath.Join(s.Dir, "theirs"), 0o700)
		os.Chown(filepath.Join(s.Dir, "theirs"), 65534, 65534)
	}
	for _, tc := range []struct {
		name, field, dataDir, mediaPath, want string
	}{
		{"two levels up", "data_dir", "../../", "./media", "system directory"},
		{"one level up", "data_dir", "..", "./media", ""},
		{"the ini's folder", "data_dir", ".", "./media", "the folder of murlog.ini"},
		{"/etc", "data_dir", "/etc/murlog", "./media", "/etc/murlog is a system directory"},
		{"/proc", "data_dir", "/proc/self/cwd", "./media", "system directory"},
		{"/usr/lib", "media_path", "./data", "/usr/lib", "system directory"},
		{"/var", "data_dir", "/var", "./media", "system directory"},
		{"a link to /etc", "data_dir", "./etclink/murlog", "./media", "system directory"},
		{"home", "data_dir", home, "./media", ""},
		{"newline", "data_dir", "./da\nta", "./media", "control characters"},
		{"escape", "media_path", "./data", "./me\x1b[2Kdia", "control characters"},
		{"not UTF-8", "data_dir", "./da\xffta", "./media", "control characters"},
		{"world-writable", "data_dir", "./shared", "./media", "can be written by other users"},
		{"holds other files", "data_dir", "./full", "./media", "already holds other files"},
		{"another user's", "data_dir", "./theirs", "./media", "belongs to another user"},
	} {
		if tc.name == "another user's" && os.Geteuid() != 0 {
			continue
		}
		before := listing(t, s.Dir)
		status, _, body := submit(t, s, "/admin/setup/server", url.Values{"data_dir": {tc.dataDir}, "media_path": {tc.mediaPath}})
		if status != 400 || !strings.Contains(body, `<p class="err">`) || !strings.Contains(body, tc.want) {
			t.Errorf("%s (data_dir %q, media_path %q): %d; want 400 with a field error saying %q\n%s", tc.name, tc.dataDir, tc.mediaPath, status, tc.want, errorsOf(body))
		}
		if after := listing(t, s.Dir); !slices.Equal(before, after) {
			t.Errorf("%s: step 1 failed but left %v (before: %v)", tc.name, after, before)
		}
	}
	// In Japanese, the reason is Japanese: no OS error text in between.
	s.Client.AcceptLanguage = "ja"
	_, _, body := submit(t, s, "/admin/setup/server", url.Values{"data_dir": {"/etc/murlog"}, "media_path": {"./media"}})
	if !strings.Contains(body, "/etc/murlog はシステムのディレクトリです。") {
		t.Errorf("Japanese page: %s; want the reason in Japanese", errorsOf(body))
	}
}

func errorsOf(body string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.Contains(l, `class="err"`) || strings.Contains(l, "<li>") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestStep1LeavesNothingBehind fails step 1 after it has created folders:
// at the media folder (a dangling link) and at the database (a file that is
// not a database). Everything it created is gone again.
func TestStep1LeavesNothingBehind(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	os.Symlink(filepath.Join(s.Dir, "nowhere", "media"), filepath.Join(s.Dir, "medialink"))
	before := listing(t, s.Dir)
	status, _, body := submit(t, s, "/admin/setup/server", url.Values{"data_dir": {"./new/data"}, "media_path": {"./medialink"}})
	if status != 400 || !strings.Contains(body, "not writable") {
		t.Errorf("media folder unusable: %d; want 400 naming it\n%s", status, errorsOf(body))
	}
	if after := listing(t, s.Dir); !slices.Equal(before, after) {
		t.Errorf("after a failed step 1: %v; want only %v (new/data removed)", after, before)
	}

	os.Mkdir(filepath.Join(s.Dir, "old"), 0o700)
	os.WriteFile(filepath.Join(s.Dir, "old", "murlog.db"), []byte("not a database, but murlog's name"), 0o600)
	before = listing(t, s.Dir)
	status, _, body = submit(t, s, "/admin/setup/server", url.Values{"data_dir": {"./old"}, "media_path": {"./media"}})
	if status != 400 || !strings.Contains(body, "database cannot be opened") {
		t.Errorf("bad database: %d; want 400\n%s", status, errorsOf(body))
	}
	if after := listing(t, s.Dir); !slices.Equal(before, after) {
		t.Errorf("after a failed step 1: %v; want only %v (murlog.ini, media, -wal/-shm removed)", after, before)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "old", "murlog.db")); err != nil {
		t.Errorf("the owner's existing file was removed: %v", err)
	}
	// And the wizard still works afterwards.
	if status, loc, _ := submit(t, s, "/admin/setup/server", step1(s.Dir)); status != 303 || loc != "/admin/setup" {
		t.Errorf("step 1 after the failures = %d → %q; want 303", status, loc)
	}
}

// TestStep1Modes: under the umask a login shell gives (022) the data folder
// is still 0700 and the media folder, which Apache serves, 0755; under
// murlog's own umask (077) the media folder is still 0755.
func TestStep1Modes(t *testing.T) {
	t.Parallel()
	for _, mask := range []int{0o022, 0o077} {
		old := syscall.Umask(mask)
		s := testsite.Start(t, testsite.Options{Bare: true})
		status, _, body := submit(t, s, "/admin/setup/server", url.Values{"data_dir": {"./a/data"}, "media_path": {"./pub/media"}, "scheme": {"http"}})
		syscall.Umask(old)
		if status != 303 {
			t.Fatalf("umask %03o: step 1 = %d\n%s", mask, status, errorsOf(body))
		}
		for name, want := range map[string]os.FileMode{"a": 0o700, "a/data": 0o700, "a/data/murlog.db": 0o600,
			"pub": 0o755, "pub/media": 0o755, "murlog.ini": 0o600} {
			st, err := os.Stat(filepath.Join(s.Dir, name))
			if err != nil || st.Mode().Perm() != want {
				t.Errorf("umask %03o: %s: %v mode %v; want %v", mask, name, err, st.Mode().Perm(), want)
			}
		}
	}
}
