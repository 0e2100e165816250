package prerender_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/prerender"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

// TestCursorPages: the pages "older" leads to are artifacts too — the
// first blog.MaxCursorPages of each list, in either mode, stored on the
// first read and answered without the database from then on — while
// every other cursor (deeper, not at a page's end, of another list, made
// up, oldest first) is rendered on each read and leaves no file; a write
// to the list drops the stored ones, and the next read shows the change.
func TestCursorPages(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	// 60 posts written at once (as an import would), the newest last;
	// every other one also has #even.
	const n = 60
	var desc []string // newest first
	now := s.clock.Now()
	if err := s.App.Store().Update(ctx, func(tx store.Tx) error {
		alice, err := tx.Personas().GetByUsername("alice")
		if err != nil {
			return err
		}
		for i := range n {
			pub := now.Add(-time.Duration(n-i) * time.Minute)
			p := storetest.NewPost(alice.ID, &pub, murlog.VisibilityPublic, now)
			p.Source, p.Content, p.Tags = fmt.Sprintf("post %d", i), fmt.Sprintf("<p>post number %d</p>", i), []string{"crowd"}
			if i%2 == 0 {
				p.Tags = append(p.Tags, "even")
			}
			if err := tx.Posts().Create(p); err != nil {
				return err
			}
			desc = append([]string{p.ID}, desc...)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s.rebuild(t)
	_, arts := s.App.Artifacts()
	stored := func(key string) bool {
		t.Helper()
		rc, _, err := arts.Get(ctx, artifact.MustParseKey(key))
		if err == nil {
			rc.Close()
			return true
		}
		if murlog.ErrorCode(err) != murlog.ENotFound {
			t.Fatal(err)
		}
		return false
	}
	read := func(path string) response {
		t.Helper()
		res := s.get(t, path, browser)
		if res.status != http.StatusOK {
			t.Fatalf("GET %s = %d", path, res.status)
		}
		if res.header.Get(artifact.TransientHeader) != "" {
			t.Errorf("GET %s sent %s; it is the artifact layer's alone", path, artifact.TransientHeader)
		}
		return res
	}

	// The first page's "older" link, and the pages after it.
	if first := read("/@alice"); !strings.Contains(first.body, "?after="+desc[blog.RichPageSize-1]) {
		t.Fatalf("the first page does not lead to ?after=%s", desc[blog.RichPageSize-1])
	}
	for m := 1; m <= blog.MaxCursorPages+1; m++ {
		id := desc[m*blog.RichPageSize-1]
		res := read("/@alice?after=" + id)
		if want := desc[m*blog.RichPageSize]; !strings.Contains(res.body, "/@alice/"+want) {
			t.Errorf("page %d does not show post %s", m+1, want)
		}
		if got, want := stored("html/@alice/index~after/"+id+".html"), m <= blog.MaxCursorPages; got != want {
			t.Errorf("page %d (after the %dth post) stored: %v; want %v", m+1, m*blog.RichPageSize, got, want)
		}
	}
	plain := desc[blog.PlainPageSize-1]
	read("/@alice?after=" + plain + "&mode=plain")
	read("/tags/crowd?after=" + desc[blog.RichPageSize-1])
	for _, k := range []string{"html/@alice/index~plain~after/" + plain + ".html", "html/tags/crowd/index~after/" + desc[blog.RichPageSize-1] + ".html"} {
		if !stored(k) {
			t.Errorf("%s is not stored after its first read", k)
		}
	}
	// Cursors no link of the site names.
	made := murlog.NewID()
	for path, key := range map[string]string{
		"/@alice?after=" + desc[2]:    "html/@alice/index~after/" + desc[2] + ".html",    // not at a page's end
		"/@alice?after=" + made:       "html/@alice/index~after/" + made + ".html",       // no post: the first page
		"/tags/even?after=" + desc[4]: "html/tags/even/index~after/" + desc[4] + ".html", // desc[4] (post 55) has no #even
	} {
		read(path)
		if stored(key) {
			t.Errorf("GET %s stored %s; want it rendered and not kept", path, key)
		}
	}

	// Kept pages are answered without the database.
	kept := "/@alice?after=" + desc[blog.RichPageSize-1]
	before := read(kept)
	s.clock.Advance(2 * prerender.PageTTL) // past the micro-cache
	public := s.App.Statements()[dbstat.Public]
	if again := read(kept); again.body != before.body {
		t.Error("the kept page changed between two reads")
	}
	if d := s.App.Statements()[dbstat.Public] - public; d != 0 {
		t.Errorf("a kept cursor page ran %d public statements; want 0", d)
	}

	// An edit of a post on one of them drops every cursor page of its
	// lists; the next read shows the edit.
	edited := desc[blog.RichPageSize+1]
	if err := s.Client.Call(ctx, "posts.update", map[string]any{"id": edited, "content": "words changed since"}, nil); err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, folder := range []string{"html/@alice/index~after/", "html/@alice/index~plain~after/", "html/tags/crowd/index~after/"} {
		arts.List(ctx, folder, func(k artifact.Key) error {
			left = append(left, k.String())
			return nil
		})
	}
	if len(left) > 0 {
		t.Errorf("after an edit these cursor pages are still stored: %v", left)
	}
	if res := read(kept); !strings.Contains(res.body, "words changed since") {
		t.Error("the page after the edit does not show it")
	}
	if !stored("html/@alice/index~after/" + desc[blog.RichPageSize-1] + ".html") {
		t.Error("the page read after the edit is not stored again")
	}
}
