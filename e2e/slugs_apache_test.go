package e2e

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Under CGI behind Apache, an article answers at its slug address —
// a Japanese one percent-encoded — its id address and murlog 0.8.1's
// addresses answer 301, as under serve.
func TestSlugsAndOldAddressesThroughApache(t *testing.T) {
	s, owner := setUp(t)
	ctx := context.Background()
	var ja, en postResult
	if err := owner.Call(ctx, "posts.create", map[string]any{"kind": "article", "title": "日本語のタイトル", "content": "本文です"}, &ja); err != nil {
		t.Fatal(err)
	}
	if err := owner.Call(ctx, "posts.create", map[string]any{"kind": "article", "title": "Hello World", "content": "the text"}, &en); err != nil {
		t.Fatal(err)
	}
	base := "http://" + s.Addr
	html := map[string]string{"Accept": "text/html"}
	for _, tc := range []struct{ path, want string }{
		{"/@alice/" + url.PathEscape("日本語のタイトル"), "本文です"},
		{"/@alice/hello-world", "the text"},
	} {
		if resp, body := get(t, s.URL, tc.path, html); resp.StatusCode != http.StatusOK || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s through Apache: %d; want the article\n%.300s", tc.path, resp.StatusCode, body)
		}
	}
	for _, tc := range []struct{ path, to string }{
		{"/@alice/" + en.ID, "/@alice/hello-world"},
		{"/users/alice", "/@alice"},
		{"/users/alice/posts/" + en.ID, "/@alice/" + en.ID},
	} {
		resp, _ := get(t, s.URL, tc.path, html)
		if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != base+tc.to {
			t.Errorf("GET %s through Apache: %d to %q; want 301 to %s", tc.path, resp.StatusCode, resp.Header.Get("Location"), base+tc.to)
		}
	}
}
