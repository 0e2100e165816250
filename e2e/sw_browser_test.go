package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/internal/fedtest"
)

// swResult is what e2e/browser/sw.mjs saw.
type swResult struct {
	First, Registered, Kept, Off, OffAgain swState
	Offline                                struct {
		Error             string `json:"error"`
		Status            int    `json:"status"`
		FromServiceWorker bool   `json:"fromServiceWorker"`
		Title             string `json:"title"`
		H1                string `json:"h1"`
		Stylesheets       []struct {
			Href      string `json:"href"`
			Integrity string `json:"integrity"`
			Rules     int    `json:"rules"`
		} `json:"stylesheets"`
		Unseen       string `json:"unseen"`
		PointerFresh string `json:"pointerFresh"`
		PointerStale string `json:"pointerStale"`
	}
	Console         []string `json:"console"`
	PageErrors      []string `json:"pageErrors"`
	IntegrityErrors []string `json:"integrityErrors"`
	MS              int      `json:"ms"` // the browser's whole run
}

// swState is the worker as the page sees it.
type swState struct {
	SW            string   `json:"sw"` // <html data-murlog-sw>
	Controlled    bool     `json:"controlled"`
	Registrations []string `json:"registrations"`
	Caches        []string `json:"caches"`
	Pages         []string `json:"pages"` // paths in murlog-blog-pages
}

// TestReaderWorkerInBrowser: the public theme's Service Worker in
// Debian's headless chromium against a real `murlog serve`. A reader
// opens a post: hydrate.js registers /sw.js (the runtime pointer says it
// is on), which takes control and keeps the post; offline, the post
// reloads from the worker, styled (its stylesheets pass their integrity
// check), while a request it never saw fails, and a pointer answers from
// its kept copy only while that is under 60 s old. Then the owner switches the
// worker off through the API (site.controls.set_switches): the reader's
// next visit unregisters it and deletes its caches, and the one after
// registers nothing. No console message names an integrity failure.
// It skips as the other browser tests do (CI=true makes that a failure).
func TestReaderWorkerInBrowser(t *testing.T) {
	t.Parallel()
	tools := requireBrowserTools(t)
	p := fedtest.StartProcess(t, fedtest.NewNames(), apachetest.Murlog(t), fedtest.Options{Username: "alice",
		Env: map[string]string{"MURLOG_THEMES_DIR": filepath.Join(tools.root, "web", "themes")}})
	var post localPost
	const title = "Read once, open offline"
	p.Call(t, "posts.create", map[string]any{"kind": "article", "title": title, "language": "en",
		"content": "An article a reader opens again on a train with no signal."}, &post)
	if post.URL == "" {
		t.Fatalf("posts.create gave no URL: %+v", post)
	}
	postURL := p.Base + urlPath(t, post.URL)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tools.node, filepath.Join(tools.dir, "sw.mjs"), postURL)
	cmd.Dir = tools.dir
	cmd.Env = append(os.Environ(), "MURLOG_CHROMIUM="+tools.chromium)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sw.mjs: %v", err)
	}
	var res *swResult
	var lines []string
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		switch {
		case line == "sw.mjs switch":
			p.Call(t, "site.controls.set_switches", map[string]any{"service_worker": false}, nil)
			fmt.Fprintln(stdin, "go")
		case strings.HasPrefix(line, "sw.mjs result "):
			res = &swResult{}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "sw.mjs result ")), res); err != nil {
				t.Fatalf("sw.mjs result: %v in %s", err, line)
			}
		}
	}
	io.Copy(io.Discard, out)
	stdin.Close()
	if err := cmd.Wait(); err != nil || res == nil {
		t.Fatalf("sw.mjs: %v\n%s\n%s", err, strings.Join(lines, "\n"), stderr.String())
	}
	t.Logf("sw.mjs: %+v", *res)

	root := p.Base + "/"
	if res.First.SW != "on" {
		t.Errorf("first visit: data-murlog-sw %q; want on (the runtime pointer says the worker is on)", res.First.SW)
	}
	if !res.Registered.Controlled || !slices.Equal(res.Registered.Registrations, []string{root}) {
		t.Errorf("after registration: controlled %v, registrations %v; want controlled by one worker of scope %s",
			res.Registered.Controlled, res.Registered.Registrations, root)
	}
	if !slices.Contains(res.Kept.Pages, urlPath(t, post.URL)) || !slices.ContainsFunc(res.Kept.Caches, func(c string) bool {
		return strings.HasPrefix(c, "murlog-blog-precache-")
	}) {
		t.Errorf("after an online reload: caches %v, pages kept %v; want the precache and the post", res.Kept.Caches, res.Kept.Pages)
	}
	o := res.Offline
	if o.Error != "" || o.Status != 200 || !o.FromServiceWorker || o.H1 != title {
		t.Errorf("offline reload: error %q, status %d, from the worker %v, h1 %q; want the post %q from the worker",
			o.Error, o.Status, o.FromServiceWorker, o.H1, title)
	}
	if len(o.Stylesheets) == 0 {
		t.Error("offline reload: the post has no stylesheet")
	}
	for _, s := range o.Stylesheets {
		if !strings.HasPrefix(s.Integrity, "sha256-") || s.Rules <= 0 {
			t.Errorf("offline reload: stylesheet %s, integrity %q, %d rules; want it applied with its integrity", s.Href, s.Integrity, s.Rules)
		}
	}
	if o.Unseen != "failed" {
		t.Errorf("offline: a request the worker never saw %s; want it to fail (else the reload proves nothing)", o.Unseen)
	}
	if o.PointerFresh != "answered 200" || o.PointerStale != "failed" {
		t.Errorf("offline, the recent-posts pointer: %s while its copy is fresh, %s once 61 s old; want answered 200, then failed",
			o.PointerFresh, o.PointerStale)
	}
	for name, st := range map[string]swState{"the visit after the switch": res.Off, "the next visit": res.OffAgain} {
		if st.SW != "off" || len(st.Registrations) != 0 || len(st.Caches) != 0 {
			t.Errorf("%s: data-murlog-sw %q, registrations %v, murlog caches %v; want off, none, none",
				name, st.SW, st.Registrations, st.Caches)
		}
	}
	if len(res.IntegrityErrors) > 0 || len(res.PageErrors) > 0 {
		t.Errorf("integrity errors %q, page errors %q; want none", res.IntegrityErrors, res.PageErrors)
	}
}
