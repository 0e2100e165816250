package federation_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// TestCollectionsFromTheStore reads the followers collection and the
// follower-only checks through the app's real ports over SQLite.
func TestCollectionsFromTheStore(t *testing.T) {
	t.Parallel()
	s, _ := site(t)
	st := s.App.Store()
	var personaID string
	err := st.Update(ctx, func(tx store.Tx) error {
		p, err := tx.Personas().Primary()
		if err != nil {
			return err
		}
		personaID = p.ID
		for i := 0; i < 25; i++ {
			a := &murlog.RemoteActor{URI: fmt.Sprintf("https://r%02d.example/users/u", i), Username: "u",
				Domain: fmt.Sprintf("r%02d.example", i), Inbox: fmt.Sprintf("https://r%02d.example/users/u/inbox", i)}
			if err := tx.RemoteActors().Upsert(a); err != nil {
				return err
			}
			f := &murlog.Follower{ID: murlog.NewID(), PersonaID: p.ID, ActorID: a.ID,
				ActivityURI: a.URI + "#follow", State: murlog.FollowAccepted, CreatedAt: tx.Now()}
			if err := tx.Followers().Create(f); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var username string
	st.View(ctx, func(tx store.Tx) error {
		p, err := tx.Personas().Get(personaID)
		username = p.Username
		return err
	})
	base := s.Server.URL
	top := get(t, base, "/@"+username+"/followers", apAccept).json(t)
	if top["totalItems"] != float64(25) {
		t.Fatalf("followers totalItems: got %v; want 25", top["totalItems"])
	}
	first, ok := top["first"].(string)
	if !ok {
		t.Fatalf("followers: no first page link in %v", top)
	}
	seen := map[string]bool{}
	for page, n := first, 0; page != "" && n < 5; n++ {
		r := get(t, "", page, apAccept)
		wantStatus(t, r, http.StatusOK, "followers page")
		m := r.json(t)
		items, _ := m["orderedItems"].([]any)
		for _, it := range items {
			seen[it.(string)] = true
		}
		page, _ = m["next"].(string)
	}
	if len(seen) != 25 {
		t.Fatalf("followers pages listed %d distinct actors; want all 25", len(seen))
	}
}

// TestServedNoteCarriesItsMentions: the note at the post's URL names the
// mentioned actors as the delivered one does (a Mention tag each, and cc
// for a public post), so a server that fetches it sees the same document.
func TestServedNoteCarriesItsMentions(t *testing.T) {
	t.Parallel()
	s, _ := site(t)
	pub := createPost(t, s, map[string]any{"content": "hi @bob@r.example"})
	const bob = "https://r.example/users/bob"
	err := s.App.Store().Update(ctx, func(tx store.Tx) error {
		p, err := tx.Posts().Get(pub.ID)
		if err != nil {
			return err
		}
		p.Mentions = []murlog.PostMention{{URI: bob, Name: "@bob@r.example", URL: "https://r.example/@bob", Inbox: bob + "/inbox"}}
		return tx.Posts().Update(p)
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Settle(t) // written behind the app's back: the worker renders it
	n := get(t, s.Server.URL, "/@alice/"+pub.ID, apAccept).json(t)
	tags, _ := json.Marshal(n["tag"])
	cc, _ := json.Marshal(n["cc"])
	if !strings.Contains(string(tags), `{"href":"`+bob+`","name":"@bob@r.example","type":"Mention"}`) || !strings.Contains(string(cc), bob) {
		t.Fatalf("served note tag %s cc %s; want bob's Mention and bob in cc", tags, cc)
	}
}

// TestArticleFederatedAsNote: the owner may federate a short titled post
// as a Note (Mastodon shows an Article as its title and a link); the
// note opens with the title. A note cannot ask for it.
func TestArticleFederatedAsNote(t *testing.T) {
	t.Parallel()
	s, _ := site(t)
	art := createPost(t, s, map[string]any{"kind": "article", "title": "Tea & cake", "content": "Short *and* sweet."})
	n := get(t, s.Server.URL, "/@alice/"+art.ID, apAccept).json(t)
	if nm, _ := n["nameMap"].(map[string]any); n["type"] != "Article" || nm["und"] != "Tea & cake" || n["name"] != nil {
		t.Fatalf("default article: type %v name %v nameMap %v; want an Article titled in nameMap only", n["type"], n["name"], n["nameMap"])
	}
	var v map[string]any
	if err := s.Client.Call(ctx, "posts.update", map[string]any{"id": art.ID, "federate_as": "note"}, &v); err != nil || v["federate_as"] != "note" {
		t.Fatalf("posts.update federate_as note: %v, %v", v, err)
	}
	n = get(t, s.Server.URL, "/@alice/"+art.ID, apAccept).json(t)
	content, _ := n["content"].(string)
	if n["type"] != "Note" || n["name"] != nil || !strings.HasPrefix(content, "<p><strong>Tea &amp; cake</strong></p><p>Short <em>and</em> sweet.</p>") {
		t.Fatalf("article as note: type %v name %v content %q; want a Note opening with the escaped title", n["type"], n["name"], content)
	}
	err := s.Client.Call(ctx, "posts.create", map[string]any{"content": "hi", "federate_as": "note"}, nil)
	if err == nil || !strings.Contains(err.Error(), "federate_as") {
		t.Fatalf("a note with federate_as: got %v; want invalid federate_as", err)
	}
	err = s.Client.Call(ctx, "posts.create", map[string]any{"kind": "article", "title": "x", "content": "y", "federate_as": "page"}, nil)
	if err == nil || !strings.Contains(err.Error(), "federate_as") {
		t.Fatalf("federate_as page: got %v; want invalid federate_as", err)
	}
}
