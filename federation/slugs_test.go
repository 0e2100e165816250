package federation_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// getNoFollow is get without following a redirect.
func getNoFollow(t *testing.T, base, path, accept string) response {
	t.Helper()
	req, err := http.NewRequest("GET", base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return response{res.StatusCode, res.Header, nil}
}

// TestArticleURLIsItsSlugAddress: an Article's id stays /@name/<id> and
// answers JSON there, its url is the slug address; an ActivityPub fetch
// of the slug address is sent to the id, a browser's of the id to the
// slug address.
func TestArticleURLIsItsSlugAddress(t *testing.T) {
	t.Parallel()
	s, _ := site(t)
	base := s.Server.URL
	a := createPost(t, s, map[string]any{"kind": "article", "title": "Hello World", "content": "text"})
	id, page := base+"/@alice/"+a.ID, base+"/@alice/hello-world"
	r := getNoFollow(t, base, "/@alice/"+a.ID, apAccept)
	wantStatus(t, r, 200, "the article's id as ActivityPub")
	obj := get(t, base, "/@alice/"+a.ID, apAccept).json(t)
	if str(obj, "id") != id || str(obj, "url") != page || str(obj, "type") != "Article" {
		t.Errorf("article: id %q url %q type %q; want id %s, url %s", str(obj, "id"), str(obj, "url"), str(obj, "type"), id, page)
	}
	if r := getNoFollow(t, base, "/@alice/hello-world", apAccept); r.status != 301 || r.header.Get("Location") != id {
		t.Errorf("ActivityPub GET of the slug address = %d to %q; want 301 to the id %s", r.status, r.header.Get("Location"), id)
	}
	if got := get(t, base, "/@alice/hello-world", apAccept).json(t); str(got, "id") != id {
		t.Errorf("following it gives %q; want the Article", str(got, "id"))
	}
	if r := getNoFollow(t, base, "/@alice/"+a.ID, "text/html"); r.status != 301 || r.header.Get("Location") != page {
		t.Errorf("browser GET of the id = %d to %q; want 301 to %s", r.status, r.header.Get("Location"), page)
	}
	if r := getNoFollow(t, base, "/@alice/no-such-slug", apAccept); r.status != 404 {
		t.Errorf("ActivityPub GET of an unknown slug = %d; want 404", r.status)
	}
	c := get(t, base, "/@alice/outbox?page=true", apAccept).json(t)
	items, _ := c["orderedItems"].([]any)
	b, _ := json.Marshal(items)
	if len(items) != 1 || !strings.Contains(string(b), `"url":"`+page+`"`) {
		t.Errorf("outbox items %v; want the Create with the article's slug url", items)
	}
}

// TestPagesAreNotFederated: a page has no ActivityPub document (by id,
// slug or activity), is not in the outbox nor its count, and a pinned
// post made a page leaves the featured collection.
func TestPagesAreNotFederated(t *testing.T) {
	t.Parallel()
	s, c := site(t)
	base := s.Server.URL
	pinned := createPost(t, s, map[string]any{"kind": "article", "title": "Pinned", "content": "x"})
	if err := s.Client.Call(ctx, "posts.pin", map[string]any{"id": pinned.ID}, nil); err != nil {
		t.Fatal(err)
	}
	about := createPost(t, s, map[string]any{"kind": "article", "title": "About", "content": "x", "page": true})
	if err := s.Client.Call(ctx, "posts.pin", map[string]any{"id": about.ID}, nil); err == nil {
		t.Errorf("pinning a page succeeded; want it refused")
	}
	for _, p := range []string{"/@alice/" + about.ID, "/@alice/about", "/@alice/activities/" + about.ID, "/@alice/" + about.ID + "/replies"} {
		if r := getNoFollow(t, base, p, apAccept); r.status != 404 {
			t.Errorf("ActivityPub GET %s = %d; want 404 (a page is not federated)", p, r.status)
		}
	}
	if r := getNoFollow(t, base, "/@alice/about", "text/html"); r.status != 200 {
		t.Errorf("browser GET of the page = %d; want 200", r.status)
	}
	if err := s.Client.Call(ctx, "posts.update", map[string]any{"id": pinned.ID, "page": true}, nil); err != nil {
		t.Fatal(err)
	}
	c.advance(time.Minute) // past the documents' cache
	out := get(t, base, "/@alice/outbox", apAccept).json(t)
	if out["totalItems"] != float64(0) {
		t.Errorf("outbox totalItems %v; want 0 (pages only)", out["totalItems"])
	}
	if items, _ := get(t, base, "/@alice/outbox?page=true", apAccept).json(t)["orderedItems"].([]any); len(items) != 0 {
		t.Errorf("outbox items %v; want none", items)
	}
	if items, _ := get(t, base, "/@alice/featured", apAccept).json(t)["orderedItems"].([]any); len(items) != 0 {
		t.Errorf("featured items %v; want none (the pinned post is a page now)", items)
	}
}
