package api_test

import (
	"strings"
	"testing"

	"github.com/murlog/murlog/delivery"
)

func TestActorsLookupFetchesAndCaches(t *testing.T) {
	t.Parallel()
	e := newSocialEnv(t)
	var a any
	e.call("actors.lookup", map[string]any{"q": "@bob@" + e.fedi.host}, &a)
	if field(a, "uri") != e.fedi.bob() || field(a, "acct") != "bob@"+e.fedi.host || field(a, "display_name") != "Bob" {
		t.Fatalf("actors.lookup = %v; want bob at %s", a, e.fedi.bob())
	}
	if s, _ := field(a, "summary").(string); strings.Contains(s, "script") {
		t.Errorf("summary = %q; want the script removed", s)
	}
	rel := field(a, "relationship")
	if field(rel, "following") != "none" || field(rel, "followed_by") != "none" || field(rel, "blocking") != false {
		t.Errorf("relationship = %v; want none/none/false", rel)
	}
	id, _ := field(a, "id").(string)
	before := e.fetches.Load()
	var again any
	e.call("actors.lookup", map[string]any{"q": e.fedi.bob()}, &again)
	if field(again, "id") != id {
		t.Errorf("lookup by URL id = %v; want the cached %s", field(again, "id"), id)
	}
	if n := e.fetches.Load() - before; n != 0 {
		t.Errorf("second lookup made %d fetches; want 0 (cached)", n)
	}
	var got any
	e.call("actors.get", map[string]any{"id": id}, &got)
	if field(got, "uri") != e.fedi.bob() || field(got, "relationship", "following") != "none" {
		t.Errorf("actors.get = %v", got)
	}

	err := e.owner.Call(ctx, "actors.lookup", map[string]any{"q": e.fedi.URL + "/users/gone"}, nil)
	ce := rpcErr(t, "lookup of a 410 actor", err, -32005, "unavailable", 503)
	if !strings.Contains(ce.Message, e.fedi.host) || !strings.Contains(ce.Message, "410") {
		t.Errorf("message %q; want the host and the status", ce.Message)
	}
	rpcErr(t, "lookup on a closed port", e.owner.Call(ctx, "actors.lookup", map[string]any{"q": "nobody@127.0.0.1:1"}, nil), -32005, "unavailable", 503)
}

func TestActorsOutboxPagesAndFollowCollections(t *testing.T) {
	t.Parallel()
	e := newSocialEnv(t)
	var a any
	e.call("actors.lookup", map[string]any{"q": "bob@" + e.fedi.host}, &a)
	id := field(a, "id")

	var pg any
	e.call("actors.outbox", map[string]any{"id": id}, &pg)
	items, _ := field(pg, "items").([]any)
	if len(items) != 1 || field(items, 0, "uri") != e.fedi.note(1) || field(items, 0, "actor", "uri") != e.fedi.bob() {
		t.Fatalf("outbox page 1 = %v; want note 1 only (the boost left out)", pg)
	}
	content, _ := field(items, 0, "content").(string)
	if strings.Contains(content, "javascript:") || strings.Contains(content, "onclick") || !strings.Contains(content, "note 1") {
		t.Errorf("content = %q; want sanitized", content)
	}
	if field(items, 0, "visibility") != "public" || field(items, 0, "id") != "" || field(items, 0, "tags", 0) != "go" {
		t.Errorf("item = %v; want public, not cached (id \"\"), tag go", items[0])
	}
	if att, _ := field(items, 0, "attachments").([]any); len(att) != 2 || field(att, 0, "name") != "alt" || field(att, 1, "name") != "a tree in the snow" {
		t.Errorf("attachments = %v; want the http ones only, with their alt texts (name, or GoToSocial's summary)", field(items, 0, "attachments"))
	}
	next, _ := field(pg, "next_cursor").(string)
	if next != e.fedi.bob()+"/outbox?page=2" {
		t.Fatalf("next_cursor = %v", field(pg, "next_cursor"))
	}
	e.call("actors.outbox", map[string]any{"id": id, "cursor": next}, &pg)
	if field(pg, "items", 0, "uri") != e.fedi.note(2) || field(pg, "next_cursor") != nil {
		t.Errorf("outbox page 2 = %v; want note 2 (fetched by IRI) and no next", pg)
	}
	rpcErr(t, "cursor on another server", e.owner.Call(ctx, "actors.outbox", map[string]any{"id": id, "cursor": "http://127.0.0.1:1/x"}, nil), -32602, "invalid", 400)

	var fs any
	e.call("actors.followers", map[string]any{"id": id}, &fs)
	if field(fs, "total") != float64(3) || len(field(fs, "items").([]any)) != 3 || field(fs, "items", 0, "uri") != "https://a.example/users/1" {
		t.Errorf("actors.followers = %v; want 3 of 3", fs)
	}
	e.call("actors.following", map[string]any{"id": id}, &fs)
	if field(fs, "total") != float64(7) || len(field(fs, "items").([]any)) != 0 || field(fs, "next_cursor") != nil {
		t.Errorf("actors.following (hidden) = %v; want no items, total 7", fs)
	}
	var feat any
	e.call("actors.featured", map[string]any{"id": id}, &feat)
	if field(feat, "items", 0, "uri") != e.fedi.note(3) {
		t.Errorf("actors.featured = %v; want note 3", feat)
	}
}

func TestBrokenRemoteDocumentsAreUnavailable(t *testing.T) {
	t.Parallel()
	e := newSocialEnv(t)
	var a any
	e.call("actors.lookup", map[string]any{"q": "mallory@" + e.fedi.host}, &a)
	for _, m := range []string{"actors.outbox", "actors.featured", "actors.followers"} {
		err := e.owner.Call(ctx, m, map[string]any{"id": field(a, "id")}, nil)
		if m == "actors.followers" { // mallory publishes none
			rpcErr(t, m+" of an actor without one", err, -32001, "not_found", 404)
			continue
		}
		ce := rpcErr(t, m+" of a broken document", err, -32005, "unavailable", 503)
		if !strings.Contains(ce.Message, e.fedi.host) {
			t.Errorf("%s: message %q; want the host", m, ce.Message)
		}
	}
	rpcErr(t, "lookup of an unknown account", e.owner.Call(ctx, "actors.lookup", map[string]any{"q": "nobody@" + e.fedi.host}, nil),
		-32005, "unavailable", 503)
}

func TestFavouritesAndReblogsByURIAndID(t *testing.T) {
	t.Parallel()
	e := newSocialEnv(t)
	var a any
	e.call("actors.lookup", map[string]any{"q": "bob@" + e.fedi.host}, &a)

	e.call("favourites.create", map[string]any{"uri": e.fedi.note(1)}, nil)
	likes := jobs[delivery.ActivityPayload](e, delivery.TopicSendLike)
	if len(likes) != 1 || likes[0].Object != e.fedi.note(1) || likes[0].Inbox != e.fedi.bob()+"/inbox" {
		t.Fatalf("send_like jobs = %+v; want one Like of note 1 to bob's inbox", likes)
	}
	var pg any
	e.call("actors.outbox", map[string]any{"id": field(a, "id")}, &pg)
	postID, _ := field(pg, "items", 0, "id").(string)
	if postID == "" || field(pg, "items", 0, "favourited") != true || field(pg, "items", 0, "reblogged") != false {
		t.Fatalf("outbox item after the like = %v; want cached and favourited", field(pg, "items", 0))
	}
	e.call("favourites.create", map[string]any{"post_id": postID}, nil) // liked already: nothing new
	if n := len(jobs[delivery.ActivityPayload](e, delivery.TopicSendLike)); n != 0 {
		t.Errorf("liking again queued %d Likes; want 0", n)
	}
	e.call("favourites.delete", map[string]any{"uri": e.fedi.note(1)}, nil)
	undo := jobs[delivery.ActivityPayload](e, delivery.TopicSendUndoLike)
	if len(undo) != 1 || undo[0].ActivityID != likes[0].ActivityID {
		t.Errorf("send_undo_like = %+v; want the Undo of %s", undo, likes[0].ActivityID)
	}

	e.call("reblogs.create", map[string]any{"post_id": postID}, nil)
	boosts := jobs[delivery.AnnouncePayload](e, delivery.TopicSendAnnounce)
	if len(boosts) != 1 || boosts[0].Object != e.fedi.note(1) {
		t.Fatalf("send_announce = %+v", boosts)
	}
	e.call("actors.outbox", map[string]any{"id": field(a, "id")}, &pg)
	if field(pg, "items", 0, "reblogged") != true || field(pg, "items", 0, "favourited") != false {
		t.Errorf("after boost and unlike: %v", field(pg, "items", 0))
	}
	e.call("reblogs.delete", map[string]any{"post_id": postID}, nil)
	if undo := jobs[delivery.AnnouncePayload](e, delivery.TopicSendUndoAnnounce); len(undo) != 1 || undo[0].ActivityID != boosts[0].ActivityID {
		t.Errorf("send_undo_announce = %+v", undo)
	}

	rpcErr(t, "favourite of an unknown uri on a closed port", e.owner.Call(ctx, "favourites.create",
		map[string]any{"uri": "http://127.0.0.1:1/statuses/9"}, nil), -32005, "unavailable", 503)
	rpcErr(t, "unfavourite of an uncached uri", e.owner.Call(ctx, "favourites.delete",
		map[string]any{"uri": e.fedi.note(2)}, nil), -32001, "not_found", 404)
	rpcErr(t, "both post_id and uri", e.owner.Call(ctx, "reblogs.create",
		map[string]any{"post_id": postID, "uri": e.fedi.note(1)}, nil), -32602, "invalid", 400)
}

func TestRemoteMethodsWithoutFederation(t *testing.T) {
	t.Parallel()
	e := startSocialEnv(t, false)
	a := e.actor("carol", "remote.example")
	for m, p := range map[string]map[string]any{
		"actors.lookup":     {"q": "carol@remote.example"},
		"actors.outbox":     {"id": a.ID},
		"actors.followers":  {"id": a.ID},
		"actors.featured":   {"id": a.ID},
		"favourites.create": {"uri": "https://remote.example/notes/1"},
	} {
		ce := rpcErr(t, m+" without a Remote", e.owner.Call(ctx, m, p, nil), -32005, "unavailable", 503)
		if !strings.Contains(ce.Message, "federation is not configured") {
			t.Errorf("%s: message %q", m, ce.Message)
		}
	}
	var got any
	e.call("actors.get", map[string]any{"id": a.ID}, &got) // the cache is still readable
	if field(got, "acct") != "carol@remote.example" {
		t.Errorf("actors.get = %v", got)
	}
}
