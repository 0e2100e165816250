package federation_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/prerender"
)

func TestWebFinger(t *testing.T) {
	t.Parallel()
	s, _ := site(t)
	base, dom := s.Server.URL, s.Domain()
	actor := base + "/@alice"
	for _, res := range []string{"acct:alice@" + dom, "acct:ALICE@" + strings.ToUpper(dom), "alice@" + dom, "acct:@alice@" + dom, actor} {
		r := get(t, base, "/.well-known/webfinger?resource="+url.QueryEscape(res), "")
		wantStatus(t, r, 200, "webfinger "+res)
		wantHeader(t, r, "Content-Type", "application/jrd+json", res)
		wantHeader(t, r, "Access-Control-Allow-Origin", "*", res)
		var j struct {
			Subject string   `json:"subject"`
			Aliases []string `json:"aliases"`
			Links   []struct{ Rel, Type, Href, Template string }
		}
		if err := json.Unmarshal(r.body, &j); err != nil {
			t.Fatal(err)
		}
		if j.Subject != "acct:alice@"+dom || len(j.Aliases) != 1 || j.Aliases[0] != actor {
			t.Errorf("webfinger %s: subject %q aliases %v; want acct:alice@%s and [%s]", res, j.Subject, j.Aliases, dom, actor)
		}
		rels := map[string]string{}
		for _, l := range j.Links {
			rels[l.Rel] = l.Type + " " + l.Href + l.Template
		}
		for rel, want := range map[string]string{
			"self":                                  "application/activity+json " + actor,
			"http://webfinger.net/rel/profile-page": "text/html " + actor,
			"http://ostatus.org/schema/1.0/subscribe": " " + base + "/authorize_interaction?uri={uri}",
		} {
			if rels[rel] != want {
				t.Errorf("webfinger %s: link %s = %q; want %q", res, rel, rels[rel], want)
			}
		}
	}
	for _, c := range []struct {
		res    string
		status int
	}{
		{"", 400},
		{"acct:alice", 400},
		{"acct:alice@", 400},
		{"nonsense:thing", 400},
		{"acct:bob@" + dom, 404},
		{"acct:alice@elsewhere.example", 404},
		{"https://elsewhere.example/@alice", 404},
		{base + "/users/alice", 404},
	} {
		r := get(t, base, "/.well-known/webfinger?resource="+url.QueryEscape(c.res), "")
		wantStatus(t, r, c.status, "webfinger "+c.res)
		wantHeader(t, r, "Access-Control-Allow-Origin", "*", c.res)
	}
}

func TestHostMetaAndNodeInfo(t *testing.T) {
	t.Parallel()
	s, clk := site(t)
	base := s.Server.URL
	tmpl := base + "/.well-known/webfinger?resource={uri}"
	r := get(t, base, "/.well-known/host-meta", "")
	wantStatus(t, r, 200, "host-meta")
	wantHeader(t, r, "Content-Type", "application/xrd+xml", "host-meta")
	if !strings.Contains(string(r.body), `<Link rel="lrdd" template="`+tmpl+`"/>`) {
		t.Errorf("host-meta XML lacks the lrdd template:\n%s", r.body)
	}
	for _, c := range []struct{ path, accept string }{{"/.well-known/host-meta.json", ""}, {"/.well-known/host-meta", "application/json"}} {
		r := get(t, base, c.path, c.accept)
		wantStatus(t, r, 200, c.path)
		wantHeader(t, r, "Content-Type", "application/jrd+json", c.path)
		if !strings.Contains(string(r.body), `"template":"`+tmpl+`"`) {
			t.Errorf("%s (Accept %q) = %s; want the lrdd template in JSON", c.path, c.accept, r.body)
		}
	}

	// Only published public and unlisted posts are counted.
	future := time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)
	createPost(t, s, nil)
	createPost(t, s, map[string]any{"visibility": "unlisted"})
	createPost(t, s, map[string]any{"visibility": "followers"})
	createPost(t, s, map[string]any{"visibility": "direct"})
	createPost(t, s, map[string]any{"published_at": nil})
	createPost(t, s, map[string]any{"published_at": future})
	clk.advance(federation.DefaultTTL + time.Second)

	r = get(t, base, "/.well-known/nodeinfo", "")
	wantStatus(t, r, 200, "nodeinfo links")
	for _, v := range []string{"2.0", "2.1"} {
		if !strings.Contains(string(r.body), `"rel":"http://nodeinfo.diaspora.software/ns/schema/`+v+`","href":"`+base+`/nodeinfo/`+v+`"`) {
			t.Errorf("nodeinfo links lack %s: %s", v, r.body)
		}
		r := get(t, base, "/nodeinfo/"+v, "")
		wantStatus(t, r, 200, "nodeinfo "+v)
		wantHeader(t, r, "Content-Type", `profile="http://nodeinfo.diaspora.software/ns/schema/`+v+`#"`, v)
		var ni struct {
			Version           string
			Software          struct{ Name, Version, Repository string }
			Protocols         []string
			OpenRegistrations *bool
			Usage             struct {
				Users      struct{ Total, ActiveMonth, ActiveHalfyear int }
				LocalPosts int
			}
			Metadata map[string]any
		}
		if err := json.Unmarshal(r.body, &ni); err != nil {
			t.Fatal(err)
		}
		if ni.Version != v || ni.Software.Name != "murlog" || ni.Software.Version != murlog.Version ||
			len(ni.Protocols) != 1 || ni.Protocols[0] != "activitypub" || ni.OpenRegistrations == nil || *ni.OpenRegistrations ||
			ni.Metadata == nil {
			t.Errorf("nodeinfo %s = %s", v, r.body)
		}
		if u := ni.Usage; u.Users.Total != 1 || u.Users.ActiveMonth != 1 || u.Users.ActiveHalfyear != 1 || u.LocalPosts != 2 {
			t.Errorf("nodeinfo %s usage = %+v; want 1 user and 2 local posts (public + unlisted)", v, u)
		}
		if (ni.Software.Repository != "") != (v == "2.1") {
			t.Errorf("nodeinfo %s software.repository = %q; want it in 2.1 only", v, ni.Software.Repository)
		}
	}
	wantStatus(t, get(t, base, "/nodeinfo/3.0", ""), 404, "nodeinfo 3.0")

	// The site's name and introduction are the primary persona's blog's,
	// changed through the API and shown at once.
	if err := s.Client.Call(ctx, "site.update_settings", map[string]any{"publication": map[string]any{
		"site_name": "Alice's blog", "introduction": "Notes on tea."}}, nil); err != nil {
		t.Fatal(err)
	}
	if r := get(t, base, "/nodeinfo/2.1", ""); !strings.Contains(string(r.body), `"nodeDescription":"Notes on tea.","nodeName":"Alice's blog"`) {
		t.Errorf("nodeinfo after a site name change = %s; want the new nodeName and nodeDescription", r.body)
	}

	r = get(t, base, "/api/v1/instance", "")
	wantStatus(t, r, 200, "instance")
	in := r.json(t)
	if str(in, "uri") != s.Domain() || str(in, "title") != "Alice's blog" || str(in, "description") != "Notes on tea." ||
		str(in, "version") != "4.0.0 (compatible; murlog "+murlog.Version+")" || in["registrations"] != false {
		t.Errorf("instance = %s", r.body)
	}
}

func TestActorNegotiation(t *testing.T) {
	t.Parallel()
	s, _ := site(t)
	base := s.Server.URL
	for _, c := range []struct {
		accept string
		ap     bool
	}{
		{"application/activity+json", true},
		{apAccept, true},
		{`application/ld+json;profile="https://www.w3.org/ns/activitystreams"`, true},
		{`application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"`, true},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", false},
		{"*/*", false},
		{"", false},
		{"text/html, application/activity+json;q=0.5", false},
	} {
		for _, path := range []string{"/@alice", "/@alice/main-key"} {
			r := get(t, base, path, c.accept)
			wantHeader(t, r, "Vary", "Accept", path)
			if !c.ap {
				// Browsers get the blog: the site page, and a 404 page
				// for the key (no post has that id).
				want := 200
				if path != "/@alice" {
					want = 404
				}
				wantStatus(t, r, want, path+" Accept "+c.accept)
				wantHeader(t, r, "Content-Type", "text/html; charset=utf-8", path)
				continue
			}
			wantStatus(t, r, 200, path+" Accept "+c.accept)
			wantHeader(t, r, "Content-Type", "application/activity+json", path)
			if a := r.json(t); str(a, "id") != base+"/@alice" || str(a, "type") != "Person" {
				t.Errorf("%s: id %q type %q; want the Person %s/@alice", path, str(a, "id"), str(a, "type"), base)
			}
		}
	}
	wantStatus(t, get(t, base, "/@bob", apAccept), 404, "unknown persona")
	wantStatus(t, get(t, base, "/@", apAccept), 404, "empty name")
	wantStatus(t, get(t, base, "/alice", apAccept), 404, "no @")
}

func TestActorDocument(t *testing.T) {
	t.Parallel()
	s, _ := site(t)
	base := s.Server.URL
	pid := personaID(t, s)
	// A profile edit through the API is visible at once (Invalidate),
	// though the actor was rendered before.
	wantStatus(t, get(t, base, "/@alice", apAccept), 200, "actor before the edit")
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	if err := os.MkdirAll(filepath.Join(s.Dir, "media", "avatars"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir, "media", "avatars", "a.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Client.Call(ctx, "personas.update", map[string]any{"id": pid, "display_name": "Alice <A>",
		"summary": "Hi & welcome.\n\nSecond <b>paragraph</b>", "locked": true, "discoverable": true,
		"fields":      []map[string]string{{"name": "Site", "value": "https://alice.example/"}, {"name": "Pronouns", "value": "she/<her>"}},
		"avatar_path": "avatars/a.png"}, nil); err != nil {
		t.Fatal(err)
	}
	r := get(t, base, "/@alice", "application/activity+json")
	wantStatus(t, r, 200, "actor")
	a := r.json(t)
	actor := base + "/@alice"
	for k, want := range map[string]string{
		"id": actor, "type": "Person", "preferredUsername": "alice", "name": "Alice <A>", "url": actor,
		"inbox": actor + "/inbox", "outbox": actor + "/outbox", "followers": actor + "/followers",
		"following": actor + "/following", "featured": actor + "/featured",
		"summary": "<p>Hi &amp; welcome.</p><p>Second &lt;b&gt;paragraph&lt;/b&gt;</p>",
	} {
		if got := str(a, k); got != want {
			t.Errorf("actor %s = %q; want %q", k, got, want)
		}
	}
	if a["manuallyApprovesFollowers"] != true || a["discoverable"] != true {
		t.Errorf("actor manuallyApprovesFollowers %v discoverable %v; want true, true", a["manuallyApprovesFollowers"], a["discoverable"])
	}
	if str(a, "published") == "" {
		t.Error("actor has no published")
	}
	ep, _ := a["endpoints"].(map[string]any)
	if str(ep, "sharedInbox") != base+"/inbox" {
		t.Errorf("endpoints = %v; want sharedInbox %s/inbox", a["endpoints"], base)
	}
	pk, _ := a["publicKey"].(map[string]any)
	if str(pk, "id") != actor+"#main-key" || str(pk, "owner") != actor || !strings.Contains(str(pk, "publicKeyPem"), "BEGIN PUBLIC KEY") {
		t.Errorf("publicKey = %v", pk)
	}
	att, _ := a["attachment"].([]any)
	if len(att) != 2 {
		t.Fatalf("attachment = %v; want 2 PropertyValue fields", a["attachment"])
	}
	f0, f1 := att[0].(map[string]any), att[1].(map[string]any)
	if str(f0, "type") != "PropertyValue" || str(f0, "name") != "Site" || !strings.Contains(str(f0, "value"), `<a href="https://alice.example/"`) {
		t.Errorf("field 0 = %v; want a PropertyValue whose value links", f0)
	}
	if str(f1, "value") != "she/&lt;her&gt;" {
		t.Errorf("field 1 value = %q; want it HTML-escaped", str(f1, "value"))
	}
	icon, _ := a["icon"].(map[string]any)
	if str(icon, "url") != base+"/media/avatars/a.png" || str(icon, "mediaType") != "image/png" {
		t.Errorf("icon = %v", icon)
	}
	if _, ok := a["image"]; ok {
		t.Errorf("image = %v; want none without a header", a["image"])
	}
	ctxs, _ := json.Marshal(a["@context"])
	for _, term := range []string{"https://w3id.org/security/v1", "manuallyApprovesFollowers", "toot:discoverable", "toot:featured", "schema:PropertyValue", "schema:value"} {
		if !strings.Contains(string(ctxs), term) {
			t.Errorf("@context lacks %s: %s", term, ctxs)
		}
	}
}

// TestActorCacheTTL: a change made behind the app's back (another
// process) shows once the site's worker has rendered what it marked —
// the actor is an artifact, whatever the TTL — and a signed fetch (no
// artifact answers it) sees it once the TTL has passed, not before.
func TestActorCacheTTL(t *testing.T) {
	t.Parallel()
	s, clk := site(t)
	base := s.Server.URL
	get(t, base, "/@alice", apAccept)
	s.Rename(t, "Renamed")
	clk.advance(federation.DefaultTTL + time.Second)
	if n := str(get(t, base, "/@alice", apAccept).json(t), "name"); n == "Renamed" {
		t.Errorf("name = %q before the rebuild; want the artifact", n)
	}
	s.Settle(t)
	if n := str(get(t, base, "/@alice", apAccept).json(t), "name"); n != "Renamed" {
		t.Errorf("name = %q after the rebuild; want Renamed", n)
	}
}

func TestNotesAndVisibility(t *testing.T) {
	t.Parallel()
	s, _ := site(t)
	base := s.Server.URL
	actor := base + "/@alice"
	followers := actor + "/followers"
	future := time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)
	pub := createPost(t, s, map[string]any{"language": "en"})
	unl := createPost(t, s, map[string]any{"visibility": "unlisted", "summary": "spoilers"})
	art := createPost(t, s, map[string]any{"kind": "article", "title": "My Title", "content": "# Head\n\nBody *text*"})
	for _, c := range []struct {
		name   string
		params map[string]any
	}{
		{"followers-only", map[string]any{"visibility": "followers"}},
		{"direct", map[string]any{"visibility": "direct"}},
		{"draft", map[string]any{"published_at": nil}},
		{"scheduled", map[string]any{"published_at": future}},
	} {
		p := createPost(t, s, c.params)
		r := get(t, base, "/@alice/"+p.ID, apAccept)
		wantStatus(t, r, 404, c.name+" post, unsigned")
		wantStatus(t, get(t, base, "/@alice/"+p.ID+"/replies", apAccept), 404, c.name+" replies")
		wantStatus(t, get(t, base, "/@alice/activities/"+p.ID, apAccept), 404, c.name+" Create")
	}

	r := get(t, base, "/@alice/"+pub.ID, apAccept)
	wantStatus(t, r, 200, "public note")
	wantHeader(t, r, "Vary", "Accept", "note")
	wantHeader(t, r, "Content-Type", "application/activity+json", "note")
	if !strings.Contains(string(r.body), `"content":"<p>`) {
		t.Errorf("note body escapes its HTML: %s", r.body)
	}
	n := r.json(t)
	id := actor + "/" + pub.ID
	if str(n, "type") != "Note" || str(n, "id") != id || str(n, "url") != id || str(n, "attributedTo") != actor {
		t.Errorf("note = %s", r.body)
	}
	if !strings.Contains(str(n, "content"), "hello") || str(n, "published") == "" {
		t.Errorf("note content %q published %q", str(n, "content"), str(n, "published"))
	}
	if _, ok := n["summary"]; ok || n["sensitive"] != false {
		t.Errorf("note summary %v sensitive %v; want no summary, not sensitive", n["summary"], n["sensitive"])
	}
	if _, ok := n["updated"]; ok {
		t.Errorf("note updated = %v; want none for a post never edited", n["updated"])
	}
	if cm, _ := n["contentMap"].(map[string]any); str(cm, "en") != str(n, "content") {
		t.Errorf("contentMap = %v; want en: content", n["contentMap"])
	}
	assertAddressed(t, "public", n, []string{activitypub.Public}, []string{followers})
	tags, _ := json.Marshal(n["tag"])
	if !strings.Contains(string(tags), `"type":"Hashtag"`) || !strings.Contains(string(tags), `"name":"#fedi"`) {
		t.Errorf("tag = %s; want the #fedi Hashtag", tags)
	}
	rep, _ := n["replies"].(map[string]any)
	if str(rep, "id") != id+"/replies" || str(rep, "type") != "OrderedCollection" || rep["totalItems"] != 0.0 {
		t.Errorf("replies = %v", rep)
	}
	ip, _ := json.Marshal(n["interactionPolicy"])
	if string(ip) != `{"canQuote":{"automaticApproval":["https://www.w3.org/ns/activitystreams#Public"]}}` {
		t.Errorf("interactionPolicy = %s", ip)
	}
	rr := get(t, base, "/@alice/"+pub.ID+"/replies", apAccept)
	wantStatus(t, rr, 200, "replies collection")
	if first, _ := rr.json(t)["first"].(map[string]any); first == nil || first["orderedItems"] == nil {
		t.Errorf("replies collection = %s; want an embedded empty first page", rr.body)
	}

	cr := get(t, base, "/@alice/activities/"+pub.ID, apAccept)
	wantStatus(t, cr, 200, "the Create of a public note")
	if c := cr.json(t); str(c, "type") != "Create" || str(c, "id") != actor+"/activities/"+pub.ID {
		t.Errorf("Create = %s", cr.body)
	}
	wantStatus(t, get(t, base, "/@alice/activities/nope", apAccept), 404, "bad activity id")
	wantStatus(t, get(t, base, "/@alice/x/y", apAccept), 404, "unknown sub-path")

	// An edit shows as updated.
	if err := s.Client.Call(ctx, "posts.update", map[string]any{"id": pub.ID, "content": "edited"}, nil); err != nil {
		t.Fatal(err)
	}
	if n := get(t, base, "/@alice/"+pub.ID, apAccept).json(t); str(n, "updated") == "" {
		t.Errorf("edited note has no updated: %v", n)
	}

	n = get(t, base, "/@alice/"+unl.ID, apAccept).json(t)
	assertAddressed(t, "unlisted", n, []string{followers}, []string{activitypub.Public})
	if str(n, "summary") != "spoilers" || n["sensitive"] != true {
		t.Errorf("content warning: summary %v sensitive %v; want spoilers, true", n["summary"], n["sensitive"])
	}

	n = get(t, base, "/@alice/"+art.ID, apAccept).json(t)
	if nm, _ := n["nameMap"].(map[string]any); str(n, "type") != "Article" || nm["und"] != "My Title" || !strings.Contains(str(n, "content"), "<em>text</em>") {
		t.Errorf("article = %v", n)
	}
	if _, ok := n["summary"]; ok {
		t.Errorf("article summary = %v; want none (Mastodon shows summary as a content warning)", n["summary"])
	}

	wantStatus(t, get(t, base, "/@alice/"+pub.ID, "text/html"), 200, "note as HTML (the blog's post page)")
	wantStatus(t, get(t, base, "/@alice/"+murlog.NewID(), apAccept), 404, "unknown post")
	wantStatus(t, get(t, base, "/@alice/not-an-id", apAccept), 404, "bad id")
}

func assertAddressed(t *testing.T, what string, n map[string]any, to, cc []string) {
	t.Helper()
	got := func(k string) string { b, _ := json.Marshal(n[k]); return string(b) }
	want := func(v []string) string { b, _ := json.Marshal(v); return string(b) }
	if got("to") != want(to) || got("cc") != want(cc) {
		t.Errorf("%s: to %s cc %s; want to %s cc %s", what, got("to"), got("cc"), want(to), want(cc))
	}
}

func TestOutboxPaging(t *testing.T) {
	t.Parallel()
	s, clk := site(t)
	base := s.Server.URL
	outbox := base + "/@alice/outbox"
	createPost(t, s, map[string]any{"visibility": "followers"})
	createPost(t, s, map[string]any{"published_at": nil})
	const n = federation.PageSize + 5
	for i := 0; i < n; i++ {
		createPost(t, s, map[string]any{"content": "post " + string(rune('a'+i))})
	}
	clk.advance(federation.DefaultTTL + time.Second)
	c := get(t, base, "/@alice/outbox", apAccept).json(t)
	if str(c, "type") != "OrderedCollection" || c["totalItems"] != float64(n) || str(c, "first") != outbox+"?page=true" {
		t.Fatalf("outbox = %v; want %d public items and a first page", c, n)
	}
	r := get(t, base, "/@alice/outbox?page=true", apAccept)
	wantStatus(t, r, 200, "outbox page 1")
	p1 := r.json(t)
	items, _ := p1["orderedItems"].([]any)
	if len(items) != federation.PageSize || str(p1, "partOf") != outbox || str(p1, "next") == "" {
		t.Fatalf("page 1: %d items, partOf %q, next %q; want %d, the outbox, a next page", len(items), str(p1, "partOf"), str(p1, "next"), federation.PageSize)
	}
	first := items[0].(map[string]any)
	obj, _ := first["object"].(map[string]any)
	if str(first, "type") != "Create" || str(obj, "type") != "Note" || str(first, "actor") != base+"/@alice" {
		t.Errorf("page item = %v; want a Create of a Note", first)
	}
	next, _ := url.Parse(str(p1, "next"))
	p2 := get(t, base, next.RequestURI(), apAccept).json(t)
	items2, _ := p2["orderedItems"].([]any)
	if len(items2) != 5 {
		t.Errorf("page 2: %d items; want 5", len(items2))
	}
	if _, ok := p2["next"]; ok {
		t.Errorf("page 2 next = %v; want none on the last page", p2["next"])
	}
	wantStatus(t, get(t, base, "/@alice/outbox?max_id=nope&page=true", apAccept), 400, "bad max_id")
}

func TestFollowCollections(t *testing.T) {
	t.Parallel()
	s, _ := site(t)
	base := s.Server.URL
	pid := personaID(t, s)
	for _, show := range []bool{true, false} {
		if err := s.Client.Call(ctx, "personas.update", map[string]any{"id": pid, "show_follows": show}, nil); err != nil {
			t.Fatal(err)
		}
		for _, which := range []string{"followers", "following"} {
			id := base + "/@alice/" + which
			c := get(t, base, "/@alice/"+which, apAccept).json(t)
			if str(c, "id") != id || str(c, "type") != "OrderedCollection" || c["totalItems"] != 0.0 {
				t.Errorf("%s (show %v) = %v", which, show, c)
			}
			if _, ok := c["first"]; ok != show {
				t.Errorf("%s (show %v): first present %v; want %v", which, show, ok, show)
			}
			p := get(t, base, "/@alice/"+which+"?page=true", apAccept).json(t)
			if _, ok := p["orderedItems"]; ok != show {
				t.Errorf("%s page (show %v): orderedItems present %v; want %v", which, show, ok, show)
			}
		}
	}
	c := get(t, base, "/@alice/featured", apAccept).json(t)
	if str(c, "type") != "OrderedCollection" || c["totalItems"] != 0.0 {
		t.Errorf("featured = %v", c)
	}
}

func TestAuthorizedFetch(t *testing.T) {
	t.Parallel()
	s, clk := site(t)
	base := s.Server.URL
	pub := createPost(t, s, nil)
	paths := []string{"/@alice/" + pub.ID, "/@alice/" + pub.ID + "/replies", "/@alice/outbox", "/@alice/outbox?page=true",
		"/@alice/followers", "/@alice/following", "/@alice/featured"}
	for _, on := range []bool{true, false} {
		v := "0"
		if on {
			v = "1"
		}
		setSetting(t, s, federation.SettingAuthorizedFetch, v)
		clk.advance(federation.DefaultTTL + time.Second)
		for _, p := range paths {
			want := http.StatusOK
			if on {
				want = http.StatusUnauthorized
			}
			wantStatus(t, get(t, base, p, apAccept), want, "authorized fetch "+v+": "+p)
		}
		// The actor (and its key) stays fetchable: technical attributes
		// only while authorized fetch is on.
		for _, p := range []string{"/@alice", "/@alice/main-key"} {
			r := get(t, base, p, apAccept)
			wantStatus(t, r, 200, "authorized fetch "+v+": "+p)
			a := r.json(t)
			if pk, _ := a["publicKey"].(map[string]any); str(pk, "publicKeyPem") == "" || str(a, "inbox") == "" {
				t.Errorf("%s (authorized fetch %s) = %s; want inbox and publicKey", p, v, r.body)
			}
			if _, hasFeatured := a["featured"]; hasFeatured == on {
				t.Errorf("%s (authorized fetch %s): featured present %v; want the full actor only when off", p, v, hasFeatured)
			}
		}
		wantStatus(t, get(t, base, "/.well-known/webfinger?resource=acct:alice@"+s.Domain(), ""), 200, "webfinger with authorized fetch "+v)
		wantStatus(t, get(t, base, "/nodeinfo/2.0", ""), 200, "nodeinfo with authorized fetch "+v)
	}
}

// TestBeforeSetup: a site without a complete setup answers nothing
// federated (the guard's 503).
func TestBeforeSetup(t *testing.T) {
	t.Parallel()
	s := testsiteBare(t)
	for _, p := range []string{"/.well-known/webfinger?resource=acct:alice@x", "/@alice", "/nodeinfo/2.0"} {
		if r := get(t, s, p, apAccept); r.status != http.StatusServiceUnavailable {
			t.Errorf("%s before setup: status %d; want 503", p, r.status)
		}
	}
}

// TestOwnerSettingsReachTheDocuments sets allow_quotes and
// authorized_fetch through the API, as the owner does, and reads their
// effect in the served JSON: allow_quotes is a site-wide change, which
// marks every document; the owner's request renders the newest of them
// within its 2 s and the rebuild job the rest, in the background
// (Settle stands for the job), so on a loaded machine the note may be
// the job's.
func TestOwnerSettingsReachTheDocuments(t *testing.T) {
	t.Parallel()
	s, _ := site(t)
	base := s.Server.URL
	pub := createPost(t, s, nil)
	call := func(params map[string]any) {
		t.Helper()
		var out map[string]any
		if err := s.Client.Call(ctx, "site.update_settings", params, &out); err != nil {
			t.Fatalf("site.update_settings %v: %v", params, err)
		}
	}
	policy := func() string {
		t.Helper()
		r := get(t, base, "/@alice/"+pub.ID, apAccept)
		wantStatus(t, r, 200, "note")
		ip, _ := json.Marshal(r.json(t)["interactionPolicy"])
		return string(ip)
	}
	if got := policy(); !strings.Contains(got, activitypub.Public) {
		t.Fatalf("default interactionPolicy = %s; want public posts quotable", got)
	}
	call(map[string]any{"allow_quotes": false})
	s.Settle(t)
	if got := policy(); got != `{"canQuote":{"automaticApproval":[]}}` {
		t.Fatalf("allow_quotes false: interactionPolicy = %s; want no automatic approval", got)
	}
	// Authorized fetch takes effect at the answer, not with the rebuild:
	// the stored documents are withdrawn by the call itself (the actor,
	// which stays fetchable with its technical attributes only, is
	// rendered again by the call's own pass). A render holding the folder
	// meanwhile (another process's pass) keeps the call's own pass from
	// rendering anything within its 2 s: the withdrawal does not wait.
	_, arts := s.App.Artifacts()
	release, err := arts.(prerender.Turner).Turn(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	call(map[string]any{"authorized_fetch": true})
	release() // a read that misses renders, and waits for a turn too
	wantStatus(t, get(t, base, "/@alice/"+pub.ID, apAccept), http.StatusUnauthorized, "authorized_fetch on: unsigned note fetch")
	if _, st := s.App.Artifacts(); st != nil {
		if err := st.List(ctx, "ap/@alice/", func(k artifact.Key) error {
			t.Errorf("authorized_fetch on: %s is still stored for unsigned fetches", k)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	var got map[string]any
	if err := s.Client.Call(ctx, "site.get_settings", nil, &got); err != nil || got["authorized_fetch"] != true || got["allow_quotes"] != false {
		t.Fatalf("site.get_settings = %v, %v; want authorized_fetch true, allow_quotes false", got, err)
	}
}
