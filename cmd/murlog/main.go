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
	"syscall"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/worker"
)

const usage = `murlog — a one-person ActivityPub blog and microblog server

Usage:
  murlog serve [--listen ADDR] [--config PATH]   run the HTTP server (VPS, container, home server)
  murlog cgi [--config PATH]                     answer one CGI request (chosen automatically under Apache)
  murlog worker [--once] [--config PATH]         run queued jobs: resident, or one batch loop (≤ 5 min) for cron
  murlog reset [--config PATH]                   write a one-time password reset file and print its URL
  murlog version                                 print version information
  murlog help                                    show this help

The config file is --config PATH, else $MURLOG_CONFIG, else ./murlog.ini.
Without one, open the server in a browser: the setup wizard writes it.
Every murlog.ini key can be overridden with MURLOG_<KEY>, e.g. MURLOG_SCHEME=http.
`

// exitUsage is the exit status for a command-line mistake.
const exitUsage = 2

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	// Apache sets GATEWAY_INTERFACE for CGI programs; the binary may be
	// installed as murlog.cgi with no arguments at all.
	if os.Getenv("GATEWAY_INTERFACE") != "" && (len(args) == 0 || args[0] == "cgi") {
		if len(args) > 0 {
			args = args[1:]
		}
		return runCGI(args, stderr)
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		return runServe(rest, stderr)
	case "cgi":
		return runCGI(rest, stderr)
	case "worker":
		return runWorker(rest, stderr)
	case "reset":
		return runReset(rest, stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "murlog %s (%s, %s/%s, database schema %d)\n", murlog.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH, sqlite.LatestVersion())
		return 0
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "murlog: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
}

// commonFlags parses --config (and what extra adds) for a subcommand.
func commonFlags(name string, args []string, stderr io.Writer, extra func(*flag.FlagSet)) (string, bool) {
	fs := flag.NewFlagSet("murlog "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "path to murlog.ini")
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return "", false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "murlog %s: unexpected argument %q\n", name, fs.Arg(0))
		return "", false
	}
	p, err := config.Locate(*cfgPath, os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "murlog:", err)
		return "", false
	}
	return p, true
}

func options(cfgPath string, stderr io.Writer) app.Options {
	level := os.Getenv("MURLOG_LOG_LEVEL")
	if cfg, err := config.Load(cfgPath, os.Getenv); err == nil {
		level = cfg.LogLevel
	}
	return app.Options{ConfigPath: cfgPath, Logger: app.NewLogger(stderr, level), Stderr: stderr}
}

func runServe(args []string, stderr io.Writer) int {
	var listen string
	cfgPath, ok := commonFlags("serve", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&listen, "listen", "", "address to listen on (default: listen in murlog.ini, else 127.0.0.1:8080)")
	})
	if !ok {
		return exitUsage
	}
	// A resident murlog keeps a live heap of a few MB, so at the default
	// GOGC=100 the collector runs dozens of times a second under load and
	// limits how reads scale across cores (docs/benchmarks.md). A larger
	// ratio costs a few MB; an explicit GOGC still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	o := options(cfgPath, stderr)
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

func runCGI(args []string, stderr io.Writer) int {
	cfgPath, ok := commonFlags("cgi", args, stderr, nil)
	if !ok {
		return exitUsage
	}
	if err := app.RunCGI(context.Background(), options(cfgPath, stderr)); err != nil {
		fmt.Fprintln(stderr, "murlog:", err)
		return 1
	}
	return 0
}

func runWorker(args []string, stderr io.Writer) int {
	var once bool
	cfgPath, ok := commonFlags("worker", args, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&once, "once", false, "run jobs until none is runnable or 5 minutes have passed, then exit (cron, CGI)")
	})
	if !ok {
		return exitUsage
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
	cfgPath, ok := commonFlags("reset", args, stderr, nil)
	if !ok {
		return exitUsage
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
