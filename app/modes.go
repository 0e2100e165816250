package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	stdcgi "net/http/cgi"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/admin"
	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/cgi"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/store"
)

// NewLogger returns the JSON logger for level ("debug", "info", …): slog's
// JSON lines with "time", "level" and "msg", the shape job lines share
// (worker.NewJobLogger). Request lines add svc (murlog-serve or
// murlog-cgi), as job lines do.
func NewLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l}))
}

// svc names this process in request log lines, as worker.Options.Svc
// does in job lines.
func (a *App) svc() string {
	if a.opts.OneShot {
		return "murlog-cgi"
	}
	return "murlog-serve"
}

// ShutdownTimeout bounds how long serve waits for in-flight requests.
const ShutdownTimeout = 30 * time.Second

// Serve runs the resident HTTP server on addr until ctx is cancelled
// (SIGTERM/SIGINT in cmd/murlog), then stops accepting and lets in-flight
// requests finish within ShutdownTimeout. ready, when not nil, receives the
// bound address once listening.
func Serve(ctx context.Context, a *App, addr string, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	// The resident server gives the heap back to the system between bursts
	// (quiet.go); CGI processes exit instead.
	qctx, stopQuiet := context.WithCancel(ctx)
	defer stopQuiet()
	srv := &http.Server{
		Handler:           releaseWhenQuiet(qctx, a),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	a.log.Info("murlog serving", "addr", ln.Addr().String(), "version", murlog.Version, "config", a.Config().Path, "configured", a.Config().Exists)
	if err := a.armSetupToken(ctx, ln.Addr()); err != nil {
		ln.Close()
		return fmt.Errorf("setup token: %w", err)
	}
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	// The job worker runs in the same process; it stops claiming when ctx
	// ends and finishes its running jobs within its grace period.
	wctx, stopWorker := context.WithCancel(ctx)
	defer stopWorker()
	workerDone := make(chan error, 1)
	go func() { workerDone <- a.runWorkerInServe(wctx) }()
	select {
	case err := <-errc:
		stopWorker()
		<-workerDone
		return err
	case <-ctx.Done():
	}
	a.log.Info("shutting down: finishing in-flight requests and jobs", "timeout", ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	if err := <-workerDone; err != nil {
		a.log.Error("worker stopped with an error", "err", err)
	}
	a.log.Info("stopped")
	return nil
}

// RunCGI answers the one request Apache handed over, through the same
// handler as serve. It first makes sure the .htaccess beside the entry point
// protects murlog's files and routes requests here.
func RunCGI(ctx context.Context, o Options) error {
	cgi.FixEnv()
	o.OneShot = true
	script := os.Getenv("SCRIPT_NAME")
	a, err := New(ctx, o)
	if err != nil {
		// Answer something readable; the detail goes to Apache's error log.
		o.Logger.Error("murlog cannot start", "err", err)
		return stdcgi.Serve(cgi.StripScript(script, cannotStart(err)))
	}
	defer a.Close()
	configured := a.Config().Exists
	if dir, herr := a.ensureHtaccess(script); herr != nil {
		// Without its .htaccess murlog's files are reachable and no other
		// address routes here: say so on the one address that reaches it,
		// rather than leaving the owner with Apache's bare 404.
		return stdcgi.Serve(cgi.StripScript(script, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			who, owner := fmt.Sprintf("user id %d", os.Geteuid()), strconv.Itoa(os.Geteuid())
			if name := userName(os.Geteuid()); name != "" {
				who, owner = fmt.Sprintf("%s (user id %d)", name, os.Geteuid()), name
			}
			a.admin.Problem(w, r, http.StatusServiceUnavailable, "cgi.unwritable.heading", "cgi.unwritable.body", dir, who, owner, dir)
		})))
	}
	err = stdcgi.Serve(cgi.StripScript(script, a))
	// The response is complete once stdout closes; Apache need not wait
	// for the rest (closing the database checkpoints its WAL).
	os.Stdout.Close()
	if !configured && a.Config().Exists {
		// This request was setup step 1: protect the new data directory now
		// rather than on the next request (a failure is logged).
		a.ensureHtaccess(script)
	}
	// Shared hosts run no daemon: a request that leaves jobs runnable
	// starts a worker (once per request, after the response).
	if serr := a.spawnWorker(ctx); serr != nil {
		a.log.Warn("cannot start a worker for pending jobs", "err", serr)
	}
	return err
}

// ensureHtaccess makes sure the .htaccess beside the entry point protects
// murlog's files and routes requests here. It returns the folder, and an
// error when there is no murlog block and none can be written.
func (a *App) ensureHtaccess(script string) (string, error) {
	dir := entryDir()
	if dir == "" {
		return "", nil
	}
	h := cgi.Htaccess{Script: filepath.Base(scriptFile()), Base: cgi.BaseOf(script)}
	if a.Config().Exists {
		h.DataDir = cgi.DataDirRel(dir, a.Config().DataDir)
	}
	if rt := a.running.Load(); rt != nil && rt.artifactStore != nil {
		// Set up: Apache answers the pre-rendered artifacts itself, when
		// they are in the document root's _site (an artifact_dir elsewhere
		// is murlog's alone).
		if ad := a.artifactDir(rt.cfg); ad == filepath.Join(dir, cgi.SiteDir) {
			h.ArtifactDir, h.Domain = ad, rt.site.Domain
			h.PageCSP, h.BaseCSP, h.WorkerCSP = blog.ArtifactCSP(), blog.BaseCSP, blog.WorkerCSP
			a.ensureSiteDir(dir, h)
		}
	}
	wrote, err := cgi.Ensure(dir, h)
	if err != nil && cgi.HasBlock(dir) {
		// An older block still routes and protects the site: keep serving.
		a.log.Warn("cannot update the murlog block in .htaccess", "dir", dir, "uid", os.Geteuid(), "err", err)
		return dir, nil
	}
	if err != nil {
		a.log.Error("cannot write .htaccess; murlog's files may be reachable from the web", "dir", dir, "uid", os.Geteuid(), "err", err)
		return dir, err
	}
	if wrote {
		a.log.Info(".htaccess updated", "dir", dir)
	}
	return dir, nil
}

// ensureSiteDir writes the artifact folder's .htaccess. A failure is
// logged, not fatal: without it Apache still serves the artifacts the
// block maps, without their headers, and murlog renders the rest.
func (a *App) ensureSiteDir(dir string, h cgi.Htaccess) {
	if err := cgi.CheckArtifactDir(h.ArtifactDir); err != nil {
		a.log.Warn("Apache cannot serve artifacts without murlog; every page is rendered", "err", err)
		return
	}
	wrote, err := cgi.EnsureSiteDir(dir, h)
	if err != nil {
		a.log.Error("cannot write the artifact folder's .htaccess", "dir", filepath.Join(dir, cgi.SiteDir), "uid", os.Geteuid(), "err", err)
		return
	}
	if wrote {
		a.log.Info("artifact folder's .htaccess updated", "dir", filepath.Join(dir, cgi.SiteDir))
	}
}

// userName is the login name of uid, or "" when the system does not know it.
func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username
	}
	return ""
}

// scriptFile is the CGI entry point on disk: SCRIPT_FILENAME, else this
// executable.
func scriptFile() string {
	if f := os.Getenv("SCRIPT_FILENAME"); f != "" {
		return f
	}
	exe, _ := os.Executable()
	return exe
}

func entryDir() string {
	f := scriptFile()
	if f == "" {
		return ""
	}
	return filepath.Dir(f)
}

// Reset writes a one-time password reset file beside murlog.ini and
// returns the URL to open, for `murlog reset`.
//
// Run as another user than the one owning data_dir (typically root on a
// shared host), it does not open the database: SQLite would create -wal and
// -shm files the CGI user cannot write. The URL then names the path only,
// and the reset file is handed to the ini's owner so the site can read it.
func Reset(ctx context.Context, o Options) (url, file string, err error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	cfg, err := config.Load(o.ConfigPath, o.Getenv)
	if err != nil {
		return "", "", err
	}
	if !cfg.Exists {
		return "", "", fmt.Errorf("no %s at %s: murlog is not set up yet, so there is no password to reset", config.FileName, cfg.Path)
	}
	url = cfg.Scheme + "://<your domain>/admin/reset"
	if sameOwner(cfg.DataDir) {
		a, err := New(ctx, o)
		if err != nil {
			return "", "", err
		}
		defer a.Close()
		var domain string
		err = a.Store().View(ctx, func(tx store.Tx) error {
			domain, err = tx.Settings().Get(murlog.SettingDomain)
			return err
		})
		if murlog.ErrorCode(err) == murlog.ENotFound {
			return "", "", errors.New("setup is not complete: finish it in the browser instead")
		}
		if err != nil {
			return "", "", err
		}
		url = murlog.Site{Scheme: cfg.Scheme, Domain: domain}.Base() + "/admin/reset"
	}
	if _, err := auth.WriteResetFile(cfg.ResetPath(), o.Now()); err != nil {
		return "", "", fmt.Errorf("write %s: %w", cfg.ResetPath(), err)
	}
	if err := giveTo(cfg.ResetPath(), cfg.Path); err != nil {
		return "", "", fmt.Errorf("hand %s to the owner of %s: %w", cfg.ResetPath(), cfg.Path, err)
	}
	return url, cfg.ResetPath(), nil
}

// sameOwner reports whether this process runs as the owner of path.
func sameOwner(path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return true // let the normal open report the problem
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return !ok || int(sys.Uid) == os.Geteuid()
}

// giveTo chowns file to the owner of ref when running as root.
func giveTo(file, ref string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	st, err := os.Stat(ref)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	return os.Chown(file, int(sys.Uid), int(sys.Gid))
}

// resetCommand is the password-reset command as the owner types it on the
// server: under CGI the entry point itself (murlog.cgi, run from its
// folder), else the murlog binary.
func resetCommand(cgi bool) string {
	if cgi {
		if f := scriptFile(); f != "" {
			return "./" + filepath.Base(f) + " reset"
		}
	}
	return "murlog reset"
}

func (a *App) currentSetupToken() string {
	if p := a.setupToken.Load(); p != nil {
		return *p
	}
	return ""
}

// armSetupToken makes the wizard require a fresh one-time token from
// anyone but a direct local request, when setup is not complete, and
// prints the link carrying it on stderr (and in the log) for the owner.
func (a *App) armSetupToken(ctx context.Context, addr net.Addr) error {
	if in := a.inst.Load(); in != nil {
		if done, err := in.setup.Complete(ctx); err != nil || done {
			return err
		}
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	tok := base64.RawURLEncoding.EncodeToString(b)
	a.setupToken.Store(&tok)
	link := setupLink(addr, tok)
	fmt.Fprintf(a.opts.Stderr, "\nmurlog is not set up yet. To set it up, open this link (it holds a one-time setup token):\n\n    %s\n\n"+
		"Behind a reverse proxy, use your site's address with the same path: /admin/setup/server?token=%s\n"+
		"From this machine itself (127.0.0.1, no proxy) no token is needed.\n\n", link, tok)
	a.log.Info("setup token", "url", link, "token", tok)
	return nil
}

// setupLink is the clickable wizard URL for the address serve listens on.
func setupLink(addr net.Addr, tok string) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		host, port = addr.String(), ""
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsUnspecified() {
		// Listening everywhere: name the machine, as Jupyter does.
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		} else {
			host = "127.0.0.1"
		}
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	}
	return "http://" + host + httpd.SetupServerPath + "?" + admin.SetupTokenParam + "=" + tok
}

// cannotStart answers every request of a process whose app did not start.
// What a reader may know is said (a full disk is "unavailable: the disk
// is full", 503 with Retry-After, as the RPC and the pages say it once the
// app runs — a new CGI process on a full disk cannot even open the
// database); anything else is a 500 pointing at the error log, which has
// the detail.
func cannotStart(err error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if murlog.ErrorCode(err) != murlog.EUnavailable {
			http.Error(w, "murlog cannot start; see the server error log", http.StatusInternalServerError)
			return
		}
		err := &murlog.Error{Code: murlog.EUnavailable, Message: "murlog cannot start: " + murlog.ErrorMessage(err) + "; try again later",
			RetryAfter: max(murlog.AsError(err).RetryAfter, cannotStartRetry)}
		if r.URL.Path == httpd.RPCPath {
			httpd.WriteRPCError(w, err)
			return
		}
		httpd.WriteError(w, r, nil, err)
	})
}

// cannotStartRetry is the least Retry-After of an app that cannot start:
// whatever stopped it (a full disk, a database another process holds)
// takes a while to clear.
const cannotStartRetry = 30 * time.Second
