package api_test

import (
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

// received files a remote post of a through the social service, as the
// inbox processing does.
func (e *socialEnv) received(a *murlog.RemoteActor, n int, edit func(*murlog.RemotePost)) *murlog.RemotePost {
	e.t.Helper()
	rp := storetest.NewRemotePost(a, n, time.Now())
	if edit != nil {
		edit(rp)
	}
	if err := e.svc.Store(ctx, rp); err != nil {
		e.t.Fatal(err)
	}
	return rp
}

// followed makes alice follow a, accepted.
func (e *socialEnv) followed(a *murlog.RemoteActor) {
	e.t.Helper()
	f, err := e.svc.Follow(ctx, "", a.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.svc.Accepted(ctx, a.ID, social.FollowRef{ActivityURI: f.ActivityURI}); err != nil {
		e.t.Fatal(err)
	}
}

func TestTimelineHomeThreadsAndNotifications(t *testing.T) {
	t.Parallel()
	e := newSocialEnv(t)
	bob := e.actor("bob", "remote.example")
	e.followed(bob)
	mine := create(t, e.owner, map[string]any{"content": "hello fediverse"})
	mineURI := e.site.PostURL("alice", mine.ID)
	reply := e.received(bob, 1, func(rp *murlog.RemotePost) {
		rp.InReplyTo = mineURI
		rp.Mentions = []string{e.site.ActorURL("alice")}
	})
	child := e.received(bob, 2, func(rp *murlog.RemotePost) { rp.InReplyTo = reply.URI; rp.QuoteOf = mineURI })
	if _, err := e.svc.Requested(ctx, e.alice.ID, bob.ID, bob.URI+"/follows/1"); err != nil {
		t.Fatal(err)
	}

	var tl any
	e.call("timeline.home", nil, &tl)
	items, _ := field(tl, "items").([]any)
	if len(items) != 3 {
		t.Fatalf("timeline.home = %v; want 3 items (2 received, 1 own)", tl)
	}
	kinds := map[any]int{}
	for _, it := range items {
		kinds[field(it, "kind")]++
	}
	if kinds["local"] != 1 || kinds["remote"] != 2 {
		t.Errorf("timeline kinds = %v; want 1 local, 2 remote", kinds)
	}
	var page1 any
	e.call("timeline.home", map[string]any{"limit": 2}, &page1)
	next, _ := field(page1, "next_cursor").(string)
	var page2 any
	e.call("timeline.home", map[string]any{"limit": 2, "cursor": next}, &page2)
	if len(field(page1, "items").([]any)) != 2 || len(field(page2, "items").([]any)) != 1 || field(page2, "next_cursor") != nil {
		t.Errorf("timeline pages of 2: %v then %v", page1, page2)
	}

	var th any
	e.call("posts.get_thread", map[string]any{"id": mine.ID}, &th)
	if field(th, "post", "id") != mine.ID || len(field(th, "ancestors").([]any)) != 0 || field(th, "descendants", 0, "uri") != reply.URI {
		t.Errorf("thread of the local post = %v; want the reply below it", th)
	}
	// Replies of replies, local or remote, are descendants too.
	if ds, _ := field(th, "descendants").([]any); len(ds) != 2 || field(ds, 1, "uri") != child.URI {
		t.Errorf("descendants of the local post = %v; want the reply, then the reply to it", ds)
	}
	own := create(t, e.owner, map[string]any{"content": "thanks", "in_reply_to": child.URI})
	var deep any
	e.call("posts.get_thread", map[string]any{"id": mine.ID}, &deep)
	if ds, _ := field(deep, "descendants").([]any); len(ds) != 3 || field(ds, 2, "id") != own.ID {
		t.Errorf("descendants after a local reply to the child = %v; want 3, the local reply last", ds)
	}
	var byURI any
	e.call("posts.get_thread", map[string]any{"uri": mineURI}, &byURI)
	if field(byURI, "post", "id") != mine.ID || field(byURI, "descendants", 0, "uri") != reply.URI {
		t.Errorf("thread by the local post's uri = %v", byURI)
	}
	e.call("posts.get_thread", map[string]any{"uri": child.URI}, &th)
	anc, _ := field(th, "ancestors").([]any)
	if len(anc) != 2 || field(anc, 0, "id") != mine.ID || field(anc, 1, "uri") != reply.URI {
		t.Errorf("ancestors of the child = %v; want local post then the reply", anc)
	}
	if field(th, "post", "quote", "id") != mine.ID {
		t.Errorf("child quote = %v; want the local post", field(th, "post", "quote"))
	}
	rpcErr(t, "thread of an unknown uri", e.owner.Call(ctx, "posts.get_thread", map[string]any{"uri": "https://remote.example/nope"}, nil), -32001, "not_found", 404)

	var count map[string]int
	e.call("notifications.count_unread", nil, &count)
	if count["count"] != 3 { // reply, quote, follow (the mention rides with the reply)
		t.Fatalf("count_unread = %v; want 3", count)
	}
	var ns any
	e.call("notifications.list", map[string]any{"kinds": []string{"reply"}}, &ns)
	if field(ns, "items", 0, "kind") != "reply" || field(ns, "items", 0, "post", "id") != mine.ID ||
		field(ns, "items", 0, "remote_post", "uri") != reply.URI || field(ns, "items", 0, "actor", "id") != bob.ID {
		t.Errorf("reply notification = %v", ns)
	}
	replyID := field(ns, "items", 0, "id")
	e.call("notifications.read", map[string]any{"ids": []any{replyID}}, nil)
	e.call("notifications.list", map[string]any{"unread": true}, &ns)
	if n := len(field(ns, "items").([]any)); n != 2 {
		t.Errorf("unread after reading one: %d; want 2", n)
	}
	e.call("notifications.list", map[string]any{"unread": true, "limit": 1}, &ns)
	if c, _ := field(ns, "next_cursor").(string); c == "" {
		t.Errorf("unread page of 1 = %v; want a next cursor", ns)
	}
	e.call("notifications.read_all", nil, nil)
	e.call("notifications.count_unread", nil, &count)
	if count["count"] != 0 {
		t.Errorf("count_unread after read_all = %v", count)
	}
	e.call("notifications.delete", map[string]any{"id": replyID}, nil)
	e.call("notifications.list", nil, &ns)
	if n := len(field(ns, "items").([]any)); n != 2 {
		t.Errorf("notifications after one deleted: %d; want 2", n)
	}
	rpcErr(t, "delete twice", e.owner.Call(ctx, "notifications.delete", map[string]any{"id": replyID}, nil), -32001, "not_found", 404)
	rpcErr(t, "unknown kind", e.owner.Call(ctx, "notifications.list", map[string]any{"kinds": []string{"poke"}}, nil), -32602, "invalid", 400)
}

func TestPinsDeliveriesAndPrimaryPersona(t *testing.T) {
	t.Parallel()
	e := newSocialEnv(t)
	pub := create(t, e.owner, map[string]any{"content": "pin me"})
	draft := create(t, e.owner, map[string]any{"content": "not yet", "published_at": nil})
	e.call("posts.pin", map[string]any{"id": pub.ID}, nil)
	e.call("posts.pin", map[string]any{"id": pub.ID}, nil) // pinned already: ok
	var pins []*murlog.Pin
	e.update(func(tx store.Tx) (err error) { pins, err = tx.Pins().List(e.alice.ID); return err })
	if len(pins) != 1 || pins[0].PostID != pub.ID {
		t.Errorf("pins = %+v; want the post", pins)
	}
	// The owner's views say which posts are pinned; others' say nothing.
	var got struct {
		Pinned *bool `json:"pinned"`
	}
	var list struct {
		Items []struct {
			ID     string `json:"id"`
			Pinned *bool  `json:"pinned"`
		} `json:"items"`
	}
	e.call("posts.get", map[string]any{"id": pub.ID}, &got)
	e.call("posts.list", map[string]any{"limit": 10}, &list)
	if got.Pinned == nil || !*got.Pinned {
		t.Errorf("posts.get of a pinned post: pinned %v; want true", got.Pinned)
	}
	for _, it := range list.Items {
		if it.Pinned == nil || *it.Pinned != (it.ID == pub.ID) {
			t.Errorf("posts.list item %s: pinned %v; want %v", it.ID, it.Pinned, it.ID == pub.ID)
		}
	}
	got.Pinned = nil
	if err := e.anon.Call(ctx, "posts.get", map[string]any{"id": pub.ID}, &got); err != nil || got.Pinned != nil {
		t.Errorf("anonymous posts.get: pinned %v, %v; want no member", got.Pinned, err)
	}
	ce := rpcErr(t, "pin a draft", e.owner.Call(ctx, "posts.pin", map[string]any{"id": draft.ID}, nil), -32602, "invalid", 400)
	if ce.Data.Field != "id" {
		t.Errorf("field = %q; want id", ce.Data.Field)
	}
	e.call("posts.unpin", map[string]any{"id": pub.ID}, nil)
	e.update(func(tx store.Tx) (err error) { pins, err = tx.Pins().List(e.alice.ID); return err })
	if len(pins) != 0 {
		t.Errorf("pins after unpin = %+v", pins)
	}

	now := time.Now()
	e.update(func(tx store.Tx) error {
		d := tx.Deliveries()
		if err := d.Add(pub.ID, now, "https://a.example/inbox", "https://b.example/inbox", "https://c.example/inbox", "https://d.example/inbox"); err != nil {
			return err
		}
		if err := d.Set(pub.ID, "https://a.example/inbox", murlog.DeliveryDelivered, "", now); err != nil {
			return err
		}
		if err := d.Set(pub.ID, "https://b.example/inbox", murlog.DeliveryFailed, "remote answered 500", now); err != nil {
			return err
		}
		return d.Set(pub.ID, "https://c.example/inbox", murlog.DeliverySkipped, "dead domain", now)
	})
	var dv any
	e.call("posts.deliveries", map[string]any{"id": pub.ID, "limit": 3}, &dv)
	if field(dv, "delivered") != float64(1) || field(dv, "failed") != float64(1) || field(dv, "skipped") != float64(1) || field(dv, "pending") != float64(1) {
		t.Errorf("posts.deliveries counts = %v", dv)
	}
	if field(dv, "inboxes", 1, "inbox") != "https://b.example/inbox" || field(dv, "inboxes", 1, "last_error") != "remote answered 500" ||
		field(dv, "inboxes", 1, "attempts") != float64(1) || field(dv, "next_cursor") != "https://c.example/inbox" {
		t.Errorf("posts.deliveries inboxes = %v", field(dv, "inboxes"))
	}
	e.call("posts.deliveries", map[string]any{"id": pub.ID, "cursor": "https://c.example/inbox"}, &dv)
	if field(dv, "inboxes", 0, "state") != "pending" || len(field(dv, "inboxes").([]any)) != 1 {
		t.Errorf("posts.deliveries page 2 = %v", dv)
	}

	var per any
	e.call("personas.get", nil, &per)
	if field(per, "id") != e.alice.ID || field(per, "primary") != true {
		t.Errorf("personas.get without id = %v; want the primary persona", per)
	}
	rpcErr(t, "personas.get of nobody", e.owner.Call(ctx, "personas.get", map[string]any{"id": murlog.NewID()}, nil), -32001, "not_found", 404)
}
