package apachetest

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	rootOnce sync.Once
	rootDir  string
	rootErr  error

	buildMu   sync.Mutex
	buildDir  string
	buildDone = map[string]*buildResult{}
)

type buildResult struct {
	once sync.Once
	path string
	err  error
}

// ModuleRoot returns the directory holding murlog's go.mod.
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	rootOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			rootErr = fmt.Errorf("go env GOMOD: %w", err)
			return
		}
		mod := strings.TrimSpace(string(out))
		if mod == "" || mod == os.DevNull {
			rootErr = fmt.Errorf("go env GOMOD: not inside a module")
			return
		}
		rootDir = filepath.Dir(mod)
	})
	if rootErr != nil {
		tb.Fatal(rootErr)
	}
	return rootDir
}

// Build builds the main package pkg of the module (e.g. "./cmd/murlog") as
// a static binary, the way it ships to shared hosts, once per test binary,
// and returns its path. The path is in a private directory: copy the file
// (Server.Install) before handing it to another user. Call RemoveBuilds
// from TestMain to delete the directory.
func Build(tb testing.TB, pkg string) string {
	tb.Helper()
	root := ModuleRoot(tb)
	buildMu.Lock()
	if buildDir == "" {
		d, err := os.MkdirTemp("", "murlog-apachetest-build-*")
		if err != nil {
			buildMu.Unlock()
			tb.Fatal(err)
		}
		buildDir = d
	}
	r := buildDone[pkg]
	if r == nil {
		r = &buildResult{}
		buildDone[pkg] = r
	}
	dir := buildDir
	buildMu.Unlock()
	r.once.Do(func() {
		out := filepath.Join(dir, strings.NewReplacer("/", "_", ".", "_").Replace(pkg))
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			r.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
			return
		}
		r.path = out
	})
	if r.err != nil {
		tb.Fatal(r.err)
	}
	return r.path
}

// Murlog builds ./cmd/murlog (see Build).
func Murlog(tb testing.TB) string {
	tb.Helper()
	return Build(tb, "./cmd/murlog")
}

// RemoveBuilds deletes every binary Build made. Call it after m.Run.
func RemoveBuilds() {
	buildMu.Lock()
	defer buildMu.Unlock()
	if buildDir != "" {
		os.RemoveAll(buildDir)
		buildDir = ""
		buildDone = map[string]*buildResult{}
	}
}

// copyFile copies src to dst with mode perm.
func copyFile(dst, src string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".apachetest-tmp"
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(tmp)
		return err
	}
	if err := out.Chmod(perm); err != nil {
		out.Close()
		os.Remove(tmp)
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, dst)
}
