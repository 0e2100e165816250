package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets tests run this binary's main as a subprocess: with
// MURLOG_TEST_MAIN=1 the test binary is murlog.
func TestMain(m *testing.M) {
	if os.Getenv("MURLOG_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
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
