package social_test

import (
	"slices"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

func TestRemotePosts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	carol := e.actor("carol", "m.example")
	mallory := e.actor("mallory", "evil.example")
	f, err := e.svc.Follow(ctx, e.alice.ID, carol.ID)
	must(t, err)
	must(t, e.svc.Accepted(ctx, carol.ID, FollowRef(f.ActivityURI)))
	mine := e.post(e.alice, murlog.VisibilityPublic)

	// A reply to alice's post that also mentions alice and bob.
	reply := storetest.NewRemotePost(carol, 1, e.clock.Now())
	reply.InReplyTo = site.PostURL("alice", mine.ID)
	reply.Mentions = []string{site.ActorURL("alice"), site.ActorURL("bob"), "https://m.example/users/zed"}
	must(t, e.svc.Store(ctx, reply))
	must(t, e.svc.Store(ctx, reply)) // redelivered: nothing twice
	if got := e.notifications(e.alice); !slices.Equal(got, []murlog.NotificationKind{murlog.NotifyReply}) {
		t.Errorf("alice's notifications = %v; want one reply (not also a mention)", got)
	}
	if got := e.notifications(e.bob); !slices.Equal(got, []murlog.NotificationKind{murlog.NotifyMention}) {
		t.Errorf("bob's notifications = %v; want one mention", got)
	}
	quote := storetest.NewRemotePost(carol, 2, e.clock.Now())
	quote.QuoteOf = site.PostURL("alice", mine.ID)
	must(t, e.svc.Store(ctx, quote))
	if got := e.notifications(e.alice); !slices.Equal(got, []murlog.NotificationKind{murlog.NotifyQuote, murlog.NotifyReply}) {
		t.Errorf("alice's notifications after a quote = %v; want quote, reply", got)
	}
	must(t, e.svc.Delete(ctx, carol.ID, quote.URI))

	// Timelines: alice follows carol, bob is mentioned.
	for _, p := range []*murlog.Persona{e.alice, e.bob} {
		items, err := e.svc.Home(ctx, p.ID, "", 10)
		must(t, err)
		var remote int
		for _, it := range items {
			if it.RemotePost != nil && it.RemotePost.ID == reply.ID {
				remote++
			}
		}
		if remote != 1 {
			t.Errorf("%s's home has the reply %d times; want once", p.Username, remote)
		}
	}

	// Only the owner may update or delete.
	forged := storetest.NewRemotePost(carol, 1, e.clock.Now())
	forged.Content = "<p>forged</p>"
	wantCode(t, "Update by another actor", e.svc.Update(ctx, mallory.ID, forged), murlog.EForbidden)
	forged.ActorID = mallory.ID
	wantCode(t, "Create of an id on another server", e.svc.Store(ctx, forged), murlog.EForbidden)
	sameHost := e.actor("eve", "m.example")
	forged.ActorID = sameHost.ID
	wantCode(t, "Create of another actor's URI on the same server", e.svc.Store(ctx, forged), murlog.EForbidden)
	wantCode(t, "Delete by another actor", e.svc.Delete(ctx, mallory.ID, reply.URI), murlog.EForbidden)
	e.view(func(tx store.Tx) error {
		got, err := tx.RemotePosts().GetByURI(reply.URI)
		if err != nil || got.Content != reply.Content || got.ActorID != carol.ID {
			t.Errorf("after forged Update/Create/Delete the post is %+v, %v; want it untouched", got, err)
		}
		return nil
	})
	edit := storetest.NewRemotePost(carol, 1, e.clock.Now())
	edit.Content, edit.ActorID = "<p>edited</p>", "" // the owner comes from the stored row
	now := e.clock.Now()
	edit.UpdatedAt = &now
	must(t, e.svc.Update(ctx, carol.ID, edit))
	wantCode(t, "Update of an unknown post", e.svc.Update(ctx, carol.ID, storetest.NewRemotePost(carol, 99, now)), murlog.ENotFound)
	e.view(func(tx store.Tx) error {
		got, _ := tx.RemotePosts().GetByURI(reply.URI)
		if got.Content != "<p>edited</p>" || got.ActorID != carol.ID {
			t.Errorf("after the owner's Update: %q by %s", got.Content, got.ActorID)
		}
		return nil
	})
	must(t, e.svc.Delete(ctx, carol.ID, reply.URI))
	wantCode(t, "Delete twice", e.svc.Delete(ctx, carol.ID, reply.URI), murlog.ENotFound)

	// Boosts of remote posts reach the booster's followers.
	zed := e.actor("zed", "z.example")
	zp := storetest.NewRemotePost(zed, 1, e.clock.Now())
	must(t, e.svc.Store(ctx, zp))
	must(t, e.svc.Boosted(ctx, carol.ID, carol.URI+"/statuses/9/activity", zp.ID))
	items, _ := e.svc.Home(ctx, e.alice.ID, "", 10)
	if len(items) == 0 || items[0].Entry == nil || items[0].Entry.BoostedBy != carol.ID {
		t.Errorf("alice's newest home item = %+v; want zed's post boosted by carol", items)
	}
	wantCode(t, "Undo of the boost by another actor is a no-op", e.svc.Unboosted(ctx, mallory.ID, carol.URI+"/statuses/9/activity"), "")
	must(t, e.svc.Unboosted(ctx, carol.ID, carol.URI+"/statuses/9/activity"))
	if after, _ := e.svc.Home(ctx, e.alice.ID, "", 10); len(after) != len(items)-1 {
		t.Errorf("home after Undo Announce has %d items; want %d", len(after), len(items)-1)
	}

	// Move tells the followers; Delete of the actor removes everything.
	must(t, e.svc.Moved(ctx, carol.ID, "https://n.example/users/carol"))
	must(t, e.svc.Moved(ctx, carol.ID, "https://n.example/users/carol"))
	// The reply's notification went with the deleted reply, as on Mastodon.
	if got := e.notifications(e.alice); !slices.Equal(got, []murlog.NotificationKind{murlog.NotifyMove}) {
		t.Errorf("alice's notifications after Move = %v; want move (once)", got)
	}
	must(t, e.svc.DeleteActor(ctx, carol.ID))
	if p := e.persona(e.alice.ID); p.FollowingCount != 0 {
		t.Errorf("following_count after the followed actor's Delete = %d; want 0", p.FollowingCount)
	}
	if got := e.notifications(e.alice); len(got) != 0 {
		t.Errorf("notifications from a deleted actor = %v; want none", got)
	}
}

func TestNotificationsPinsHome(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	carol := e.actor("carol", "m.example")
	var posts []*murlog.Post
	for range 7 {
		e.clock.Advance(time.Minute)
		p := e.post(e.alice, murlog.VisibilityPublic)
		posts = append(posts, p)
		must(t, e.svc.Liked(ctx, carol.ID, p.ID, carol.URI+"/likes/"+p.ID, ""))
	}
	if n, _ := e.svc.CountUnread(ctx, e.alice.ID); n != 7 {
		t.Errorf("CountUnread = %d; want 7", n)
	}
	ns, err := e.svc.Notifications(ctx, e.alice.ID, []murlog.NotificationKind{murlog.NotifyFavourite}, "", 3)
	must(t, err)
	next, err := e.svc.Notifications(ctx, e.alice.ID, nil, ns[2].ID, 10)
	must(t, err)
	if len(ns) != 3 || len(next) != 4 {
		t.Errorf("pages of notifications = %d, %d; want 3, 4", len(ns), len(next))
	}
	_, err = e.svc.Notifications(ctx, e.alice.ID, []murlog.NotificationKind{"poke"}, "", 3)
	wantCode(t, "unknown kind", err, murlog.EInvalid)
	if n, _ := e.svc.Read(ctx, e.alice.ID, ns[0].ID, ns[1].ID); n != 2 {
		t.Errorf("Read(2) = %d", n)
	}
	_, err = e.svc.Read(ctx, e.alice.ID, "x")
	wantCode(t, "Read(bad id)", err, murlog.EInvalid)
	if n, _ := e.svc.ReadAll(ctx, e.alice.ID); n != 5 {
		t.Errorf("ReadAll = %d; want 5", n)
	}
	must(t, e.svc.DeleteNotification(ctx, e.alice.ID, ns[0].ID))
	wantCode(t, "delete another persona's notification", e.svc.DeleteNotification(ctx, e.bob.ID, ns[1].ID), murlog.ENotFound)

	for _, p := range posts[:5] {
		must(t, e.svc.Pin(ctx, e.alice.ID, p.ID))
	}
	must(t, e.svc.Pin(ctx, e.alice.ID, posts[0].ID))
	wantCode(t, "sixth pin", e.svc.Pin(ctx, e.alice.ID, posts[5].ID), murlog.EConflict)
	wantCode(t, "pin of another persona's post", e.svc.Pin(ctx, e.bob.ID, posts[5].ID), murlog.ENotFound)
	draft := storetest.NewPost(e.alice.ID, nil, murlog.VisibilityPublic, e.clock.Now())
	priv := e.post(e.alice, murlog.VisibilityFollowers)
	e.update(func(tx store.Tx) error { return tx.Posts().Create(draft) })
	wantCode(t, "pin of a draft", e.svc.Pin(ctx, e.alice.ID, draft.ID), murlog.EInvalid)
	wantCode(t, "pin of a followers-only post", e.svc.Pin(ctx, e.alice.ID, priv.ID), murlog.EInvalid)
	must(t, e.svc.Unpin(ctx, e.alice.ID, posts[0].ID))
	must(t, e.svc.Unpin(ctx, e.alice.ID, posts[0].ID))
	if pins, _ := e.svc.Pins(ctx, e.alice.ID); len(pins) != 4 || pins[0].PostID != posts[4].ID {
		t.Errorf("Pins = %v; want 4, newest pin first", pins)
	}

	// Home pages through own posts (the followers-only one too) by cursor.
	var seen []string
	before := ""
	for {
		page, err := e.svc.Home(ctx, e.alice.ID, before, 3)
		must(t, err)
		if len(page) == 0 {
			break
		}
		for _, it := range page {
			seen = append(seen, it.ID)
		}
		before = page[len(page)-1].ID
	}
	if len(seen) != 8 || seen[0] != priv.ID || seen[7] != posts[0].ID {
		t.Errorf("home = %v; want the 8 published posts newest first", seen)
	}
	_, err = e.svc.Home(ctx, e.alice.ID, "bad", 3)
	wantCode(t, "Home(bad cursor)", err, murlog.EInvalid)

	sum, err := e.svc.Deliveries(ctx, posts[0].ID)
	if err != nil || sum.Pending+sum.Delivered+sum.Failed+sum.Skipped != 0 {
		t.Errorf("Deliveries of an undelivered post = %+v, %v; want zero counts", sum, err)
	}
}
