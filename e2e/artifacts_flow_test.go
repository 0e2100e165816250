package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/cgi"
	"github.com/murlog/murlog/internal/waitfor"
)

// TestCGIWritesApacheServes is the CGI read path end to end: a post made
// through murlog.cgi is rendered into _site before its answer, so its
// page, its note, the persona's page and the home page are then answered
// by Apache without murlog starting; an edit shows the same way; a
// deleted post's files go, and its address reaches murlog again (410).
func TestCGIWritesApacheServes(t *testing.T) {
	t.Parallel()
	s, owner := startCounted(t)
	ctx := context.Background()
	var p postResult
	if err := owner.Call(ctx, "posts.create", map[string]any{"content": "first words through CGI #flow"}, &p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Path(cgi.SiteDir), "html", "@alice", p.ID, "index.html")); err != nil {
		t.Fatalf("the post's page is no file after posts.create answered: %v", err)
	}
	reads := []struct {
		path   string
		header map[string]string
		want   string
	}{
		{"/@alice/" + p.ID, map[string]string{"Accept": acceptBrowser}, "%s"},
		{"/@alice/" + p.ID, map[string]string{"Accept": `application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams", text/html;q=0.1`}, `"type":"Note"`},
		{"/@alice", map[string]string{"Accept": acceptBrowser}, "%s"},
		{"/", map[string]string{"Accept": acceptBrowser}, "%s"},
		{"/tags/flow", map[string]string{"Accept": acceptBrowser}, "%s"},
		{"/@alice/feed.atom", nil, "%s"},
	}
	check := func(words string) {
		t.Helper()
		before := s.Starts(t)
		for _, r := range reads {
			resp, body := fetch(t, "GET", s.URL+r.path, r.header)
			want := strings.ReplaceAll(r.want, "%s", words)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
				t.Errorf("GET %s (%v) = %d without %q", r.path, r.header, resp.StatusCode, want)
			}
		}
		if n := s.Starts(t) - before; n != 0 {
			t.Errorf("%d reads of rendered pages started murlog %d times; want Apache alone", len(reads), n)
		}
	}
	check("first words through CGI")
	if err := owner.Call(ctx, "posts.update", map[string]any{"id": p.ID, "content": "second thoughts through CGI #flow"}, nil); err != nil {
		t.Fatal(err)
	}
	check("second thoughts through CGI")
	if err := owner.Call(ctx, "posts.delete", map[string]any{"id": p.ID}, nil); err != nil {
		t.Fatal(err)
	}
	before := s.Starts(t)
	if resp, _ := fetch(t, "GET", s.URL+"/@alice/"+p.ID, map[string]string{"Accept": acceptBrowser}); resp.StatusCode != http.StatusGone {
		t.Errorf("the deleted post's page = %d; want 410 from murlog", resp.StatusCode)
	}
	if n := s.Starts(t) - before; n != 1 {
		t.Errorf("the deleted post's page started murlog %d times; want once (no file answers it)", n)
	}
	// The job the writes enqueued ran in the spawned worker too, and left
	// nothing to do.
	var st struct {
		Pending int `json:"pending"`
	}
	// Another process's progress: checked every 200 ms (each check is a
	// CGI start of its own).
	if !waitfor.Until(ctx, 200*time.Millisecond, 20*time.Second, func() bool {
		if err := owner.Call(ctx, "site.artifacts.status", nil, &st); err != nil {
			t.Fatal(err)
		}
		return st.Pending == 0
	}) {
		t.Fatalf("%d marks still pending 20 s after the last write", st.Pending)
	}
}

// TestCGICursorPagesApacheServes: the page "older" leads to is rendered
// by murlog.cgi on its first read and stored; from then on Apache answers
// it (and its plain mode) without murlog starting, through the cursor
// rules of the managed block. A cursor no link names starts murlog every
// time and leaves no file.
func TestCGICursorPagesApacheServes(t *testing.T) {
	t.Parallel()
	s, owner := startCounted(t)
	ctx := context.Background()
	// One batch: one CGI start for every post.
	var batch []map[string]any
	for i := range blog.PlainPageSize + 2 {
		batch = append(batch, map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "posts.create",
			"params": map[string]any{"content": fmt.Sprintf("cursor post %02d", i)}})
	}
	body, _ := json.Marshal(batch)
	var created []struct {
		Result postResult `json:"result"`
		Error  any        `json:"error"`
	}
	status, raw, err := owner.Post(ctx, "/api/mur/v1/rpc", "application/json", body)
	if err != nil || status != http.StatusOK || json.Unmarshal(raw, &created) != nil || len(created) != len(batch) {
		t.Fatalf("the batch of posts: HTTP %d, %v, %.300s", status, err, raw)
	}
	for _, c := range created {
		if c.Error != nil {
			t.Fatalf("posts.create in the batch: %v", c.Error)
		}
	}
	// Newest first: the first rich page ends with the fifth newest post,
	// the first plain page with the twentieth.
	n := len(created)
	rich, plain := created[n-blog.RichPageSize].Result.ID, created[n-blog.PlainPageSize].Result.ID
	for _, tc := range []struct{ query, want string }{
		{"after=" + rich, fmt.Sprintf("cursor post %02d", n-blog.RichPageSize-1)},
		{"after=" + plain + "&mode=plain", "cursor post 01"},
	} {
		before := s.Starts(t)
		resp, first := fetch(t, "GET", s.URL+"/@alice?"+tc.query, map[string]string{"Accept": acceptBrowser})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(first), tc.want) {
			t.Fatalf("GET /@alice?%s = %d without %q", tc.query, resp.StatusCode, tc.want)
		}
		if n := s.Starts(t) - before; n != 1 {
			t.Errorf("the first read of /@alice?%s started murlog %d times; want once (it renders and stores)", tc.query, n)
		}
		before = s.Starts(t)
		resp, again := fetch(t, "GET", s.URL+"/@alice?"+tc.query, map[string]string{"Accept": acceptBrowser})
		if resp.StatusCode != http.StatusOK || string(again) != string(first) {
			t.Errorf("the second read of /@alice?%s = %d, same page: %v", tc.query, resp.StatusCode, string(again) == string(first))
		}
		if n := s.Starts(t) - before; n != 0 {
			t.Errorf("the second read of /@alice?%s started murlog %d times; want Apache alone", tc.query, n)
		}
		if v := resp.Header.Get("Vary"); !strings.Contains(v, "Accept") {
			t.Errorf("the stored cursor page's Vary = %q; want Accept (its URL answers ActivityPub too)", v)
		}
	}
	// A cursor at no page's end: rendered each time, never a file.
	odd := created[n-2].Result.ID
	for range 2 {
		before := s.Starts(t)
		if resp, _ := fetch(t, "GET", s.URL+"/@alice?after="+odd, map[string]string{"Accept": acceptBrowser}); resp.StatusCode != http.StatusOK {
			t.Errorf("GET /@alice?after=%s = %d", odd, resp.StatusCode)
		}
		if n := s.Starts(t) - before; n != 1 {
			t.Errorf("a cursor no link names started murlog %d times; want once per read", n)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Path(cgi.SiteDir), "html", "@alice", "index~after", odd+".html")); err == nil {
		t.Error("a cursor no link names left a file")
	}
}
