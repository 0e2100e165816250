package federation_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/federation"
)

var (
	bsite = murlog.Site{Scheme: "https", Domain: "blog.example"}
	bwhen = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
)

func bpersona() *murlog.Persona {
	return &murlog.Persona{ID: murlog.NewID(), Username: "alice", PublicKeyPEM: "-----BEGIN PUBLIC KEY-----\nx\n-----END PUBLIC KEY-----\n",
		CreatedAt: bwhen, UpdatedAt: bwhen.Add(time.Hour)}
}

func bpost(v murlog.Visibility) *murlog.Post {
	pub := bwhen
	return &murlog.Post{ID: murlog.NewID(), Kind: murlog.KindNote, Content: "<p>hi</p>", Visibility: v,
		PublishedAt: &pub, CreatedAt: bwhen, UpdatedAt: bwhen}
}

func encode(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

func TestPostActivities(t *testing.T) {
	t.Parallel()
	p, post := bpersona(), bpost(murlog.VisibilityDirect)
	o := federation.PostOptions{Mentions: []federation.Mention{{Href: "https://r.example/users/bob", Name: "@bob@r.example"}}, InReplyTo: "https://r.example/notes/1"}
	c := encode(t, federation.CreateActivity(bsite, p, post, o))
	obj, _ := c["object"].(map[string]any)
	if str(c, "type") != "Create" || str(c, "id") != "https://blog.example/@alice/activities/"+post.ID || obj["@context"] != nil {
		t.Errorf("Create = %v", c)
	}
	assertAddressed(t, "direct Create", c, []string{"https://r.example/users/bob"}, nil)
	if str(obj, "inReplyTo") != o.InReplyTo || !strings.Contains(func() string { b, _ := json.Marshal(obj["tag"]); return string(b) }(), `"type":"Mention"`) {
		t.Errorf("Create object = %v; want inReplyTo and a Mention tag", obj)
	}
	if ip, _ := json.Marshal(obj["interactionPolicy"]); string(ip) != `{"canQuote":{"automaticApproval":[]}}` {
		t.Errorf("direct post interactionPolicy = %s; want no automatic quote approval", ip)
	}

	// Update always carries updated, even for a post never edited.
	u := encode(t, federation.UpdateActivity(bsite, p, post, o))
	uo, _ := u["object"].(map[string]any)
	if str(u, "type") != "Update" || str(uo, "updated") == "" || !strings.Contains(str(u, "id"), "#updates/") {
		t.Errorf("Update = %v; want an object with updated and a per-version id", u)
	}
	post.UpdatedAt = bwhen.Add(time.Minute)
	if u2 := encode(t, federation.UpdateActivity(bsite, p, post, o)); str(u2, "id") == str(u, "id") {
		t.Errorf("two versions share the Update id %s", str(u, "id"))
	}

	d := encode(t, federation.DeleteActivity(bsite, p, post.ID, bwhen))
	do, _ := d["object"].(map[string]any)
	if str(d, "type") != "Delete" || str(do, "type") != "Tombstone" || str(do, "id") != bsite.PostURL("alice", post.ID) {
		t.Errorf("Delete = %v", d)
	}
}

func TestSocialActivities(t *testing.T) {
	t.Parallel()
	p := bpersona()
	actor := bsite.ActorURL("alice")
	remote := "https://r.example/users/bob"
	follow := federation.FollowActivity(bsite, p, bsite.ActivityURL("alice", "f1"), remote)
	undo := encode(t, federation.UndoActivity(bsite, p, bsite.ActivityURL("alice", "u1"), follow))
	inner, _ := undo["object"].(map[string]any)
	if str(undo, "type") != "Undo" || str(inner, "type") != "Follow" || str(inner, "id") != bsite.ActivityURL("alice", "f1") ||
		str(inner, "object") != remote || inner["@context"] != nil {
		t.Errorf("Undo(Follow) = %v; want the original Follow embedded with its id", undo)
	}
	acc := encode(t, federation.AcceptActivity(bsite, p, bsite.ActivityURL("alice", "a1"), "https://r.example/follows/9", remote))
	af, _ := acc["object"].(map[string]any)
	if str(acc, "type") != "Accept" || str(af, "type") != "Follow" || str(af, "id") != "https://r.example/follows/9" ||
		str(af, "actor") != remote || str(af, "object") != actor {
		t.Errorf("Accept = %v", acc)
	}
	if rej := encode(t, federation.RejectActivity(bsite, p, "x", "y", remote)); str(rej, "type") != "Reject" {
		t.Errorf("Reject = %v", rej)
	}
	ann := encode(t, federation.AnnounceActivity(bsite, p, "ann", "https://r.example/notes/1", remote, bwhen))
	assertAddressed(t, "Announce", ann, []string{activitypub.Public}, []string{bsite.FollowersURL("alice"), remote})
	for typ, a := range map[string]*activitypub.Activity{
		"Like":  federation.LikeActivity(bsite, p, "l", "https://r.example/notes/1", remote),
		"Block": federation.BlockActivity(bsite, p, "b", remote),
	} {
		if m := encode(t, a); str(m, "type") != typ || str(m, "actor") != actor || m["@context"] == nil {
			t.Errorf("%s = %v", typ, m)
		}
	}
	ua := encode(t, federation.UpdateActorActivity(bsite, p))
	uo, _ := ua["object"].(map[string]any)
	if str(ua, "type") != "Update" || str(uo, "type") != "Person" || str(ua, "updated") != "2026-12-01T11:00:00Z" {
		t.Errorf("Update(Person) = %v", ua)
	}
}

// How Mastodon, GoToSocial and Misskey show a received post, reduced to
// the rules their source applies (see PostObject's comment): what the
// reader sees first (the content warning, or nothing), the title, and
// the text or link.
type shown struct{ cw, title, text string }

func mastodonShows(o map[string]any) shown {
	if o["type"] == "Article" { // converted: name (or nameMap), summary, a link to url
		title := str(o, "name")
		if nm, ok := o["nameMap"].(map[string]any); title == "" && ok {
			for _, v := range nm {
				title, _ = v.(string)
			}
		}
		return shown{title: title, text: str(o, "summary") + " " + str(o, "url")}
	}
	return shown{cw: str(o, "summary"), text: str(o, "content")}
}

func gotosocialShows(o map[string]any) shown {
	cw := str(o, "summary") // else the name, a plain string only
	if cw == "" {
		cw = str(o, "name")
	}
	return shown{cw: cw, text: str(o, "content")}
}

func misskeyShows(o map[string]any) shown {
	return shown{cw: str(o, "summary"), text: str(o, "content")}
}

// An article reaches Mastodon as its title and a link, and GoToSocial and
// Misskey as its title and text, with no content warning anywhere; the
// Note form shows everywhere in full, the title first.
func TestArticleShapeOnEachServer(t *testing.T) {
	t.Parallel()
	p := bpersona()
	art := bpost(murlog.VisibilityPublic)
	art.Kind, art.Title, art.Content = murlog.KindArticle, "Tea & cake", "<p>The body.</p>"
	url := bsite.PostURL(p.Username, art.ID)
	o := encode(t, federation.PostObject(bsite, p, art, federation.PostOptions{}))
	if m := mastodonShows(o); m.cw != "" || m.title != "Tea & cake" || !strings.Contains(m.text, url) {
		t.Errorf("Mastodon shows %+v; want the title and a link to %s, no content warning", m, url)
	}
	for server, s := range map[string]shown{"GoToSocial": gotosocialShows(o), "Misskey": misskeyShows(o)} {
		if s.cw != "" || !strings.Contains(s.text, "Tea &amp; cake") || !strings.Contains(s.text, "The body.") {
			t.Errorf("%s shows %+v; want the title and the text, no content warning", server, s)
		}
	}
	// A real content warning stays one everywhere.
	art.Summary = "spoilers"
	o = encode(t, federation.PostObject(bsite, p, art, federation.PostOptions{}))
	if g := gotosocialShows(o); g.cw != "spoilers" {
		t.Errorf("GoToSocial content warning %q; want spoilers", g.cw)
	}
	art.Summary, art.AsNote = "", true
	o = encode(t, federation.PostObject(bsite, p, art, federation.PostOptions{}))
	for server, s := range map[string]shown{"Mastodon": mastodonShows(o), "GoToSocial": gotosocialShows(o), "Misskey": misskeyShows(o)} {
		if s.cw != "" || !strings.HasPrefix(s.text, "<p><strong>Tea &amp; cake</strong></p>") || !strings.Contains(s.text, "The body.") {
			t.Errorf("as a Note, %s shows %+v; want all of it, the title first", server, s)
		}
	}
	// The language, when the post has one, keys the title.
	art.AsNote, art.Language = false, "ja"
	o = encode(t, federation.PostObject(bsite, p, art, federation.PostOptions{}))
	if nm, _ := o["nameMap"].(map[string]any); nm["ja"] != "Tea & cake" || o["name"] != nil {
		t.Errorf("name %v nameMap %v; want the title under ja, no name", o["name"], o["nameMap"])
	}
	if cm, _ := o["contentMap"].(map[string]any); cm["ja"] != o["content"] {
		t.Errorf("contentMap %v differs from content %v", o["contentMap"], o["content"])
	}
}
