package api_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/testclock"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/internal/tmpfs"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
)

// fullDiskLines counts the log lines that say the disk is full.
func fullDiskLines(s *testsite.Site) int {
	return strings.Count(s.Logs.String(), "the disk is full: writes fail")
}

// wantDiskFull asserts err is the RPC's answer to a write on a full disk.
func wantDiskFull(t *testing.T, what string, err error) {
	t.Helper()
	e := rpcErr(t, what, err, -32005, "unavailable", 503)
	if e != nil && (e.Message != "the disk is full" || e.Data.RetryAfter != int(store.DiskFullRetry.Seconds())) {
		t.Errorf("%s: %q, retry_after %d; want \"the disk is full\", retry after %v", what, e.Message, e.Data.RetryAfter, store.DiskFullRetry)
	}
}

// fullDiskWalk is what both full-disk tests check once the disk is full:
// writes answer unavailable "the disk is full" (503, Retry-After), reads
// and pages go on, the log says it once, and nothing half-written shows.
func fullDiskWalk(t *testing.T, s *testsite.Site, postID string) {
	t.Helper()
	before := count(t, s.Client)
	long := strings.Repeat("A full disk must not lose a word. ", 2600) // ~88,000 characters: new pages
	for i := range 3 {
		err := s.Client.Call(ctx, "posts.create", map[string]any{"kind": "article", "title": "Too long", "content": long}, nil)
		wantDiskFull(t, "posts.create on a full disk, try "+string(rune('1'+i)), err)
	}
	status, h, v := raw(t, s, s.Client, "application/json",
		`{"jsonrpc":"2.0","method":"posts.create","params":{"kind":"article","title":"Too long","content":"`+long+`"},"id":1}`)
	if status != 503 || h.Get("Retry-After") != "60" || field(v, "error", "message") != "the disk is full" {
		t.Errorf("posts.create on a full disk = HTTP %d, Retry-After %q, %v; want 503, 60, the disk is full", status, h.Get("Retry-After"), field(v, "error"))
	}
	if after := count(t, s.Client); after != before {
		t.Errorf("posts: %d before the refused writes, %d after; want nothing half-written", before, after)
	}
	resp, err := http.Get(s.Server.URL + "/@alice/" + postID)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "written before") {
		t.Errorf("a post page on a full disk = %d; want 200 with the post", resp.StatusCode)
	}
	if n := fullDiskLines(s); n != 1 {
		t.Errorf("%d log lines say the disk is full after 4 refused writes; want 1\n%s", n, s.Logs)
	}
	if strings.Contains(s.Logs.String(), `"request failed"`) {
		t.Errorf("a refused write was logged as an internal error:\n%s", s.Logs)
	}
}

// TestDiskFullAnswersUnavailable makes a real database full with
// max_page_count (store/sqlite's CapGrowth), which any machine can do.
func TestDiskFullAnswersUnavailable(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	p := create(t, s.Client, map[string]any{"content": "written before the disk filled up"})
	db := s.App.Store().(*sqlite.DB)
	if err := db.CapGrowth(ctx, 0); err != nil {
		t.Fatal(err)
	}
	fullDiskWalk(t, s, p.ID)
	if err := db.CapGrowth(ctx, 1<<20); err != nil {
		t.Fatal(err)
	}
	create(t, s.Client, map[string]any{"kind": "article", "title": "Room", "content": strings.Repeat("Room again. ", 7000)})
	if !strings.Contains(s.Logs.String(), "writes work again") {
		t.Errorf("no log line says writes work again:\n%s", s.Logs)
	}
}

// TestRealDiskFull is the reviewer's check: the site's data directory on
// a 3 MiB tmpfs, filled to the last byte.
func TestRealDiskFull(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Now().UTC().Truncate(time.Second))
	s := testsite.Start(t, testsite.Options{Now: clock.Now})
	p := create(t, s.Client, map[string]any{"content": "written before the disk filled up"})
	sched := create(t, s.Client, map[string]any{"content": "scheduled", "published_at": clock.Now().Add(24 * time.Hour).Format(time.RFC3339)})
	var statsBefore map[string]any
	if err := s.Client.Call(ctx, "queue.stats", nil, &statsBefore); err != nil {
		t.Fatal(err)
	}

	// Move the data directory onto the tmpfs, as a restart would find it.
	data := s.App.Config().DataDir
	s.App.Close()
	saved := t.TempDir()
	copyFiles(t, data, saved)
	tmpfs.Mount(t, data, "3m")
	copyFiles(t, saved, data)
	s.Restart(t)

	filler := tmpfs.Fill(t, data)
	fullDiskWalk(t, s, p.ID)
	// The owner's session goes stale and cannot be renewed: the owner
	// stays the owner.
	clock.Advance(2 * time.Hour)
	if err := s.Client.Call(ctx, "tokens.list", nil, nil); err != nil {
		t.Errorf("an owner-only read with a session due for renewal on a full disk: %v", err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	create(t, s.Client, map[string]any{"content": "room again"})
	var statsAfter map[string]any
	if err := s.Client.Call(ctx, "queue.stats", nil, &statsAfter); err != nil {
		t.Fatal(err)
	}
	if b, a := field(statsBefore, "total", "scheduled"), field(statsAfter, "total", "scheduled"); b != a {
		t.Errorf("scheduled jobs: %v before the disk filled up, %v after; want none lost", b, a)
	}
	var got postResult
	if err := s.Client.Call(ctx, "posts.get", map[string]string{"id": sched.ID}, &got); err != nil || got.ID != sched.ID {
		t.Errorf("the scheduled post after the full disk: %v", err)
	}
}

// copyFiles copies the regular files of src into dst.
func copyFiles(t *testing.T, src, dst string) {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
