package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/internal/loadgen"
	"github.com/murlog/murlog/internal/testsite"
)

// TestPublishVisibilityCGILoad is the issue's figure "publish one post on
// a 50,000-post site: ≤ 20 artifacts rebuilt, visible everywhere ≤ 2 s
// (CGI)", under the real Apache: a CGI site filled with
// MURLOG_BENCH_POSTS posts (50,000) in its own process (as an import
// would; through murlog.cgi it would take an hour of batches), its marks
// cleared and the pages a new post shows on read once through Apache (so
// they are files); then the owner publishes ten notes through murlog.cgi,
// each timed from the request until the post page, the persona's page,
// the home page and the tag page all show it as Apache serves them, and
// the artifacts each publish rebuilt in every process (the request and
// the worker it spawned) counted from /metrics once no murlog process is
// left.
//
//	MURLOG_BENCH_LOAD=1 go test -run PublishVisibilityCGI -v ./e2e/   (part of make load)
func TestPublishVisibilityCGILoad(t *testing.T) {
	if os.Getenv("MURLOG_BENCH_LOAD") == "" {
		t.Skip("set MURLOG_BENCH_LOAD=1 to time a publish through CGI on a 50,000-post site (a few minutes; make load)")
	}
	n := 50000
	if v, err := strconv.Atoi(os.Getenv("MURLOG_BENCH_POSTS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	s, owner := setUpWith(t, apachetest.Options{})
	prog := s.Path(apachetest.Script)
	t.Cleanup(func() { apachetest.KillWorkers(prog) })
	const token = "cgi-publish-metrics-token-0123456789"
	setMetricsToken(t, s, token)
	var tok struct {
		Token string `json:"token"`
	}
	if err := owner.Call(ctx, "tokens.create", map[string]string{"name": "import"}, &tok); err != nil {
		t.Fatal(err)
	}

	// The import, in a process of its own on the site's folder.
	t0 := time.Now()
	a, err := app.New(ctx, app.Options{ConfigPath: s.Path("murlog.ini"), Getenv: func(string) string { return "" },
		Logger: testsite.Discard(), KeyPair: testsite.KeyPair})
	if err != nil {
		t.Fatal(err)
	}
	for done := 0; done < n; {
		var batch []map[string]any
		for ; done < n && len(batch) < 100; done++ {
			batch = append(batch, map[string]any{"jsonrpc": "2.0", "id": done, "method": "posts.create",
				"params": map[string]any{"content": fmt.Sprintf("Imported note %d about #golang and the #fediverse, with a [link](https://example.com/%d).", done, done),
					"language": "en"}})
		}
		body, _ := json.Marshal(batch)
		req := httptest.NewRequest(http.MethodPost, httpd.RPCPath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok.Token)
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), `"error"`) {
			t.Fatalf("import batch at %d: HTTP %d %.300s", done, rec.Code, rec.Body)
		}
	}
	if err := loadgen.ClearMarks(ctx, a.Store()); err != nil { // steady state
		t.Fatal(err)
	}
	// The rebuild jobs the import enqueued find no mark left: the first
	// worker a request spawns finishes them at once.
	a.Close()
	s.Chown(t, s.DocRoot) // what the import created is the CGI user's
	t.Logf("imported %d posts in %.1f s", n, time.Since(t0).Seconds())

	browser := map[string]string{"Accept": acceptBrowser}
	read := func(path string) (int, string) {
		resp, body := get(t, s.URL, path, browser)
		return resp.StatusCode, body
	}
	pages := []string{"/", "/@alice", "/tags/golang"}
	for _, p := range pages {
		if st, _ := read(p); st != http.StatusOK {
			t.Fatalf("GET %s = %d", p, st)
		}
	}
	rebuilds := func() int {
		resp, body := get(t, s.URL, "/metrics", map[string]string{"Authorization": "Bearer " + token})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("/metrics through CGI: %d", resp.StatusCode)
		}
		for _, line := range strings.Split(body, "\n") {
			if v, ok := strings.CutPrefix(line, "artifact_rebuilds_total "); ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatal(line)
				}
				return n
			}
		}
		t.Fatalf("/metrics has no artifact_rebuilds_total")
		return 0
	}
	waitNoMurlog(t, prog, 2*time.Minute)
	var took []time.Duration
	var rebuilt []int
	for i := range 10 {
		before := rebuilds()
		waitNoMurlog(t, prog, time.Minute)
		word := "published-now-" + strconv.Itoa(i)
		var p postResult
		start := time.Now() // from the publish: its answer waits for its pages
		if err := owner.Call(ctx, "posts.create", map[string]any{"content": "A new note #golang " + word, "language": "en"}, &p); err != nil {
			t.Fatal(err)
		}
		// A page not yet a file is a murlog start of its own, as for any
		// reader.
		if left := loadgen.WaitVisible(ctx, 10*time.Second, word, append([]string{"/@alice/" + p.ID}, pages...), read); len(left) > 0 {
			t.Fatalf("post %d not visible on %v after 10 s", i, left)
		}
		took = append(took, time.Since(start))
		// The worker the request spawned renders what the request left
		// (the sitemap); every process adds its counts as it ends.
		waitNoMurlog(t, prog, time.Minute)
		var st struct {
			Pending int `json:"pending"`
		}
		if err := owner.Call(ctx, "site.artifacts.status", nil, &st); err != nil || st.Pending != 0 {
			t.Fatalf("after post %d: %d marks pending (%v)", i, st.Pending, err)
		}
		waitNoMurlog(t, prog, time.Minute)
		rebuilt = append(rebuilt, rebuilds()-before)
	}
	logs, missed := loadgen.PublishFigures("CGI under Apache, the request and its worker", n, took, rebuilt, 2*time.Second, 20)
	for _, l := range logs {
		t.Log(l)
	}
	for _, m := range missed {
		t.Error(m)
	}
}
