package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// blogDone starts the line that ends each run of blog.mjs --serve.
const blogDone = "blog.mjs done "

// blogBrowser is one `blog.mjs --serve` process: one browser, launched
// once, that loads run after run (a theme with its settings), so that
// neither the browser nor the site restarts between runs.
type blogBrowser struct {
	art    string
	stdin  io.WriteCloser
	lines  chan string // its output, line by line; closed when it exits
	exited chan error  // its exit, once
	cancel context.CancelFunc
	err    error // the exit, once received
	closed bool
}

// startBlogBrowser starts blog.mjs --serve, writing into art; it is
// stopped at the end of the test if close was not called.
func startBlogBrowser(t *testing.T, tools browserTools, art string) *blogBrowser {
	t.Helper()
	// All the runs, where each run had 5 minutes when each had its own
	// process; within go test's default 10.
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	cmd := exec.CommandContext(ctx, tools.node, filepath.Join(tools.dir, "blog.mjs"), "--serve", art)
	cmd.Dir = tools.dir
	cmd.Env = append(os.Environ(), "MURLOG_CHROMIUM="+tools.chromium)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting blog.mjs: %v", err)
	}
	bb := &blogBrowser{art: art, stdin: stdin, lines: make(chan string), exited: make(chan error, 1), cancel: cancel}
	go func() {
		err := cmd.Wait()
		pw.Close()
		bb.exited <- err
	}()
	go func() {
		defer close(bb.lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			bb.lines <- sc.Text()
		}
		io.Copy(io.Discard, pr) // a line too long for the scanner must not block the process
	}()
	t.Cleanup(func() {
		if !bb.closed {
			bb.close()
		}
	})
	return bb
}

// run has the browser load spec (its Base set) and returns the output of
// the run; an error when a page load failed or blog.mjs failed.
func (bb *blogBrowser) run(spec blogSpec) (string, error) {
	pages, err := writeBlogSpec(bb.art, spec)
	if err != nil {
		return "", err
	}
	if _, err := fmt.Fprintln(bb.stdin, pages); err != nil {
		return "", fmt.Errorf("sending %s to blog.mjs: %w (%v)", pages, err, bb.wait())
	}
	var out strings.Builder
	for line := range bb.lines {
		if n, ok := strings.CutPrefix(line, blogDone); ok {
			if n != "0" {
				return out.String(), fmt.Errorf("%s failed page loads", n)
			}
			return out.String(), nil
		}
		out.WriteString(line + "\n")
	}
	return out.String(), fmt.Errorf("blog.mjs exited before it finished the run: %v", bb.wait())
}

// close ends blog.mjs (its browser closes) and returns how it exited.
func (bb *blogBrowser) close() error {
	bb.closed = true
	bb.stdin.Close()
	var rest strings.Builder
	for line := range bb.lines {
		rest.WriteString(line + "\n")
	}
	err := bb.wait()
	bb.cancel()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil // a run failed, and its run already said so
	}
	if err != nil && rest.Len() > 0 {
		return fmt.Errorf("%w\n%s", err, rest.String())
	}
	return err
}

func (bb *blogBrowser) wait() error {
	if bb.exited != nil {
		bb.err = <-bb.exited
		bb.exited = nil
	}
	return bb.err
}

// writeBlogSpec writes spec as art/<theme>-<run>-pages.json, blog.mjs's
// input, and returns its path.
func writeBlogSpec(art string, spec blogSpec) (string, error) {
	b, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return "", err
	}
	pages := filepath.Join(art, spec.Theme+"-"+spec.Run+"-pages.json")
	return pages, os.WriteFile(pages, b, 0o644)
}
