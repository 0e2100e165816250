package bench

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/internal/loadgen"
	"github.com/murlog/murlog/internal/waitfor"
	"github.com/murlog/murlog/prerender"
)

// TestPublishVisibilityLoad is the issue's figure "publish one post on a
// 50,000-post site: ≤ 20 artifacts rebuilt, visible everywhere ≤ 1 s
// (serve)": a site seeded with MURLOG_BENCH_POSTS posts (50,000), its
// marks cleared (steady state: every artifact rendered, none dirty), served
// by app.Serve with its resident worker; the pages a new post shows on are
// read once (so they are artifacts), then posts are published one at a
// time and each is timed from the API's answer until the post page, the
// persona's page, the home page and the tag page all show it — answered
// as artifact hits — with the rebuilds it cost.
//
//	MURLOG_BENCH_LOAD=1 go test -run PublishVisibility -v ./bench/   (part of make load)
func TestPublishVisibilityLoad(t *testing.T) {
	if os.Getenv("MURLOG_BENCH_LOAD") == "" {
		t.Skip("set MURLOG_BENCH_LOAD=1 to time a publish on a 50,000-post site (a few minutes; make load)")
	}
	n := 50000
	if v, err := strconv.Atoi(os.Getenv("MURLOG_BENCH_POSTS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	bs := newBenchSite(t, n)
	a := bs.handler.(*app.App)
	// Steady state: what seeding marked is done with.
	if err := loadgen.ClearMarks(ctx, a.Store()); err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- app.Serve(sctx, a, "127.0.0.1:0", func(ad net.Addr) { ready <- ad }) }()
	base := "http://" + (<-ready).String()
	get := func(path string) (int, string) {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Accept", "text/html")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	pages := []string{"/", "/@alice", "/tags/golang"}
	for _, p := range pages {
		if st, _ := get(p); st != 200 {
			t.Fatalf("GET %s = %d", p, st)
		}
	}
	var took []time.Duration
	var rebuilt []int
	for i := range 10 {
		before := a.Events().N[dbstat.ArtifactRebuild]
		word := "published-now-" + strconv.Itoa(i)
		var p struct {
			Result struct {
				ID string `json:"id"`
			} `json:"result"`
		}
		body := rpc("posts.create", map[string]any{"content": noteContent(n+i) + " " + word, "language": "en"})
		start := time.Now() // from the publish: its answer waits for its pages
		rec := bs.serve(body, true)
		if err := json.Unmarshal(rec.Body.Bytes(), &p); rec.Code != 200 || err != nil || p.Result.ID == "" {
			t.Fatalf("posts.create: %d %s", rec.Code, rec.Body)
		}
		if left := loadgen.WaitVisible(ctx, 10*time.Second, word, append([]string{"/@alice/" + p.Result.ID}, pages...), get); len(left) > 0 {
			t.Fatalf("post %d not visible on %v after 10 s", i, left)
		}
		took = append(took, time.Since(start))
		// What the publish rendered is counted once no mark is left (the
		// job, if any of them was left to it, has finished its part).
		if !waitfor.Until(ctx, 5*time.Millisecond, 10*time.Second, func() bool {
			left, err := prerender.Marks{Store: a.Store()}.Pending(ctx)
			return err == nil && left == 0
		}) {
			t.Fatalf("marks still pending 10 s after post %d", i)
		}
		r := a.Events().N[dbstat.ArtifactRebuild] - before
		rebuilt = append(rebuilt, int(r))
	}
	logs, missed := loadgen.PublishFigures("serve", n, took, rebuilt, time.Second, 20)
	for _, l := range logs {
		t.Log(l)
	}
	for _, m := range missed {
		t.Error(m)
	}
	stop()
	<-done
}
