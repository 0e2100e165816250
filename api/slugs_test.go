package api_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/murlog/murlog/internal/testsite"
)

// TestPostsSlugAndPage: posts.create, posts.update, posts.get and
// posts.list carry an article's slug and page flag, its url is the slug
// address, and a refused slug is invalid or conflict on field slug,
// writing nothing.
func TestPostsSlugAndPage(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	base := "http://" + s.Domain() + "/@alice/"
	a := create(t, s.Client, map[string]any{"kind": "article", "title": "Hello, World", "content": "x"})
	if a.Slug != "hello-world" || a.Page || a.URL != base+"hello-world" {
		t.Errorf("article: slug %q page %v url %q; want hello-world at %s", a.Slug, a.Page, a.URL, base+"hello-world")
	}
	j := create(t, s.Client, map[string]any{"kind": "article", "title": "日本語のタイトル", "content": "x"})
	if j.Slug != "日本語のタイトル" || j.URL != base+url.PathEscape("日本語のタイトル") {
		t.Errorf("Japanese article: slug %q url %q; want the title, percent-encoded in the url", j.Slug, j.URL)
	}
	about := create(t, s.Client, map[string]any{"kind": "article", "title": "About me", "content": "x", "page": true, "slug": "about"})
	if about.Slug != "about" || !about.Page {
		t.Errorf("page: %+v; want slug about, page", about)
	}
	n := create(t, s.Client, map[string]any{"content": "a note"})
	if n.Slug != "" || n.Page || n.URL != base+n.ID {
		t.Errorf("note: slug %q page %v url %q; want none, the id address", n.Slug, n.Page, n.URL)
	}

	var u postResult
	if err := s.Client.Call(ctx, "posts.update", map[string]any{"id": a.ID, "slug": "greetings"}, &u); err != nil {
		t.Fatal(err)
	}
	if u.Slug != "greetings" || u.URL != base+"greetings" {
		t.Errorf("renamed: slug %q url %q", u.Slug, u.URL)
	}
	var got postResult
	if err := s.NewClient().Call(ctx, "posts.get", map[string]string{"id": about.ID}, &got); err != nil || got.Slug != "about" || !got.Page {
		t.Errorf("anonymous posts.get of the page = %+v, %v; want it, slug and page", got, err)
	}
	// The owner's list has the page; the public list does not.
	for _, tc := range []struct {
		who      string
		call     func(string, any, any) error
		wantPage bool
	}{
		{"owner", func(m string, p, r any) error { return s.Client.Call(ctx, m, p, r) }, true},
		{"anonymous", func(m string, p, r any) error { return s.NewClient().Call(ctx, m, p, r) }, false},
	} {
		var pg postPage
		if err := tc.call("posts.list", map[string]any{}, &pg); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, it := range pg.Items {
			found = found || it.ID == about.ID
		}
		if found != tc.wantPage || len(pg.Items) < 3 {
			t.Errorf("%s posts.list: page listed %v; want %v (%d items)", tc.who, found, tc.wantPage, len(pg.Items))
		}
	}

	before := count(t, s.Client)
	for _, tc := range []struct {
		name   string
		method string
		params map[string]any
		code   int
		data   string
	}{
		{"taken slug", "posts.update", map[string]any{"id": j.ID, "slug": "about"}, -32002, "conflict"},
		{"reserved slug", "posts.create", map[string]any{"kind": "article", "title": "T", "content": "x", "slug": "followers"}, -32602, "invalid"},
		{"slug like an id", "posts.update", map[string]any{"id": j.ID, "slug": n.ID}, -32602, "invalid"},
		{"slug with a slash", "posts.create", map[string]any{"kind": "article", "title": "T", "content": "x", "slug": "a/b"}, -32602, "invalid"},
		{"upper-case slug", "posts.create", map[string]any{"kind": "article", "title": "T", "content": "x", "slug": "About"}, -32602, "invalid"},
		{"slug too long", "posts.create", map[string]any{"kind": "article", "title": "T", "content": "x", "slug": strings.Repeat("a", 101)}, -32602, "invalid"},
		{"note with a slug", "posts.create", map[string]any{"content": "x", "slug": "a-note"}, -32602, "invalid"},
		{"note as a page", "posts.create", map[string]any{"content": "x", "page": true}, -32602, "invalid"},
		{"followers-only page", "posts.create", map[string]any{"kind": "article", "title": "T", "content": "x", "page": true, "visibility": "followers"}, -32602, "invalid"},
		{"slug not a string", "posts.create", map[string]any{"kind": "article", "title": "T", "content": "x", "slug": 1}, -32602, "invalid"},
	} {
		e := rpcErr(t, tc.name, s.Client.Call(ctx, tc.method, tc.params, nil), tc.code, tc.data, 0)
		if e.Data.Field != "slug" && e.Data.Field != "page" && e.Data.Field != "visibility" {
			t.Errorf("%s: field %q; want the field at fault", tc.name, e.Data.Field)
		}
	}
	if after := count(t, s.Client); after != before {
		t.Errorf("refused calls changed the posts: %d → %d", before, after)
	}
	var again postResult
	if err := s.Client.Call(ctx, "posts.get", map[string]string{"id": j.ID}, &again); err != nil || again.Slug != "日本語のタイトル" {
		t.Errorf("after refused updates: slug %q, %v; want it unchanged", again.Slug, err)
	}
}
