// Package apachetest runs a real Apache httpd (event MPM + mod_cgid) for
// tests, with murlog installed as murlog.cgi in a temporary document root
// that allows .htaccess overrides, the way a shared host runs it.
//
// Apache is started in the foreground in its own process group with a
// private configuration (ServerRoot, PidFile, runtime dir, mutexes, CGI
// socket and logs in a temporary directory, listening on a free port of
// 127.0.0.1) and stopped in t.Cleanup. When the test failed, the cleanup
// writes Apache's error_log (which also holds murlog's stderr) into the
// test log.
//
// Run as root, Apache runs CGI programs as www-data, and the document root
// belongs to that user so murlog can write murlog.ini, data/ and .htaccess.
package apachetest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/murlog/murlog/client"
)

// Script is the file name murlog is installed under in the document root.
const Script = "murlog.cgi"

// CGIUser is the user Apache runs CGI programs as when the tests run as root.
const CGIUser = "www-data"

// Binary returns the Apache binary: $MURLOG_APACHE2, else /usr/sbin/apache2.
func Binary() string {
	if p := os.Getenv("MURLOG_APACHE2"); p != "" {
		return p
	}
	return "/usr/sbin/apache2"
}

// ModulesDir returns where Apache's modules are: $MURLOG_APACHE_MODULES,
// else Debian's /usr/lib/apache2/modules.
func ModulesDir() string {
	if p := os.Getenv("MURLOG_APACHE_MODULES"); p != "" {
		return p
	}
	return "/usr/lib/apache2/modules"
}

// Require skips the test when Apache is not installed, or fails it when
// the environment says CI=true (CI must not silently skip these tests).
func Require(tb testing.TB) {
	tb.Helper()
	var missing []string
	if _, err := os.Stat(Binary()); err != nil {
		missing = append(missing, Binary())
	}
	if _, err := os.Stat(filepath.Join(ModulesDir(), "mod_cgid.so")); err != nil {
		missing = append(missing, filepath.Join(ModulesDir(), "mod_cgid.so"))
	}
	if len(missing) == 0 {
		return
	}
	msg := fmt.Sprintf("Apache httpd is not installed (missing %s): install it (Debian: apt-get install apache2) or point MURLOG_APACHE2 and MURLOG_APACHE_MODULES at it", strings.Join(missing, ", "))
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg + "; CI=true, so this is a failure, not a skip")
	}
	tb.Skip(msg)
}

// modules Apache needs, by module identifier and file.
var modules = [][2]string{
	{"mpm_event_module", "mod_mpm_event.so"},
	{"cgid_module", "mod_cgid.so"},
	{"rewrite_module", "mod_rewrite.so"},
	{"headers_module", "mod_headers.so"},
	{"env_module", "mod_env.so"},
	{"authz_core_module", "mod_authz_core.so"},
	{"authz_host_module", "mod_authz_host.so"},
	{"mime_module", "mod_mime.so"},
	{"dir_module", "mod_dir.so"},
	{"alias_module", "mod_alias.so"},
	{"log_config_module", "mod_log_config.so"},
	{"unixd_module", "mod_unixd.so"},
}

var (
	builtinOnce sync.Once
	builtin     map[string]bool
)

// builtins returns the source files of the modules compiled into Apache
// (`apache2 -l`: "mod_unixd.c"), which must not be loaded again (Debian
// builds in mod_log_config and mod_unixd).
func builtins() map[string]bool {
	builtinOnce.Do(func() {
		builtin = map[string]bool{}
		out, _ := exec.Command(Binary(), "-l").Output()
		for _, f := range strings.Fields(string(out)) {
			if strings.HasSuffix(f, ".c") {
				builtin[f] = true
			}
		}
	})
	return builtin
}

// Options tune a Server.
type Options struct {
	// DocRoot is served as the document root. When empty, a new empty one
	// (see NewDir) is made. An existing one must be traversable by the
	// CGI user; it is chowned to that user.
	DocRoot string
	// NoMurlog leaves murlog.cgi out of a new document root.
	NoMurlog bool
	// Files are written into the document root before Apache starts
	// (name relative to it → content, mode 0644, or 0755 for *.cgi).
	Files map[string]string
	// LogLevel is Apache's LogLevel; "warn" when empty. Use e.g.
	// "warn rewrite:trace3" to see mod_rewrite's decisions.
	LogLevel string
	// Config is appended to the generated server configuration.
	Config string
	// NoHtDeny leaves out the usual server-wide rule that hides .ht*
	// files, as some hosts do, so only murlog's block protects them.
	NoHtDeny bool
	// Listen is the address Apache listens on ("127.0.0.9:80"); a free
	// port of 127.0.0.1 when empty. Port 80 of a loopback address of its
	// own lets a site's domain carry no port (root only).
	Listen string
	// WithoutModules are module identifiers ("rewrite_module") not to
	// load, to see what murlog's block does without them.
	WithoutModules []string
}

// Server is a running Apache.
type Server struct {
	URL     string // http://127.0.0.1:PORT
	Addr    string // 127.0.0.1:PORT, the site's domain in murlog terms
	DocRoot string
	Root    string // ServerRoot: httpd.conf, logs/, run/
	Conf    string
	// UID and GID are the CGI user's when running as root, else -1.
	UID, GID int

	cmd      *exec.Cmd
	exited   chan struct{}
	stopOnce sync.Once
}

// NewDir makes a temporary directory that other users may traverse (the
// CGI user must reach the document root) and removes it in cleanup.
func NewDir(tb testing.TB) string {
	tb.Helper()
	d, err := os.MkdirTemp("", "murlog-apachetest-*")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(d) })
	if err := os.Chmod(d, 0o755); err != nil {
		tb.Fatal(err)
	}
	return d
}

// CGICredential returns the user and group Apache runs CGI programs as
// when this process is root; ok is false when not root (Apache then runs
// everything as the current user).
func CGICredential() (uid, gid int, ok bool, err error) {
	if os.Geteuid() != 0 {
		return -1, -1, false, nil
	}
	u, err := user.Lookup(CGIUser)
	if err != nil {
		return -1, -1, false, fmt.Errorf("running as root, Apache needs the user %s for CGI: %w", CGIUser, err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid, true, nil
}

// Start starts Apache serving o.DocRoot (or a new document root holding
// murlog.cgi) and stops it when the test ends.
func Start(tb testing.TB, o Options) *Server {
	tb.Helper()
	Require(tb)
	uid, gid, asRoot, err := CGICredential()
	if err != nil {
		tb.Fatal(err)
	}
	root := NewDir(tb)
	s := &Server{Root: root, Conf: filepath.Join(root, "httpd.conf"), DocRoot: o.DocRoot, UID: uid, GID: gid}
	for _, d := range []string{"logs", "run", "probe"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "probe", "ready.txt"), []byte("ready\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	if s.DocRoot == "" {
		s.DocRoot = filepath.Join(root, "htdocs")
		if err := os.Mkdir(s.DocRoot, 0o755); err != nil {
			tb.Fatal(err)
		}
		if !o.NoMurlog {
			s.Install(tb, Murlog(tb), Script)
		}
	}
	for name, content := range o.Files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".cgi") {
			mode = 0o755
		}
		s.WriteFile(tb, name, content, mode)
	}
	s.Chown(tb, s.DocRoot)

	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Errorf("stop Apache: %v", err)
		}
		if tb.Failed() {
			tb.Logf("Apache error_log (%s):\n%s", filepath.Join(root, "logs", "error_log"), s.ErrorLog())
			tb.Logf("Apache access_log (last lines):\n%s", tail(s.AccessLog(), 40))
		}
	})
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		if lastErr = s.start(o, asRoot); lastErr == nil {
			return s
		}
		if o.Listen != "" || !strings.Contains(lastErr.Error(), "Address already in use") {
			break
		}
	}
	tb.Fatalf("start Apache: %v", lastErr)
	return nil
}

func (s *Server) start(o Options, asRoot bool) error {
	host, port := "127.0.0.1", 0
	if o.Listen != "" {
		h, p, err := net.SplitHostPort(o.Listen)
		if err != nil {
			return err
		}
		host = h
		if port, err = strconv.Atoi(p); err != nil {
			return err
		}
	} else {
		var err error
		if port, err = freePort(); err != nil {
			return err
		}
	}
	s.Addr = net.JoinHostPort(host, strconv.Itoa(port))
	s.URL = "http://" + s.Addr
	if err := os.WriteFile(s.Conf, []byte(s.config(o, s.Addr, asRoot)), 0o644); err != nil {
		return err
	}
	stderr, err := os.Create(filepath.Join(s.Root, "logs", "stderr"))
	if err != nil {
		return err
	}
	defer stderr.Close()
	cmd := exec.Command(Binary(), "-f", s.Conf, "-DFOREGROUND")
	cmd.Dir = s.Root
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C"}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd = cmd
	s.exited = make(chan struct{})
	s.stopOnce = sync.Once{}
	go func() { cmd.Wait(); close(s.exited) }()

	hc := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			b, _ := os.ReadFile(filepath.Join(s.Root, "logs", "stderr"))
			return fmt.Errorf("apache2 exited at start-up: %s\n%s\nerror_log:\n%s", cmd.ProcessState, b, s.ErrorLog())
		default:
		}
		resp, err := hc.Get(s.URL + "/.apachetest-ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			s.Stop()
			return fmt.Errorf("readiness probe answered HTTP %d\nerror_log:\n%s", resp.StatusCode, s.ErrorLog())
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Stop()
	return fmt.Errorf("apache2 did not answer on %s within 20s\nerror_log:\n%s", s.Addr, s.ErrorLog())
}

func (s *Server) config(o Options, addr string, asRoot bool) string {
	var b strings.Builder
	w := func(f string, args ...any) { fmt.Fprintf(&b, f+"\n", args...) }
	level := o.LogLevel
	if level == "" {
		level = "warn"
	}
	w("# Generated by murlog's internal/apachetest.")
	w("ServerRoot %q", s.Root)
	w("ServerName 127.0.0.1")
	w("Listen %s", addr)
	w("PidFile %q", filepath.Join(s.Root, "run", "httpd.pid"))
	w("DefaultRuntimeDir %q", filepath.Join(s.Root, "run"))
	w("Mutex file:%s default", filepath.Join(s.Root, "run"))
	w("ErrorLog %q", filepath.Join(s.Root, "logs", "error_log"))
	w("LogLevel %s", level)
	for _, m := range modules {
		if builtins()[strings.TrimSuffix(m[1], ".so")+".c"] || slices.Contains(o.WithoutModules, m[0]) {
			continue
		}
		w("LoadModule %s %q", m[0], filepath.Join(ModulesDir(), m[1]))
	}
	w("ScriptSock %q", filepath.Join(s.Root, "run", "cgid.sock"))
	if asRoot {
		w("User %s", CGIUser)
		w("Group #%d", s.GID)
	}
	if _, err := os.Stat("/etc/mime.types"); err == nil {
		w("TypesConfig /etc/mime.types")
	}
	w(`LogFormat "%%h \"%%r\" %%>s %%b %%Dus" timed`)
	w("CustomLog %q timed", filepath.Join(s.Root, "logs", "access_log"))
	w("Timeout 30")
	w("KeepAlive On")
	// What a shared host typically has: nothing outside the document root,
	// .ht* files hidden, CGI and .htaccess allowed in the user's directory.
	w("<Directory />")
	w("  AllowOverride None")
	w("  Require all denied")
	w("</Directory>")
	w("DocumentRoot %q", s.DocRoot)
	w("<Directory %q>", s.DocRoot)
	w("  Options +ExecCGI")
	w("  AllowOverride All")
	w("  Require all granted")
	w("  AddHandler cgi-script .cgi")
	w("</Directory>")
	if !o.NoHtDeny {
		w(`<FilesMatch "^\.ht">`)
		w("  Require all denied")
		w("</FilesMatch>")
	}
	// Readiness probe outside the document root, so it never reaches murlog.
	w("Alias /.apachetest-ready %q", filepath.Join(s.Root, "probe", "ready.txt"))
	w("<Directory %q>", filepath.Join(s.Root, "probe"))
	w("  Require all granted")
	w("</Directory>")
	if o.Config != "" {
		w("%s", o.Config)
	}
	return b.String()
}

// Stop stops Apache (apache2 -k stop, then SIGKILL to its process group,
// which holds the CGI processes too). Cleanup calls it; calling it again
// does nothing.
func (s *Server) Stop() error {
	if s.cmd == nil {
		return nil
	}
	var err error
	s.stopOnce.Do(func() {
		pgid := s.cmd.Process.Pid
		stop := exec.Command(Binary(), "-f", s.Conf, "-k", "stop")
		stop.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
		out, serr := stop.CombinedOutput()
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			err = fmt.Errorf("apache2 did not stop within 10s (apache2 -k stop: %v %s); killing it", serr, out)
		}
		// Whatever is left in the group (CGI processes, a hung parent).
		if kerr := syscall.Kill(-pgid, syscall.SIGKILL); kerr != nil && !errors.Is(kerr, syscall.ESRCH) && err == nil {
			err = kerr
		}
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
			if err == nil {
				err = errors.New("apache2 still running after SIGKILL")
			}
		}
	})
	return err
}

// ErrorLog returns Apache's error_log, murlog's stderr included.
func (s *Server) ErrorLog() string {
	b, _ := os.ReadFile(filepath.Join(s.Root, "logs", "error_log"))
	return string(b)
}

// AccessLog returns Apache's access_log ("%h \"%r\" %>s %b %Dus").
func (s *Server) AccessLog() string {
	b, _ := os.ReadFile(filepath.Join(s.Root, "logs", "access_log"))
	return string(b)
}

// Client returns a fresh, logged-out murlog client for the site.
func (s *Server) Client() *client.Client { return client.New(s.URL) }

// Path returns the absolute path of name inside the document root.
func (s *Server) Path(name string) string { return filepath.Join(s.DocRoot, filepath.FromSlash(name)) }

// WriteFile writes name (relative to the document root, parents created)
// and gives it to the CGI user.
func (s *Server) WriteFile(tb testing.TB, name, content string, perm os.FileMode) {
	tb.Helper()
	p := s.Path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		tb.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil {
		tb.Fatal(err)
	}
	s.Chown(tb, filepath.Dir(p))
}

// Install copies the file src into the document root as name (mode 0755,
// parents created), owned by the CGI user, and returns its path.
func (s *Server) Install(tb testing.TB, src, name string) string {
	tb.Helper()
	dst := s.Path(name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := copyFile(dst, src, 0o755); err != nil {
		tb.Fatal(err)
	}
	s.Chown(tb, filepath.Dir(dst))
	return dst
}

// Chown gives path (recursively) to the CGI user; a no-op when not root.
func (s *Server) Chown(tb testing.TB, path string) {
	tb.Helper()
	if s.UID < 0 {
		return
	}
	if err := ChownTree(path, s.UID, s.GID); err != nil {
		tb.Fatal(err)
	}
}

// ChownTree chowns path and everything below it.
func ChownTree(path string, uid, gid int) error {
	return filepath.Walk(path, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// Command runs a program from the document root (e.g. "murlog.cgi" with
// "reset", "--config", …) as the CGI user, in the document root, with a
// clean environment — never as root against murlog's files.
func (s *Server) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(s.Path(name), args...)
	cmd.Dir = s.DocRoot
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + s.DocRoot}
	if c := s.Credential(); c != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c}
	}
	return cmd
}

// Credential is the CGI user's, for exec.Cmd; nil when not running as root.
func (s *Server) Credential() *syscall.Credential {
	if s.UID < 0 {
		return nil
	}
	return &syscall.Credential{Uid: uint32(s.UID), Gid: uint32(s.GID)}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func tail(s string, n int) string {
	lines := bytes.Split([]byte(strings.TrimRight(s, "\n")), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
