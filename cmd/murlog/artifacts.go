package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/murlog/murlog/app"
)

// runArtifacts is `murlog artifacts rebuild|purge|check`.
func runArtifacts(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "rebuild" && args[0] != "purge" && args[0] != "check") {
		fmt.Fprint(stderr, "murlog artifacts: rebuild, purge or check?\n\n", usage)
		return exitUsage
	}
	req := app.ArtifactsRequest{Command: args[0]}
	cfgPath, ok, code := commonFlags("artifacts "+req.Command, args[1:], stdout, stderr, func(fs *flag.FlagSet) {
		if req.Command != "rebuild" {
			return
		}
		fs.BoolVar(&req.All, "all", false, "render every artifact of the site again")
		fs.StringVar(&req.Post, "post", "", "render the documents of one post (an id) again")
		fs.StringVar(&req.Persona, "persona", "", "render every page of one persona (a username) again")
	})
	if !ok {
		return code
	}
	if n := btoi(req.All) + btoi(req.Post != "") + btoi(req.Persona != ""); n > 1 {
		fmt.Fprintln(stderr, "murlog artifacts rebuild: give at most one of --all, --post and --persona")
		return exitUsage
	}
	req.Progress = progressBar(stderr)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rep, err := app.RunArtifacts(ctx, options(cfgPath, stderr), req)
	if req.Progress != nil {
		req.Progress(-1, 0) // end the bar's line
	}
	if err != nil {
		fmt.Fprintln(stderr, "murlog artifacts:", err)
		return 1
	}
	switch req.Command {
	case "rebuild":
		fmt.Fprintf(stdout, "rendered %d artifacts in %s\n", rep.Rendered, rep.Dir)
	case "purge":
		fmt.Fprintf(stdout, "removed %d artifacts from %s; each is rendered again when it is asked for\n", rep.Removed, rep.Dir)
	case "check":
		fmt.Fprintf(stdout, "checked %d files in %s: %d damaged, rendered again\n", rep.Checked, rep.Dir, rep.Corrupt)
	}
	return 0
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// progressBar draws "[#####.....] done/total" on w when it is a
// terminal, redrawn in place; elsewhere (a log, cron) it draws nothing.
// done < 0 ends the line.
func progressBar(w io.Writer) func(done, total int) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	drawn := false
	return func(done, total int) {
		if done < 0 {
			if drawn {
				fmt.Fprintln(w)
			}
			return
		}
		const width = 30
		filled := 0
		if total > 0 {
			filled = min(width, done*width/total)
		}
		fmt.Fprintf(w, "\r[%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total)
		drawn = true
	}
}
