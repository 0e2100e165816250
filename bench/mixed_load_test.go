package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// seedNotes creates n public notes through batches of 100 posts.create
// calls and returns their ids, oldest first. Each note carries #golang and
// #sqlite and one of five #topicN tags, so a tag page lists every post or
// a fifth of them.
func (s *server) seedNotes(tb testing.TB, n int) []string {
	tb.Helper()
	ids := make([]string, 0, n)
	for done := 0; done < n; done += seedBatch {
		calls := make([][]byte, 0, seedBatch)
		for i := done; i < min(done+seedBatch, n); i++ {
			calls = append(calls, rpc("posts.create", map[string]string{
				"content": noteContent(i) + fmt.Sprintf(" #topic%d", i%5), "language": "en"}))
		}
		body := append([]byte("["), bytes.Join(calls, []byte(","))...)
		status, reply, err := s.owner.Post(context.Background(), "/api/mur/v1/rpc", "application/json", append(body, ']'))
		if err != nil || status != http.StatusOK {
			tb.Fatalf("seed batch at %d: HTTP %d, %v", done, status, err)
		}
		var res []struct {
			Result *struct {
				ID string `json:"id"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(reply, &res); err != nil {
			tb.Fatalf("seed batch at %d: %v", done, err)
		}
		for _, r := range res {
			if r.Result == nil {
				tb.Fatalf("seed batch at %d: %s", done, r.Error)
			}
			ids = append(ids, r.Result.ID)
		}
	}
	return ids
}

// loadRequest is one request of the mixed read load.
type loadRequest struct {
	name, method, path, accept string
	body                       []byte // POST body (JSON-RPC)
}

// mixedRequests is the read mix of issue 15, F: the public post page, the
// home page, a tag page, the outbox's first page and a later one, the RSS
// feed, anonymous posts.list, the actor and WebFinger — each kind in equal
// share, post pages and outbox pages over posts spread across the table.
func (s *server) mixedRequests(ids []string) []loadRequest {
	const ap = "application/activity+json"
	r := rand.New(rand.NewPCG(5, 6))
	pick := func() string { return ids[r.IntN(len(ids))] }
	host := strings.TrimPrefix(s.base, "http://")
	var out []loadRequest
	for i := 0; i < 16; i++ {
		out = append(out,
			loadRequest{name: "post page", method: "GET", path: "/@owner/" + pick(), accept: "text/html"},
			loadRequest{name: "home", method: "GET", path: "/", accept: "text/html"},
			loadRequest{name: "tag page", method: "GET", path: fmt.Sprintf("/tags/topic%d", i%5), accept: "text/html"},
			loadRequest{name: "outbox first page", method: "GET", path: "/@owner/outbox?page=true", accept: ap},
			loadRequest{name: "outbox page", method: "GET", path: "/@owner/outbox?max_id=" + pick() + "&page=true", accept: ap},
			loadRequest{name: "RSS", method: "GET", path: "/@owner/feed.rss", accept: "application/rss+xml"},
			loadRequest{name: "posts.list", method: "POST", path: "/api/mur/v1/rpc", body: listBody(20)},
			loadRequest{name: "actor", method: "GET", path: "/@owner", accept: ap},
			loadRequest{name: "WebFinger", method: "GET", path: "/.well-known/webfinger?resource=" + url.QueryEscape("acct:owner@"+host), accept: "application/jrd+json"},
		)
	}
	return out
}

// do sends one load request and returns its status and body size.
func (s *server) do(hc *http.Client, lr loadRequest) (int, int64, error) {
	var body io.Reader
	if lr.body != nil {
		body = bytes.NewReader(lr.body)
	}
	req, err := http.NewRequest(lr.method, s.base+lr.path, body)
	if err != nil {
		return 0, 0, err
	}
	if lr.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if lr.accept != "" {
		req.Header.Set("Accept", lr.accept)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, 0, err
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, n, nil
}

// readLoad runs workers anonymous readers through the mixed requests of
// ids (mixedRequests) for d and returns the calls per second and the
// server's CPU time per call — the steadier figure on a shared machine,
// where other work takes cores from the server and the load alike. Each
// kind of request is checked once first, so a mix that answers errors
// fails instead of measuring error pages.
func (s *server) readLoad(tb testing.TB, ids []string, workers int, d time.Duration) (float64, time.Duration) {
	tb.Helper()
	reqs := s.mixedRequests(ids)
	tr := &http.Transport{MaxIdleConnsPerHost: workers}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	seen := map[string]bool{}
	for _, lr := range reqs {
		if seen[lr.name] {
			continue
		}
		seen[lr.name] = true
		st, n, err := s.do(hc, lr)
		if err != nil || st != http.StatusOK || n == 0 {
			tb.Fatalf("%s: %s %s: HTTP %d, %d bytes, %v", lr.name, lr.method, lr.path, st, n, err)
		}
	}
	var calls, failed atomic.Int64
	cpu0 := s.cpu(tb)
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; time.Now().Before(stop); i++ {
				if st, _, err := s.do(hc, reqs[i%len(reqs)]); err != nil || st != http.StatusOK {
					failed.Add(1)
				}
				calls.Add(1)
			}
		}(w)
	}
	wg.Wait()
	cpu := s.cpu(tb) - cpu0
	if f := failed.Load(); f > 0 {
		tb.Errorf("read load: %d of %d calls failed", f, calls.Load())
	}
	n := max(calls.Load(), 1)
	return float64(n) / d.Seconds(), cpu / time.Duration(n)
}
