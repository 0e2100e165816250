package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murlog/murlog/client"
)

// TestMain lets tests run this binary's main as a subprocess: with
// MURLOG_TEST_MAIN=1 the test binary is murlog.
func TestMain(m *testing.M) {
	if os.Getenv("MURLOG_TEST_MAIN") == "1" {
		os.Exit(start(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func command(t *testing.T, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "MURLOG_TEST_MAIN=1"), env...)
	return cmd
}

func TestDispatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args     []string
		code     int
		out, err string
	}{
		{nil, 2, "", "Usage:"},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{[]string{"help"}, 0, "murlog serve", ""},
		{[]string{"version"}, 0, "murlog dev", ""},
		{[]string{"serve", "--bogus"}, 2, "", "flag provided but not defined"},
		{[]string{"serve", "--help"}, 0, "--listen", ""},
		{[]string{"worker", "-h"}, 0, "--once", ""},
		{[]string{"reset", "--help"}, 0, "--config", ""},
		{[]string{"serve", "extra"}, 2, "", `unexpected argument "extra"`},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errb.String(), tc.err) {
			t.Errorf("murlog %v = %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, out.String(), errb.String(), tc.code, tc.out, tc.err)
		}
	}
}

func TestMalformedIniFailsFast(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "murlog.ini"), []byte("data_dir = ./data\nlisten = 8080\n"), 0o600)
	var out, errb bytes.Buffer
	t.Chdir(dir)
	code := run([]string{"serve"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "murlog.ini:2: key \"listen\"") {
		t.Errorf("serve with a bad ini = %d, %q; want 1 and the file, line and key", code, errb.String())
	}
	os.WriteFile(filepath.Join(dir, "murlog.ini"), []byte("data_dir = ./missing\n"), 0o600)
	errb.Reset()
	code = run([]string{"serve"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "does not exist") {
		t.Errorf("serve with a missing data dir = %d, %q; want 1 and a clear message", code, errb.String())
	}
}

// TestCGIChosenByEnvironment runs the binary with no arguments and a CGI
// environment, as Apache does for murlog.cgi.
func TestCGIChosenByEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := command(t, dir, []string{"GATEWAY_INTERFACE=CGI/1.1", "REQUEST_METHOD=GET", "REQUEST_URI=/",
		"SERVER_PROTOCOL=HTTP/1.1", "HTTP_HOST=example.com", "HTTP_ACCEPT=text/html", "SCRIPT_NAME=/murlog.cgi",
		"SCRIPT_FILENAME=" + filepath.Join(dir, "murlog.cgi"), "SERVER_NAME=example.com", "SERVER_PORT=80", "REMOTE_ADDR=127.0.0.1"})
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("cgi run: %v\n%s", err, errb.String())
	}
	if !strings.HasPrefix(out.String(), "Status: 303") || !strings.Contains(out.String(), "Location: /admin/setup/server") {
		t.Errorf("CGI output = %q; want a 303 to the wizard", out.String())
	}
	ht, err := os.ReadFile(filepath.Join(dir, ".htaccess"))
	if err != nil || !strings.Contains(string(ht), "# BEGIN murlog") {
		t.Errorf(".htaccess after the first CGI request: %v %q", err, ht)
	}
}

// TestServeGracefulShutdown sends SIGTERM while a request is in flight: the
// request completes, new connections are refused, and murlog exits 0.
func TestServeGracefulShutdown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := command(t, dir, []string{"MURLOG_SCHEME=http"}, "serve", "--listen", "127.0.0.1:0")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	var addr string
	var logs []string
	for lines.Scan() {
		logs = append(logs, lines.Text())
		var l struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		json.Unmarshal(lines.Bytes(), &l)
		if l.Msg == "murlog serving" {
			addr = l.Addr
			break
		}
	}
	if addr == "" {
		t.Fatalf("no 'murlog serving' line: %v", logs)
	}
	go func() {
		for lines.Scan() {
			logs = append(logs, lines.Text())
		}
	}()
	pr, pw := io.Pipe()
	respc := make(chan *http.Response, 1)
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest("POST", "http://"+addr+"/admin/setup/server", pr)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			errc <- err
			return
		}
		respc <- resp
	}()
	pw.Write([]byte("data_dir=.%2Fdata&"))
	time.Sleep(200 * time.Millisecond) // the handler is now reading the body
	cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(200 * time.Millisecond)
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Error("a new request was accepted after SIGTERM")
	}
	pw.Write([]byte("media_path=.%2Fmedia"))
	pw.Close()
	select {
	case resp := <-respc:
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden { // no CSRF token: a complete, ordinary answer
			t.Errorf("in-flight request answered %d; want its normal 403", resp.StatusCode)
		}
	case err := <-errc:
		t.Fatalf("the in-flight request was cut off: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the in-flight request never completed")
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("murlog serve exited with %v after SIGTERM; want 0", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("murlog serve did not exit after SIGTERM")
	}
}

// TestHelpShowsDoubleDashFlags: --help is an answer, not a mistake, and
// lists the flags the way the usage text spells them.
func TestHelpShowsDoubleDashFlags(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "--help"}, &out, &errb); code != 0 {
		t.Fatalf("serve --help = %d (stderr %q); want 0", code, errb.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "-") && !strings.HasPrefix(f[0], "--") {
			t.Errorf("serve --help shows %q; want flags as --flag", line)
		}
	}
	if !strings.Contains(out.String(), "--listen") || !strings.Contains(out.String(), "--config") {
		t.Errorf("serve --help = %q; want --listen and --config", out.String())
	}
}

func TestBuildVersion(t *testing.T) {
	t.Parallel()
	rev := "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name     string
		main     string
		settings map[string]string
		want     string
	}{
		{"go install of a tag", "v1.2.3", nil, "v1.2.3"},
		{"checkout build", "(devel)", map[string]string{"vcs.revision": rev, "vcs.modified": "false"}, "dev+0123456789ab"},
		{"checkout with changes", "(devel)", map[string]string{"vcs.revision": rev, "vcs.modified": "true"}, "dev+0123456789ab-dirty"},
		{"pseudo-version", "v0.0.0-20261201090000-0123456789ab", map[string]string{"vcs.revision": rev}, "v0.0.0-20261201090000-0123456789ab"},
		{"nothing recorded", "(devel)", nil, "dev"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/murlog/murlog", Version: tc.main}}
		for k, v := range tc.settings {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: k, Value: v})
		}
		if got := buildVersion(bi); got != tc.want {
			t.Errorf("%s: buildVersion = %q; want %q", tc.name, got, tc.want)
		}
	}
}

// TestVersionOfBuiltBinary builds murlog as a user would: with a stamped
// version it reports that; from a git checkout without one it reports the
// revision (not a bare "dev").
func TestVersionOfBuiltBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	root := moduleRoot(t)
	build := func(env []string, args ...string) string {
		t.Helper()
		bin := filepath.Join(t.TempDir(), "murlog")
		cmd := exec.Command("go", append(append([]string{"build", "-o", bin}, args...), "./cmd/murlog")...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatalf("murlog version: %v", err)
		}
		return string(out)
	}
	if got := build(nil, "-ldflags", "-X github.com/murlog/murlog.Version=v9.8.7"); !strings.HasPrefix(got, "murlog v9.8.7 (") {
		t.Errorf("stamped build: murlog version = %q; want murlog v9.8.7", got)
	}
	// The go command records VCS information only in a checkout whose
	// .git is a directory (not in a git worktree, whose .git is a file).
	if st, err := os.Stat(filepath.Join(root, ".git")); err != nil || !st.IsDir() {
		t.Skipf("%s is not a plain git checkout: the unstamped build has no VCS information to report", root)
	}
	rev, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("git rev-parse: %v", err)
	}
	// Go 1.24+ stamps a pseudo-version naming the commit; older
	// toolchains leave "(devel)" and buildVersion adds the revision.
	if got := build([]string{"GOFLAGS=-buildvcs=true"}); strings.HasPrefix(got, "murlog dev ") || !strings.Contains(got, string(rev[:12])) {
		t.Errorf("README build: murlog version = %q; want it to name revision %s", got, rev[:12])
	}
}

func moduleRoot(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// startServe runs `murlog serve` in dir on a free port and returns its
// address once it is listening, and every line it wrote so far.
func startServe(t *testing.T, dir string, env ...string) (*exec.Cmd, string, *[]string) {
	t.Helper()
	cmd := command(t, dir, append([]string{"MURLOG_SCHEME=http"}, env...), "serve", "--listen", "127.0.0.1:0")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	var logs []string
	for lines.Scan() {
		logs = append(logs, lines.Text())
		var l struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		json.Unmarshal(lines.Bytes(), &l)
		if l.Msg == "murlog serving" {
			go func() {
				for lines.Scan() {
				}
			}()
			return cmd, l.Addr, &logs
		}
	}
	t.Fatalf("no 'murlog serving' line: %v", logs)
	return nil, "", nil
}

// TestServeCreatesPrivateFiles: murlog runs with umask 0077, so what it
// creates is its user's alone, except the media folder Apache must read.
func TestServeCreatesPrivateFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd, addr, _ := startServe(t, dir)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err == nil && !strings.Contains(string(status), "Umask:\t0077") {
		t.Errorf("murlog serve runs with %q; want Umask 0077", grepLine(string(status), "Umask"))
	}
	c := client.New("http://" + addr)
	if err := c.Setup(context.Background(), addr, "alice", "long enough pw"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{"murlog.ini": 0o600, "data": 0o700, "data/murlog.db": 0o600, "media": 0o755} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: %v, mode %v; want %v", name, err, st.Mode().Perm(), want)
		}
	}
}

func grepLine(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// TestArtifactsUsage: `murlog artifacts` needs one of its commands, and
// rebuild at most one choice of what to render.
func TestArtifactsUsage(t *testing.T) {
	for _, args := range [][]string{{"artifacts"}, {"artifacts", "frob"}, {"artifacts", "--all"},
		{"artifacts", "rebuild", "--all", "--post", "x"}, {"artifacts", "purge", "--all"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage || errb.Len() == 0 {
			t.Errorf("murlog %v = %d, stderr %q; want %d and a message", args, code, errb.String(), exitUsage)
		}
	}
}
