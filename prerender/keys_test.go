package prerender

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/murlog/murlog/artifact"
)

const domain = "blog.example"

func get(target, accept string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	return r
}

// TestKeyOf maps every kind of public read onto its key, and back: the
// document a key renders from is the request that named it.
func TestKeyOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ target, accept, key string }{
		{"/", acceptHTML, "html/index.html"},
		{"/?mode=plain", acceptHTML, "html/index~plain.html"},
		{"/?order=oldest", acceptHTML, "html/index~oldest.html"},
		{"/?mode=plain&order=oldest", acceptHTML, "html/index~plain~oldest.html"},
		{"/@alice", acceptHTML, "html/@alice/index.html"},
		{"/@alice?mode=plain", acceptHTML, "html/@alice/index~plain.html"},
		{"/@alice/hello-world", acceptHTML, "html/@alice/hello-world/index.html"},
		{"/@alice?after=0190a0a0-0000-7000-8000-000000000001", acceptHTML, "html/@alice/index~after/0190a0a0-0000-7000-8000-000000000001.html"},
		{"/@alice?after=0190a0a0-0000-7000-8000-000000000001&mode=plain", acceptHTML,
			"html/@alice/index~plain~after/0190a0a0-0000-7000-8000-000000000001.html"},
		{"/?after=0190a0a0-0000-7000-8000-000000000001", acceptHTML, "html/index~after/0190a0a0-0000-7000-8000-000000000001.html"},
		{"/tags/go?after=0190a0a0-0000-7000-8000-000000000001&mode=plain", acceptHTML,
			"html/tags/go/index~plain~after/0190a0a0-0000-7000-8000-000000000001.html"},
		{"/@alice/0190a0a0-0000-7000-8000-000000000001", "", "html/@alice/0190a0a0-0000-7000-8000-000000000001/index.html"},
		{"/@alice/feed.rss", "", "feeds/@alice/feed.rss"},
		{"/@alice/feed.atom", "", "feeds/@alice/feed.atom"},
		{"/tags/go", acceptHTML, "html/tags/go/index.html"},
		{"/tags/%E6%97%A5%E6%9C%AC%E8%AA%9E", acceptHTML, "html/tags/日本語/index.html"},
		{"/tags/go/feed.atom", "", "feeds/tags/go/feed.atom"},
		{"/@alice", "application/activity+json", "ap/@alice.as"},
		{"/@alice", `application/ld+json; profile="https://www.w3.org/ns/activitystreams"`, "ap/@alice.as"},
		{"/@alice/outbox", "application/activity+json", "ap/@alice/outbox.as"},
		{"/@alice/followers", "application/activity+json", "ap/@alice/followers.as"},
		{"/@alice/featured", "application/activity+json", "ap/@alice/featured.as"},
		{"/@alice/0190a0a0-0000-7000-8000-000000000001", acceptAP, "ap/@alice/0190a0a0-0000-7000-8000-000000000001.as"},
		{"/.well-known/webfinger?resource=acct:alice@blog.example", "", "wf/alice.jrd"},
		{"/.well-known/webfinger?resource=acct%3Aalice%40BLOG.example", "", "wf/alice.jrd"},
		{"/.well-known/nodeinfo", "", "misc/nodeinfo.json"},
		{"/nodeinfo/2.1", "", "misc/nodeinfo-2.1.json"},
		{"/sitemap.xml", "", "misc/sitemap.xml"},
		{"/robots.txt", "", "misc/robots.txt"},
		{"/sw.js", "", "misc/sw.js"},
		{"/api/pub/personas/alice/posts?limit=5", "", "api/@alice/posts-5.json"},
		{"/api/pub/personas/alice/config", "", "api/@alice/config.json"},
		{"/api/pub/runtime", "", "api/runtime.json"},
		{"/themes/default/site.0123456789.css", "", "themes/default/site.0123456789.css"},
	} {
		k, ok := KeyOf(get(tc.target, tc.accept), domain)
		if !ok || k.String() != tc.key {
			t.Errorf("KeyOf(%s, %q) = %q, %v; want %q", tc.target, tc.accept, k, ok, tc.key)
			continue
		}
		d, ok := DocOf(k, domain)
		if !ok {
			t.Errorf("DocOf(%s) = false; want the document of %s", k, tc.target)
			continue
		}
		back, ok := KeyOf(d.Request(domain), domain)
		if !ok || back != k {
			t.Errorf("KeyOf(DocOf(%s)) = %q, %v; want the same key", k, back, ok)
		}
	}
}

// TestKeyOfRefuses: what no artifact answers stays with the dynamic
// routes, and hostile paths make no key at all, so they can neither
// escape the store's root nor create a file.
func TestKeyOfRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ target, accept string }{
		{"/search?q=go", acceptHTML},
		{"/@alice/search?q=go", acceptHTML},
		{"/@alice?after=0190A0A0-0000-7000-8000-000000000001", acceptHTML}, // an id is lower-case
		{"/@alice?after=0190a0a0-0000-7000-8000-000000000001&order=oldest", acceptHTML},
		{"/@alice?mode=plain&after=0190a0a0-0000-7000-8000-000000000001", acceptHTML}, // not as the links write it
		{"/@alice?after=0190a0a0-0000-7000-8000-000000000001&mode=plain&x=1", acceptHTML},
		{"/@alice?after=0190a0a0-0000-7000-8000-000000000001&mode=kwic", acceptHTML},
		{"/@alice?after=..%2F..%2Fmurlog.ini", acceptHTML},
		{"/@alice?after=", acceptHTML},
		{"/@alice?after=0190a0a0-0000-7000-8000-000000000001", "application/activity+json"},
		{"/@alice/search?after=0190a0a0-0000-7000-8000-000000000001", acceptHTML},
		{"/@alice?mode=plain&mode=plain", acceptHTML},
		{"/@alice/outbox?page=true", "application/activity+json"},
		{"/@alice/inbox", "application/activity+json"},
		{"/@alice/x/y", acceptHTML},
		{"/@alice/..%2f..%2fmurlog.ini", acceptHTML},
		{"/@alice/%2e%2e", acceptHTML},
		{"/@alice/..", acceptHTML},
		{"/@alice/.meta-index.html", acceptHTML},
		{"/tags/..", acceptHTML},
		{"/tags/a%00b", acceptHTML},
		{"/tags/e%CC%81", acceptHTML},    // decomposed é: not NFKC
		{"/tags/%EF%AC%81", acceptHTML},  // the ligature ﬁ
		{"/themes/default/../../x", ""},  // cleaned by nobody: refused
		{"/themes/default/a.css.gz", ""}, // a variant is not asked for by name
		{"/.well-known/webfinger?resource=acct:alice@elsewhere.example", ""},
		{"/.well-known/webfinger?resource=https://blog.example/@alice", ""},
		{"/.well-known/webfinger?resource=acct:alice@blog.example&rel=self", ""},
		{"/api/pub/personas/alice/posts?limit=500", ""},
		{"/api/pub/personas/alice/posts?limit=05", ""},
		{"/api/pub/personas/alice/posts", ""},
		{"/api/pub/posts/by-ids?ids=a", ""},
		{"/@alice?" + strings.Repeat("x", 10000), acceptHTML},
		{"/" + strings.Repeat("@a/", 400), acceptHTML},
	} {
		if k, ok := KeyOf(get(tc.target, tc.accept), domain); ok {
			t.Errorf("KeyOf(%.80s) = %q; want no artifact", tc.target, k)
		}
	}
	r := get("/@alice", "application/activity+json")
	r.Header.Set("Signature", `keyId="https://remote.example/actor#main-key"`)
	if k, ok := KeyOf(r, domain); ok {
		t.Errorf("a signed fetch has the key %q; want the dynamic route (authorized fetch, blocks)", k)
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		if k, ok := KeyOf(httptest.NewRequest(m, "/@alice", nil), domain); ok {
			t.Errorf("%s /@alice has the key %q; want none", m, k)
		}
	}
	for _, s := range []string{"html/index.html.gz", "other/x", "ap/@a/b/c.as", "api/@a/posts-0.json",
		"html/@a/index~after/x.html", "html/@a/b/index~after/0190a0a0-0000-7000-8000-000000000001.html",
		"html/@a/index~oldest~after/0190a0a0-0000-7000-8000-000000000001.html"} {
		if d, ok := DocOf(artifact.MustParseKey(s), domain); ok {
			t.Errorf("DocOf(%s) = %+v; want no document", s, d)
		}
	}
}
