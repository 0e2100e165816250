package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/murlog/murlog/internal/testsite"
)

// TestMurlog081AddressesRedirect: every address murlog 0.8.1 served
// answers 301 to today's, for a browser and an ActivityPub client alike,
// and following it gives the page or the JSON; an unknown persona or a
// path 0.8.1 never had is a 404.
func TestMurlog081AddressesRedirect(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var post struct {
		ID string `json:"id"`
	}
	if err := s.Client.Call(ctx, "posts.create", map[string]any{"content": "from before the upgrade"}, &post); err != nil {
		t.Fatal(err)
	}
	base := s.Server.URL
	noFollow := *s.Server.Client()
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	get := func(c *http.Client, path, accept string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Header.Set("Accept", accept)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	const ap, browser = "application/activity+json", "text/html,application/xhtml+xml,*/*;q=0.8"
	hyphenless := strings.ReplaceAll(post.ID, "-", "")
	for _, tc := range []struct{ old, now string }{
		{"/users/alice", "/@alice"},
		{"/users/ALICE", "/@alice"},
		{"/users/alice/posts/" + post.ID, "/@alice/" + post.ID},
		{"/users/alice/posts/" + hyphenless, "/@alice/" + post.ID},
		{"/users/alice/outbox", "/@alice/outbox"},
		{"/users/alice/outbox?page=true", "/@alice/outbox?page=true"},
		{"/users/alice/followers", "/@alice/followers"},
		{"/users/alice/following", "/@alice/following"},
		{"/users/alice/collections/featured", "/@alice/featured"},
		{"/users/alice/inbox", "/@alice/inbox"},
	} {
		for _, accept := range []string{ap, browser} {
			res, _ := get(&noFollow, tc.old, accept)
			if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != base+tc.now {
				t.Errorf("GET %s (%s) = %d Location %q; want 301 to %s", tc.old, accept, res.StatusCode, res.Header.Get("Location"), base+tc.now)
			}
		}
	}

	// Followed, the old actor and note ids answer JSON, the old pages HTML.
	for _, tc := range []struct{ old, id, typ string }{
		{"/users/alice", base + "/@alice", "Person"},
		{"/users/alice/posts/" + post.ID, base + "/@alice/" + post.ID, "Note"},
	} {
		res, body := get(s.Server.Client(), tc.old, ap)
		var doc struct{ ID, Type string }
		if err := json.Unmarshal([]byte(body), &doc); err != nil || res.StatusCode != 200 || doc.ID != tc.id || doc.Type != tc.typ {
			t.Errorf("GET %s as ActivityPub, redirects followed = %d %.200s; want the %s %s", tc.old, res.StatusCode, body, tc.typ, tc.id)
		}
		res, body = get(s.Server.Client(), tc.old, browser)
		if res.StatusCode != 200 || !strings.Contains(body, "<html") || !strings.Contains(res.Header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s as a browser, redirects followed = %d %.200s; want the page", tc.old, res.StatusCode, body)
		}
	}

	for _, path := range []string{
		"/users/bob", "/users/bob/posts/" + post.ID, "/users/bob/outbox", "/users/bob@remote.example",
		"/users/alice/posts/not-an-id", "/users/alice/posts", "/users/alice/statuses/1", "/users/alice/collections/tags",
		"/users/", "/users/alice/outbox/x",
	} {
		for _, accept := range []string{ap, browser} {
			if res, body := get(&noFollow, path, accept); res.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s (%s) = %d Location %q %.100s; want 404", path, accept, res.StatusCode, res.Header.Get("Location"), body)
			}
		}
	}
	req, _ := http.NewRequest(http.MethodDelete, base+"/users/alice", nil)
	if res, err := noFollow.Do(req); err != nil || res.StatusCode != http.StatusNotFound {
		t.Errorf("DELETE /users/alice = %v %v; want 404", res.StatusCode, err)
	}
}
