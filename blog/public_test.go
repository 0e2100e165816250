package blog_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

// TestUnpublishedPostsAreNeverPublic: drafts, scheduled, followers-only
// and direct posts — each with its own marker word and the shared tag —
// reach no public response: their own URLs, prev/next and the recent list
// of the public posts around them, the tag page, search, feeds, the
// sitemap, by-ids and the posts API. Unlisted posts are checked apart.
func TestUnpublishedPostsAreNeverPublic(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	before := e.note("first public #shared")
	hidden := map[string]*murlog.Post{}
	for _, c := range []struct {
		marker string
		in     post.CreateInput
	}{
		{"zebradraft", post.CreateInput{Content: "zebradraft #shared", PublishedAt: post.Schedule{Mode: post.PublishDraft}}},
		{"zebrascheduled", post.CreateInput{Content: "zebrascheduled #shared",
			PublishedAt: post.Schedule{Mode: post.PublishAt, At: e.clock.Now().Add(time.Hour)}}},
		{"zebrafollowers", post.CreateInput{Content: "zebrafollowers #shared", Visibility: murlog.VisibilityFollowers}},
		{"zebradirect", post.CreateInput{Content: "zebradirect #shared", Visibility: murlog.VisibilityDirect}},
		{"zebraarticle", post.CreateInput{Kind: murlog.KindArticle, Title: "zebraarticle", Content: "zebraarticle body #shared",
			PublishedAt: post.Schedule{Mode: post.PublishDraft}}},
	} {
		hidden[c.marker] = e.post(c.in)
		e.clock.Advance(time.Second)
	}
	after := e.note("last public #shared")
	e.config(func(c *murlog.PubConfig) { c.SideRecent = 20 })

	var ids []string
	for _, p := range hidden {
		ids = append(ids, p.ID)
	}
	ids = append(ids, before.ID)
	byIDs, _ := json.Marshal(ids)
	paths := []string{"/", "/@alice", "/?mode=plain", "/?order=oldest", "/@alice?mode=plain&order=oldest",
		e.postPath(before), e.postPath(after), "/tags/shared", "/tags/shared?mode=plain", "/tags/shared/feed.rss",
		"/tags/shared/feed.atom", "/@alice/feed.rss", "/@alice/feed.atom", "/sitemap.xml",
		"/api/pub/personas/alice/posts", "/api/pub/personas/alice/posts?order=oldest", "/api/pub/posts/" + before.ID,
		"/api/pub/posts/" + after.ID, "/api/pub/posts/by-ids?ids=" + strings.Join(ids, ",")}
	for marker, p := range hidden {
		// The search queries are inner parts of the markers: the page
		// echoes its query, which must not count as a leak.
		inner := marker[1 : len(marker)-1]
		paths = append(paths, e.postPath(p), "/api/pub/posts/"+p.ID, "/search?q="+inner, "/@alice/search?q="+inner+"&mode=rich",
			"/@alice/search?q=zebra&mode=plain", "/api/pub/posts/by-ids?ids="+p.ID, "/?after="+p.ID)
	}
	check := func(what string, r resp) {
		t.Helper()
		for marker, p := range hidden {
			if strings.Contains(r.body, marker) || strings.Contains(r.body, p.ID) {
				t.Errorf("%s (%d) shows the %s post", what, r.status, marker)
			}
		}
	}
	for _, path := range paths {
		check("GET "+path, e.get(path))
	}
	check("POST by-ids", e.do("POST", "/api/pub/posts/by-ids", string(byIDs), "Content-Type", "application/json"))
	for marker, p := range hidden {
		if r := e.get(e.postPath(p)); r.status != 404 {
			t.Errorf("GET the %s post = %d; want 404", marker, r.status)
		}
		if r := e.get("/api/pub/posts/" + p.ID); r.status != 404 {
			t.Errorf("GET /api/pub/posts/<%s> = %d; want 404", marker, r.status)
		}
	}
	// prev/next skip the hidden posts: before and after are neighbours.
	if r := e.get(e.postPath(before)); !strings.Contains(r.body, after.ID) {
		t.Errorf("the first post's page does not link the next public post")
	}
}

// TestUnlistedIsReachableByItsURLOnly: an unlisted post has its page and
// its API document, and appears in no list, feed, search or sitemap.
func TestUnlistedIsReachableByItsURLOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.note("public one #shared")
	u := e.post(post.CreateInput{Content: "quietunlisted #shared", Visibility: murlog.VisibilityUnlisted})
	e.clock.Advance(time.Second)
	e.note("public two #shared")
	if r := e.get(e.postPath(u)); r.status != 200 || !strings.Contains(r.body, "quietunlisted") {
		t.Errorf("GET the unlisted post = %d; want 200 with its text", r.status)
	}
	if r := e.get("/api/pub/posts/" + u.ID); r.status != 200 || !strings.Contains(r.body, "quietunlisted") {
		t.Errorf("GET /api/pub/posts/<unlisted> = %d; want 200", r.status)
	}
	for _, path := range []string{"/", "/?mode=plain", "/tags/shared", "/search?q=uietunliste", "/@alice/feed.rss",
		"/tags/shared/feed.atom", "/sitemap.xml", "/api/pub/personas/alice/posts", "/api/pub/posts/by-ids?ids=" + u.ID} {
		if r := e.get(path); strings.Contains(r.body, "quietunlisted") || strings.Contains(r.body, u.ID) {
			t.Errorf("GET %s shows the unlisted post", path)
		}
	}
}

// TestScheduledPostAppearsOnTime: a scheduled post is a 404 until its
// time, then a page and an entry of the lists, with no write in between.
func TestScheduledPostAppearsOnTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.post(post.CreateInput{Content: "laterbird", PublishedAt: post.Schedule{Mode: post.PublishAt, At: e.clock.Now().Add(time.Hour)}})
	if r := e.get(e.postPath(p)); r.status != 404 {
		t.Fatalf("GET scheduled post before its time = %d; want 404", r.status)
	}
	e.clock.Advance(time.Hour + time.Second)
	if r := e.get(e.postPath(p)); r.status != 200 || !strings.Contains(r.body, "laterbird") {
		t.Errorf("GET scheduled post after its time = %d; want 200", r.status)
	}
	for _, path := range []string{"/", "/@alice/feed.atom", "/search?q=laterbird"} {
		if r := e.get(path); !strings.Contains(r.body, "laterbird") {
			t.Errorf("GET %s after the post's time does not show it", path)
		}
	}
}

// TestCursorPagesStayValid: the next-page URL of a list shows the same
// posts after new posts arrive (a cursor, not an offset).
func TestCursorPagesStayValid(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var all []*murlog.Post
	word := func(i int) string { return fmt.Sprintf("cursorword%02d", i) }
	for i := range 7 {
		all = append(all, e.note(word(i)))
	}
	first, err := e.loader.SitePage(ctx, blog.SiteQuery{})
	if err != nil || first.Pager == nil || first.Pager.NextURL == "" {
		t.Fatalf("SitePage = %+v, %v; want a pager with a next page", first, err)
	}
	if len(first.Posts) != 5 || first.Posts[0].ID != all[6].ID {
		t.Fatalf("first page has %d posts, first %s; want 5 newest first", len(first.Posts), first.Posts[0].ID)
	}
	next := first.Pager.NextURL
	page2 := e.get(next).body
	for i := range 3 {
		e.note(word(10 + i))
	}
	again := e.get(next).body
	for i := range 7 {
		onPage2 := i < 2
		if strings.Contains(page2, word(i)) != onPage2 || strings.Contains(again, word(i)) != onPage2 {
			t.Errorf("%s (post %d of 7) on page 2 before/after new posts: %v/%v; want %v", next, i, strings.Contains(page2, word(i)),
				strings.Contains(again, word(i)), onPage2)
		}
	}
	// The oldest-first order pages forward the other way.
	r := e.get("/?order=oldest")
	if !strings.Contains(r.body, word(0)) || strings.Contains(r.body, word(6)) {
		t.Error("/?order=oldest does not start with the oldest posts")
	}
}

// TestPageSizes: a Rich page shows 5 posts, a Plain page 20, each with
// Limit+1 telling whether a next page exists.
func TestPageSizes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i := range 21 {
		e.note("sized " + string(rune('A'+i)))
	}
	for _, c := range []struct {
		mode string
		n    int
		more bool
	}{{"", 5, true}, {"rich", 5, true}, {"plain", 20, true}} {
		p, err := e.loader.SitePage(ctx, blog.SiteQuery{Mode: c.mode})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Posts) != c.n || (p.Pager.NextURL != "") != c.more {
			t.Errorf("mode %q: %d posts, next %q; want %d, more=%v", c.mode, len(p.Posts), p.Pager.NextURL, c.n, c.more)
		}
	}
}

// TestStoredExcerptIsRead: list titles and descriptions come from the
// excerpt a post stored when it was written; a row without one (written
// before 009) has them derived from its HTML.
func TestStoredExcerptIsRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	now := e.clock.Now()
	pub := now.Add(-time.Minute)
	stored := storetest.NewPost(e.alice.ID, &pub, murlog.VisibilityPublic, now)
	stored.Content, stored.Excerpt = "<p>words of the html</p>", "words kept at write time"
	old := storetest.NewPost(e.alice.ID, &pub, murlog.VisibilityPublic, now)
	old.Content = "<p>derived from the html</p>"
	if err := e.db.Update(ctx, func(tx store.Tx) error {
		if err := tx.Posts().Create(stored); err != nil {
			return err
		}
		return tx.Posts().Create(old)
	}); err != nil {
		t.Fatal(err)
	}
	r := e.get("/?mode=plain")
	if !strings.Contains(r.body, "words kept at write time") || strings.Contains(r.body, "words of the html") {
		t.Errorf("the Plain list does not show the stored excerpt")
	}
	if !strings.Contains(r.body, "derived from the html") {
		t.Errorf("the Plain list does not derive the excerpt of an older row")
	}
}
