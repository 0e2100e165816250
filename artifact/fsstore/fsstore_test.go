package fsstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/artifact/artifacttest"
	"github.com/murlog/murlog/artifact/fsstore"
)

var ctx = context.Background()

func open(t testing.TB, dir string) *fsstore.Store {
	t.Helper()
	s, err := fsstore.New(dir)
	if err != nil {
		t.Fatalf("New(%s): %v", dir, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	t.Parallel()
	artifacttest.Run(t, func(t *testing.T) artifact.Store { return open(t, t.TempDir()) })
}

func put(t testing.TB, s *fsstore.Store, k, body string) artifact.Meta {
	t.Helper()
	m, err := s.Put(ctx, artifact.MustParseKey(k), "text/html; charset=utf-8", []byte(body))
	if err != nil {
		t.Fatalf("Put(%s): %v", k, err)
	}
	return m
}

// tree lists every path under dir with its mode and size, to compare a
// folder before and after something that must not touch it.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %v %d", p, fi.Mode(), fi.Size()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHostileKeysWriteNothing feeds every hostile spelling to ParseKey
// and to List (which takes a raw prefix) and checks that nothing
// appeared anywhere around the root: the root itself, its parent, the
// parent's parent (where "../x" would land).
func TestHostileKeysWriteNothing(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	dir := filepath.Join(top, "site", "artifacts")
	s := open(t, dir)
	put(t, s, "html/index.html", "home")
	before := tree(t, top)
	for _, h := range artifacttest.HostileKeys {
		if k, err := artifact.ParseKey(h); err == nil {
			t.Errorf("ParseKey(%.40q) = %s; want refused", h, k)
			if _, err := s.Put(ctx, k, "text/plain", []byte("x")); err != nil {
				t.Logf("Put: %v", err)
			}
		}
		if artifact.CheckPrefix(h) == nil {
			continue // "" (everything) and "a/" are prefixes, not keys
		}
		if err := s.List(ctx, h, func(k artifact.Key) error {
			t.Errorf("List(%.40q) gave %s", h, k)
			return nil
		}); murlog.ErrorCode(err) != murlog.EInvalid {
			t.Errorf("List(%.40q) = %v; want invalid", h, err)
		}
	}
	if after := tree(t, top); !slices.Equal(before, after) {
		t.Errorf("hostile keys changed the folders:\nbefore %q\nafter  %q", before, after)
	}
	// The ligature is refused, so "ﬁle" can never be a second file that
	// reads as "file".
	put(t, s, "file", "plain")
	if _, err := artifact.ParseKey("\ufb01le"); err == nil {
		t.Error(`ParseKey("ﬁle") accepted`)
	}
}

// TestSymlinkOutside plants symbolic links inside the root that point
// out of it: Put, Get, Stat and Delete through them must fail or find
// nothing, and nothing outside is read, written or removed.
func TestSymlinkOutside(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	dir, outside := filepath.Join(top, "root"), filepath.Join(top, "outside")
	s := open(t, dir)
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "x.html")
	if err := os.WriteFile(secret, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A folder link (html -> ../outside) and a file link (a.html -> the
	// secret), the latter with a sidecar that describes the secret
	// exactly, as an attacker with write access to the root could plant.
	if err := os.Symlink(outside, filepath.Join(dir, "html")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "a.html")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside/x.html", filepath.Join(dir, "rel.html")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, outside)

	if _, err := s.Put(ctx, artifact.MustParseKey("html/y.html"), "text/html", []byte("planted")); err == nil {
		t.Error("Put through a link to a folder outside the root succeeded")
	}
	if _, err := s.Put(ctx, artifact.MustParseKey("html/sub/y.html"), "text/html", []byte("planted")); err == nil {
		t.Error("Put under a link to a folder outside the root succeeded")
	}
	for _, k := range []string{"html/x.html", "a.html", "rel.html"} {
		if rc, _, err := s.Get(ctx, artifact.MustParseKey(k)); err == nil {
			b, _ := io.ReadAll(rc)
			rc.Close()
			t.Errorf("Get(%s) through a link outside the root = %q", k, b)
		}
		if _, err := s.Stat(ctx, artifact.MustParseKey(k)); err == nil {
			t.Errorf("Stat(%s) through a link outside the root succeeded", k)
		}
		s.Delete(ctx, artifact.MustParseKey(k))
	}
	var listed []string
	if err := s.List(ctx, "", func(k artifact.Key) error { listed = append(listed, k.String()); return nil }); err != nil {
		t.Errorf("List: %v", err)
	}
	if len(listed) != 0 {
		t.Errorf("List = %q; want no links listed", listed)
	}
	if after := tree(t, outside); !slices.Equal(before, after) {
		t.Errorf("the folder outside the root changed:\nbefore %q\nafter  %q", before, after)
	}
	if b, err := os.ReadFile(secret); err != nil || string(b) != "secret" {
		t.Errorf("the file outside = %q, %v; want it untouched", b, err)
	}
}

// TestModes writes under umask 077 and checks that Apache, another user,
// could still read everything: files 0644, folders 0755, and the body a
// plain file at the key's path, byte for byte. Not parallel: the umask
// belongs to the process.
func TestModes(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	s := open(t, filepath.Join(dir, "new"))
	put(t, s, "html/@alice/01abc/index.html", "<p>hello</p>")
	syscall.Umask(old)
	for p, want := range map[string]fs.FileMode{
		"new":                                    fs.ModeDir | 0o755,
		"new/html":                               fs.ModeDir | 0o755,
		"new/html/@alice":                        fs.ModeDir | 0o755,
		"new/html/@alice/01abc":                  fs.ModeDir | 0o755,
		"new/html/@alice/01abc/index.html":       0o644,
		"new/html/@alice/01abc/.meta-index.html": 0o644,
	} {
		fi, err := os.Lstat(filepath.Join(dir, p))
		if err != nil {
			t.Errorf("Lstat(%s): %v", p, err)
			continue
		}
		if fi.Mode() != want {
			t.Errorf("%s has mode %v; want %v", p, fi.Mode(), want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "new/html/@alice/01abc/index.html")); string(b) != "<p>hello</p>" {
		t.Errorf("the body file = %q, %v; want the body as it was put", b, err)
	}
}

func wantCorrupt(t *testing.T, s *fsstore.Store, k, what string) {
	t.Helper()
	key := artifact.MustParseKey(k)
	if rc, _, err := s.Get(ctx, key); !errors.Is(err, artifact.ErrCorrupt) || murlog.ErrorCode(err) != murlog.EUnavailable {
		if rc != nil {
			rc.Close()
		}
		t.Errorf("%s: Get = %v; want unavailable wrapping ErrCorrupt", what, err)
	}
	if _, err := s.Stat(ctx, key); !errors.Is(err, artifact.ErrCorrupt) {
		t.Errorf("%s: Stat = %v; want ErrCorrupt", what, err)
	}
	if err := artifact.Verify(ctx, s, key); !errors.Is(err, artifact.ErrCorrupt) {
		t.Errorf("%s: Verify = %v; want ErrCorrupt", what, err)
	}
}

// TestCorrupt damages artifacts behind the store's back, as a full disk,
// a crash or a careless hand would: each is reported corrupt, never
// served, and a Put repairs it.
func TestCorrupt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	// Damage done a moment ago looks like a writer between its renames;
	// the wait for it is shortened so the seven cases do not sleep it out.
	fsstore.SetSettle(s, time.Millisecond)
	body := strings.Repeat("artifact ", 100)
	for _, tc := range []struct {
		name   string
		damage func(file, sidecar string) error
	}{
		{"truncated", func(f, _ string) error { return os.Truncate(f, 10) }},
		{"extended", func(f, _ string) error {
			w, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
			if err == nil {
				_, err = w.WriteString("tail")
				w.Close()
			}
			return err
		}},
		{"rewritten in place", func(f, _ string) error {
			w, err := os.OpenFile(f, os.O_WRONLY, 0)
			if err == nil {
				_, err = w.WriteAt([]byte("XXXX"), 0)
				w.Close()
			}
			return err
		}},
		{"replaced", func(f, _ string) error { return os.WriteFile(f+".new", []byte(body), 0o644) }},
		{"sidecar missing", func(_, m string) error { return os.Remove(m) }},
		{"sidecar garbage", func(_, m string) error { return os.WriteFile(m, []byte("{not json"), 0o644) }},
		{"sidecar empty", func(_, m string) error { return os.WriteFile(m, nil, 0o644) }},
	} {
		k := "html/" + strings.ReplaceAll(tc.name, " ", "-") + "/index.html"
		put(t, s, k, body)
		file := filepath.Join(dir, filepath.FromSlash(k))
		if err := tc.damage(file, filepath.Join(filepath.Dir(file), ".meta-index.html")); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.name == "replaced" { // same bytes, another file: a copy from elsewhere
			if err := os.Rename(file+".new", file); err != nil {
				t.Fatal(err)
			}
		}
		wantCorrupt(t, s, k, tc.name)
		var listed bool
		s.List(ctx, k, func(artifact.Key) error { listed = true; return nil })
		if !listed {
			t.Errorf("%s: List does not give %s; a check must find it", tc.name, k)
		}
		put(t, s, k, body)
		if err := artifact.Verify(ctx, s, artifact.MustParseKey(k)); err != nil {
			t.Errorf("%s: after a new Put, Verify = %v; want nil", tc.name, err)
		}
	}
}

// TestVerifyCatchesWhatStatCannot rewrites a body in place and puts its
// modification time back: size, inode and time all match the sidecar,
// so Get (which reads no body) serves it, and only Verify's hash tells.
func TestVerifyCatchesWhatStatCannot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	m := put(t, s, "a.html", "original")
	file := filepath.Join(dir, "a.html")
	w, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteAt([]byte("ORIGINAL"), 0)
	w.Close()
	if err := os.Chtimes(file, m.ModTime, m.ModTime); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stat(ctx, artifact.MustParseKey("a.html")); err != nil {
		t.Fatalf("Stat of a same-size rewrite with its time restored = %v; the cheap check should not see it", err)
	}
	if err := artifact.Verify(ctx, s, artifact.MustParseKey("a.html")); !errors.Is(err, artifact.ErrCorrupt) {
		t.Errorf("Verify = %v; want ErrCorrupt", err)
	}
}

// TestOrphanSidecar removes a body and leaves its sidecar (a Delete that
// died half way): the key reads as absent, and Sweep removes the sidecar.
func TestOrphanSidecar(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	put(t, s, "a/b.html", "x")
	os.Remove(filepath.Join(dir, "a/b.html"))
	if _, _, err := s.Get(ctx, artifact.MustParseKey("a/b.html")); murlog.ErrorCode(err) != murlog.ENotFound {
		t.Errorf("Get of a body without its file = %v; want not_found", err)
	}
	n, err := s.Sweep(ctx, time.Now().Add(time.Hour))
	if err != nil || n != 1 {
		t.Errorf("Sweep = %d, %v; want the orphan sidecar removed", n, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "a/.meta-b.html")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the orphan sidecar is still there: %v", err)
	}
}

// TestSweep plants temp files of crashed writers: Get and List ignore
// them; Sweep removes only those older than its bound, and never a body
// or the sidecar of a key that itself looks like a temp or sidecar name.
func TestSweep(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	now := time.Now()
	for _, k := range []string{"html/index.html", "tmp-1", "html/meta-x"} {
		put(t, s, k, "keep")
	}
	old, fresh := filepath.Join(dir, "html/.tmp-0000000000000001"), filepath.Join(dir, ".tmp-0000000000000002")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("half a bo"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(old, now.Add(-time.Hour), now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	var listed []string
	s.List(ctx, "", func(k artifact.Key) error { listed = append(listed, k.String()); return nil })
	slices.Sort(listed)
	if want := []string{"html/index.html", "html/meta-x", "tmp-1"}; !slices.Equal(listed, want) {
		t.Errorf("List = %q; want %q (no temp files)", listed, want)
	}
	n, err := s.Sweep(ctx, now.Add(-10*time.Minute))
	if err != nil || n != 1 {
		t.Errorf("Sweep(10 minutes ago) = %d, %v; want 1 removed", n, err)
	}
	if _, err := os.Lstat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("old temp file still there: %v", err)
	}
	if _, err := os.Lstat(fresh); err != nil {
		t.Errorf("fresh temp file (a live writer's) removed: %v", err)
	}
	for _, k := range listed {
		if err := artifact.Verify(ctx, s, artifact.MustParseKey(k)); err != nil {
			t.Errorf("after Sweep, Verify(%s) = %v", k, err)
		}
	}
}

// TestFolderConflict: on disk a key cannot be both an artifact and a
// folder of others. The second Put is a conflict and the first survives.
func TestFolderConflict(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	put(t, s, "a/b", "file")
	if _, err := s.Put(ctx, artifact.MustParseKey("a/b/c"), "text/plain", []byte("x")); murlog.ErrorCode(err) != murlog.EConflict {
		t.Errorf("Put(a/b/c) over the artifact a/b = %v; want conflict", err)
	}
	put(t, s, "x/y/z", "file")
	if _, err := s.Put(ctx, artifact.MustParseKey("x/y"), "text/plain", []byte("x")); murlog.ErrorCode(err) != murlog.EConflict {
		t.Errorf("Put(x/y) over the folder x/y = %v; want conflict", err)
	}
	if err := s.Delete(ctx, artifact.MustParseKey("x/y")); err != nil {
		t.Errorf("Delete(x/y), a folder: %v", err)
	}
	for _, k := range []string{"a/b", "x/y/z"} {
		if err := artifact.Verify(ctx, s, artifact.MustParseKey(k)); err != nil {
			t.Errorf("Verify(%s) = %v; want it intact", k, err)
		}
	}
}

// TestTwoStoresOneFolder is the CGI case: the request process and the
// spawned worker are two Stores on one folder, sharing no lock. Readers
// on one must still never get a body its Meta does not describe while
// the other writes: the sidecar's identity check and the retry cover the
// window between the two renames.
func TestTwoStoresOneFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, r := open(t, dir), open(t, dir)
	const k = "ap/@alice/actor.json"
	bodies := []string{strings.Repeat("a", 5000), strings.Repeat("b", 5000), strings.Repeat("c", 7000)}
	put(t, w, k, bodies[0])
	done := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var bad []string
	reads := 0
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				rc, m, err := r.Get(ctx, artifact.MustParseKey(k))
				if err != nil {
					mu.Lock()
					bad = append(bad, err.Error())
					mu.Unlock()
					continue
				}
				b, _ := io.ReadAll(rc)
				rc.Close()
				mu.Lock()
				reads++
				if int64(len(b)) != m.Length || artifact.Sum(b) != m.SHA256 || !slices.Contains(bodies, string(b)) {
					bad = append(bad, "a body its Meta does not describe")
				}
				mu.Unlock()
			}
		})
	}
	const writes = 100
	for i := range writes {
		put(t, w, k, bodies[i%len(bodies)])
	}
	close(done)
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("%d of %d reads went wrong, first: %s", len(bad), reads+len(bad), bad[0])
	}
	t.Logf("%d reads during %d writes from another Store", reads, writes)
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	file := filepath.Join(top, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, dir := range []string{"", file, filepath.Join(file, "sub")} {
		s, err := fsstore.New(dir)
		if err == nil {
			s.Close()
			t.Errorf("New(%q) succeeded; want an error", dir)
			continue
		}
		if dir != "" && (murlog.ErrorCode(err) != murlog.EUnavailable || !strings.Contains(murlog.ErrorMessage(err), dir)) {
			t.Errorf("New(%q) = %v; want unavailable naming the folder", dir, err)
		}
	}
}

// TestNewUnwritable needs a user the file modes bind. As root, which
// they do not bind, it runs itself again as the user nobody.
func TestNewUnwritable(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		asNobody(t, "TestNewUnwritable")
		return
	}
	for _, tc := range []struct {
		mode fs.FileMode
		what string
	}{{0o555, "cannot be written"}, {0o333, "read"}} {
		dir := filepath.Join(t.TempDir(), "ro")
		os.Mkdir(dir, 0o755)
		os.Chmod(dir, tc.mode)
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		s, err := fsstore.New(dir)
		if err == nil {
			s.Close()
			t.Errorf("New of a folder of mode %v succeeded", tc.mode)
			continue
		}
		if msg := murlog.ErrorMessage(err); !strings.Contains(msg, dir) || !strings.Contains(msg, tc.what) {
			t.Errorf("New of a folder of mode %v: %q; want it to name %s and say %q", tc.mode, msg, dir, tc.what)
		}
	}
	// A folder inside that became read-only: Put says which, and what.
	dir := t.TempDir()
	s := open(t, dir)
	put(t, s, "html/@alice/index.html", "x")
	os.Chmod(filepath.Join(dir, "html/@alice"), 0o555)
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "html/@alice"), 0o755) })
	_, err := s.Put(ctx, artifact.MustParseKey("html/@alice/01abc/index.html"), "text/html", []byte("y"))
	if msg := murlog.ErrorMessage(err); murlog.ErrorCode(err) != murlog.EUnavailable || !strings.Contains(msg, "html/@alice") {
		t.Errorf("Put into a read-only folder = %v; want unavailable naming html/@alice", err)
	}
	_, err = s.Put(ctx, artifact.MustParseKey("html/@alice/index.html"), "text/html", []byte("y"))
	if murlog.ErrorCode(err) != murlog.EUnavailable {
		t.Errorf("Put over an artifact in a read-only folder = %v; want unavailable", err)
	}
	if err := artifact.Verify(ctx, s, artifact.MustParseKey("html/@alice/index.html")); err != nil {
		t.Errorf("the artifact in the read-only folder after a failed Put: %v; want it intact", err)
	}
}

func BenchmarkPut10KB(b *testing.B) {
	s := open(b, b.TempDir())
	body := bytes.Repeat([]byte("0123456789"), 1024)
	k := artifact.MustParseKey("html/@alice/01abc/index.html")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := s.Put(ctx, k, "text/html; charset=utf-8", body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGet10KB(b *testing.B) {
	s := open(b, b.TempDir())
	body := bytes.Repeat([]byte("0123456789"), 1024)
	k := artifact.MustParseKey("html/@alice/01abc/index.html")
	if _, err := s.Put(ctx, k, "text/html; charset=utf-8", body); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, len(body)+1)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		rc, _, err := s.Get(ctx, k)
		if err != nil {
			b.Fatal(err)
		}
		if n, _ := io.ReadFull(rc, buf); n != len(body) {
			b.Fatalf("read %d bytes", n)
		}
		rc.Close()
	}
}

func BenchmarkStat(b *testing.B) {
	s := open(b, b.TempDir())
	k := artifact.MustParseKey("html/@alice/01abc/index.html")
	if _, err := s.Put(ctx, k, "text/html; charset=utf-8", []byte("x")); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Stat(ctx, k); err != nil {
			b.Fatal(err)
		}
	}
}

// asNobody runs the test named test in a copy of this test binary as the
// user nobody (65534), failing t with its output if it fails.
func asNobody(t *testing.T, test string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "asnobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "test")
	b, err := os.ReadFile(exe)
	if err == nil {
		err = os.WriteFile(bin, b, 0o755)
	}
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+test+"$", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+os.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s as nobody: %v\n%s", test, err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("%s as nobody did not pass:\n%s", test, out)
	}
}
