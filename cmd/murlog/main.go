// Command murlog is the one binary of a murlog site. The subcommand picks
// how the shared http.Handler is driven; see `murlog help`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"syscall"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/worker"
)

const usage = `murlog — a one-person ActivityPub blog and microblog server

Usage:
  murlog serve [--listen ADDR] [--config PATH]   run the HTTP server (VPS, container, home server)
  murlog cgi [--config PATH]                     answer one CGI request (chosen automatically under Apache)
  murlog worker [--once] [--config PATH]         run queued jobs: resident, or one batch loop (≤ 5 min) for cron
  murlog reset [--config PATH]                   write a one-time password reset file and print its URL
  murlog artifacts rebuild [--all | --post ID | --persona NAME] [--config PATH]
                                                 render the public site's files again (what writes marked, or more)
  murlog artifacts purge [--config PATH]         remove every rendered file; each is rendered again when asked for
  murlog artifacts check [--config PATH]         check every rendered file against its length and hash; render damaged ones again
  murlog version                                 print version information
  murlog help                                    show this help

The config file is --config PATH, else $MURLOG_CONFIG, else ./murlog.ini.
Without one, open the server in a browser: the setup wizard writes it.
Every murlog.ini key can be overridden with MURLOG_<KEY>, e.g. MURLOG_SCHEME=http.
`

// exitUsage is the exit status for a command-line mistake.
const exitUsage = 2

func main() {
	os.Exit(start(os.Args[1:]))
}

// start is main without the exit. Files murlog creates hold secrets (the
// database, murlog.ini, the reset secret, locks), so nothing is created
// readable by others unless the code that creates it says so: what Apache
// must serve (media, .htaccess) is given its mode explicitly.
func start(args []string) int {
	syscall.Umask(0o077)
	return run(args, os.Stdout, os.Stderr)
}

func run(args []string, stdout, stderr io.Writer) int {
	// Apache sets GATEWAY_INTERFACE for CGI programs; the binary may be
	// installed as murlog.cgi with no arguments at all.
	if os.Getenv("GATEWAY_INTERFACE") != "" && (len(args) == 0 || args[0] == "cgi") {
		if len(args) > 0 {
			args = args[1:]
		}
		return runCGI(args, stdout, stderr)
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		return runServe(rest, stdout, stderr)
	case "cgi":
		return runCGI(rest, stdout, stderr)
	case "worker":
		return runWorker(rest, stdout, stderr)
	case "reset":
		return runReset(rest, stdout, stderr)
	case "artifacts":
		return runArtifacts(rest, stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "murlog %s (%s, %s/%s, database schema %d)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH, app.SchemaVersion())
		return 0
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "murlog: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
}

// version is the stamped murlog.Version, else what the Go toolchain
// recorded in the binary: the module version (set by `go install …@v1.2.3`)
// and the VCS revision of a checkout build, so a bug report from a README
// build still says which code it ran.
func version() string {
	if murlog.Version != "dev" {
		return murlog.Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return murlog.Version
	}
	return buildVersion(bi)
}

// buildVersion formats the version from build info: "v1.2.3", or
// "dev+1a2b3c4d5e6f" (with "-dirty" for uncommitted changes), or "dev".
func buildVersion(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	if rev != "" && !strings.Contains(v, rev[:min(12, len(rev))]) {
		// A pseudo-version (v0.0.0-2026…-1a2b3c4d5e6f) already names the commit.
		v += "+" + rev[:min(12, len(rev))]
		if modified == "true" {
			v += "-dirty"
		}
	}
	return v
}

// commonFlags parses --config (and what extra adds) for a subcommand. When
// ok is false the caller exits with code: 0 after --help, exitUsage after a
// mistake.
func commonFlags(name string, args []string, stdout, stderr io.Writer, extra func(*flag.FlagSet)) (path string, ok bool, code int) {
	fs := flag.NewFlagSet("murlog "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "path to murlog.ini")
	if extra != nil {
		extra(fs)
	}
	fs.Usage = func() { printFlags(stderr, fs) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			// Asking for help is not a mistake: show it on stdout, exit 0.
			printFlags(stdout, fs)
			return "", false, 0
		}
		return "", false, exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "murlog %s: unexpected argument %q\n", name, fs.Arg(0))
		return "", false, exitUsage
	}
	p, err := config.Locate(*cfgPath, os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "murlog:", err)
		return "", false, exitUsage
	}
	return p, true, 0
}

// printFlags lists a subcommand's flags the way the usage text writes
// them (--flag), which the flag package's default (-flag) does not.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: %s [flags]\n\nFlags:\n", fs.Name())
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		arg := "--" + f.Name
		if name != "" {
			arg += " " + name
		}
		fmt.Fprintf(w, "  %-22s %s\n", arg, usage)
	})
}

func options(cfgPath string, stderr io.Writer) app.Options {
	return app.Options{ConfigPath: cfgPath, Logger: app.NewLogger(stderr, logLevel(cfgPath)), Stderr: stderr}
}

// logLevel is log_level from murlog.ini, else MURLOG_LOG_LEVEL.
func logLevel(cfgPath string) string {
	if cfg, err := config.Load(cfgPath, os.Getenv); err == nil {
		return cfg.LogLevel
	}
	return os.Getenv("MURLOG_LOG_LEVEL")
}

func runServe(args []string, stdout, stderr io.Writer) int {
	var listen string
	cfgPath, ok, code := commonFlags("serve", args, stdout, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&listen, "listen", "", "address to listen on (default: listen in murlog.ini, else 127.0.0.1:8080)")
	})
	if !ok {
		return code
	}
	tuneMemory(os.Getenv)
	followMemory(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	o := options(cfgPath, stderr)
	// A resident server's lines are written in batches (app.NewServeLogger):
	// a request line each per request would be a write each.
	var flush func()
	o.Logger, flush = app.NewServeLogger(stderr, logLevel(cfgPath))
	defer flush()
	a, err := app.New(ctx, o)
	if err != nil {
		fmt.Fprintln(stderr, "murlog:", err)
		return 1
	}
	defer a.Close()
	if listen == "" {
		listen = a.Config().Listen
	}
	if err := app.Serve(ctx, a, listen, nil); err != nil {
		fmt.Fprintln(stderr, "murlog:", err)
		return 1
	}
	return 0
}

func runCGI(args []string, stdout, stderr io.Writer) int {
	cfgPath, ok, code := commonFlags("cgi", args, stdout, stderr, nil)
	if !ok {
		return code
	}
	// One request per process wants one P, but runtime.GOMAXPROCS(1)
	// here stops the world and hands the second P's cached spans back,
	// which cost more than the second P does: the managed .htaccess block
	// passes GOMAXPROCS=1 in the environment instead, so the runtime
	// starts with one (cgi.Htaccess; docs/benchmarks.md has the figures).
	if err := app.RunCGI(context.Background(), options(cfgPath, stderr)); err != nil {
		fmt.Fprintln(stderr, "murlog:", err)
		return 1
	}
	return 0
}

func runWorker(args []string, stdout, stderr io.Writer) int {
	var once bool
	cfgPath, ok, code := commonFlags("worker", args, stdout, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&once, "once", false, "run jobs until none is runnable or 5 minutes have passed, then exit (cron, CGI)")
	})
	if !ok {
		return code
	}
	if !once {
		tuneMemory(os.Getenv)
		followMemory(os.Getenv)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if once {
		// The 5-minute lifetime is kept by the worker between batches; a
		// handler that ignores cancellation could still hold the process
		// (and the lock every CGI and cron worker waits on) for ever. Past
		// the lifetime plus one job timeout and the shutdown grace, exit:
		// stale recovery hands its jobs out again.
		hard := worker.OnceLifetime + queue.DefaultTimeout + worker.DefaultShutdownGrace
		t := time.AfterFunc(hard, func() {
			fmt.Fprintf(stderr, "murlog worker --once: still running after %v; exiting (its jobs will be recovered)\n", hard)
			os.Exit(1)
		})
		defer t.Stop()
	}
	if _, err := app.RunWorker(ctx, options(cfgPath, stderr), once); err != nil {
		fmt.Fprintln(stderr, "murlog worker:", err)
		return 1
	}
	return 0
}

func runReset(args []string, stdout, stderr io.Writer) int {
	cfgPath, ok, code := commonFlags("reset", args, stdout, stderr, nil)
	if !ok {
		return code
	}
	url, file, err := app.Reset(context.Background(), options(cfgPath, stderr))
	if err != nil {
		fmt.Fprintln(stderr, "murlog reset:", err)
		if errors.Is(err, os.ErrPermission) {
			fmt.Fprintln(stderr, "run it as the user that owns murlog.ini")
		}
		return 1
	}
	fmt.Fprintf(stdout, "A one-time reset secret was written to %s (valid for one hour).\n", file)
	fmt.Fprintf(stdout, "Open %s and paste the secret from that file to set a new password.\n", url)
	return 0
}

// Memory settings of the resident modes (serve, worker without --once).
const (
	residentGOGC = 400
	// residentMemoryLimit is the Go heap's soft limit while the live heap
	// is small. The live heap of a one-person site is a few MB, so at
	// GOGC=400 the collector would let garbage grow to 5× that after every
	// burst (a seed of 5,000 posts left 108 MB resident) and keep it; with
	// the limit the collector runs when the heap nears 64 MiB, and the
	// follower (followLiveHeap) returns the memory once the process is
	// idle. 24 MiB, the limit of issue 15, was fatal under a crowd: see
	// followLiveHeap.
	residentMemoryLimit = 64 << 20
)

// tuneMemory sets the collector for a long-running process: a live heap
// of a few MB at the default GOGC=100 makes the collector run dozens of
// times a second under load and limits how reads scale across cores, so
// the ratio is raised, and the soft memory limit bounds what that costs.
// GOGC and GOMEMLIMIT in the environment win (GOMEMLIMIT=off turns the
// limit off).
func tuneMemory(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(residentGOGC)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(residentMemoryLimit)
	}
}

// followMemory starts followLiveHeap for the process's life, unless the
// environment set the limit.
func followMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		go followLiveHeap(time.NewTicker(followEvery).C)
	}
}

// followEvery is how often the soft limit follows the live heap.
const followEvery = 250 * time.Millisecond

// followLiveHeap keeps the soft memory limit at limitFor the live heap,
// at every tick, and gives memory back to the system once a tick passes
// with next to no allocation (the burst is over). A fixed small limit is
// right for a quiet site and fatal under a crowd: thousands of readers in
// flight hold tens of MB live, and a limit near the live heap makes the
// collector run back to back (up to half the CPU), which slows every
// answer, which keeps more in flight — a boost at 3,500 visitors a second
// answered 50% of its requests with a fixed 24 MiB and 100% (p99 45 ms)
// without a limit (docs/benchmarks.md).
func followLiveHeap(tick <-chan time.Time) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/allocs:bytes"}}
	var lastAllocs uint64
	freed := true
	for range tick {
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
			continue
		}
		debug.SetMemoryLimit(limitFor(s[0].Value.Uint64()))
		allocs := s[1].Value.Uint64()
		busy := allocs-lastAllocs > idleAllocs
		lastAllocs = allocs
		switch {
		case busy:
			freed = false
		case !freed:
			debug.FreeOSMemory()
			freed = true
		}
	}
}

// idleAllocs is what a tick may allocate and still count as idle.
const idleAllocs = 256 << 10

// limitFor is the soft limit for a live heap of live bytes: the resident
// limit, or the heap GOGC=400 aims at (five times the live heap) when
// that is more — under a crowd the limit then stops holding the
// collector back from its own pace (at three times, a 3,500 visitors/s
// boost still had p99 1.8 s and 1.7× the trivial server's CPU).
func limitFor(live uint64) int64 {
	return max(residentMemoryLimit, int64(live)*(1+residentGOGC/100))
}
