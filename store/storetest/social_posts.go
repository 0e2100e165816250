package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

func testRemotePosts(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	a := seedActor(t, s, "bob", "b.example", false, c.t)
	p := NewRemotePost(a, 1, c.t)
	p.Mentions = []string{"https://l/@alice"}
	update(t, s, func(tx store.Tx) error { return tx.RemotePosts().Upsert(p) })
	first := p.ID
	c.t = c.t.Add(time.Hour)
	edited := NewRemotePost(a, 1, c.t)
	edited.Content, edited.UpdatedAt, edited.Tags = "<p>edited</p>", &c.t, nil
	update(t, s, func(tx store.Tx) error { return tx.RemotePosts().Upsert(edited) })
	if edited.ID != first || !edited.ReceivedAt.Equal(newClock().t) {
		t.Errorf("Upsert of the same URI: id %s received %v; want %s and the first receipt", edited.ID, edited.ReceivedAt, first)
	}
	view(t, s, func(tx store.Tx) error {
		got, err := tx.RemotePosts().GetByURI(p.URI)
		if err != nil || got.Content != "<p>edited</p>" || got.UpdatedAt == nil || len(got.Tags) != 0 ||
			len(got.Attachments) != 1 || got.Attachments[0].Type != "Image" || len(got.Mentions) != 0 {
			t.Errorf("GetByURI after edit = %+v, %v; want the edited values", got, err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		for i := 2; i < 5; i++ {
			if err := tx.RemotePosts().Upsert(NewRemotePost(a, i, c.t)); err != nil {
				return err
			}
		}
		n, err := tx.RemotePosts().DeleteByActor(a.ID)
		if n != 4 {
			t.Errorf("DeleteByActor = %d; want 4", n)
		}
		return err
	})
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.RemotePosts().Delete(first) }); code(err) != murlog.ENotFound {
		t.Errorf("Delete of a deleted post err = %v; want not_found", err)
	}
}

func testInteractions(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	per := seedPersona(t, s, c.t)
	pub := c.t
	post := NewPost(per.ID, &pub, murlog.VisibilityPublic, c.t)
	a := seedActor(t, s, "bob", "b.example", false, c.t)
	b := seedActor(t, s, "carol", "b.example", false, c.t)
	rp := NewRemotePost(a, 1, c.t)
	update(t, s, func(tx store.Tx) error {
		if err := tx.Posts().Create(post); err != nil {
			return err
		}
		return tx.RemotePosts().Upsert(rp)
	})
	in := func(actor *murlog.RemoteActor, kind murlog.InteractionKind, n int) *murlog.Interaction {
		return &murlog.Interaction{ID: murlog.NewID(), Kind: kind, ActorID: actor.ID, PostID: post.ID,
			ActivityURI: fmt.Sprintf("%s/%s/%d", actor.URI, kind, n), CreatedAt: c.t}
	}
	out := &murlog.Interaction{ID: murlog.NewID(), Kind: murlog.InteractionLike, PersonaID: per.ID, ObjectURI: rp.URI,
		RemotePostID: rp.ID, ActivityURI: "https://l/@alice/activities/1", CreatedAt: c.t}
	update(t, s, func(tx store.Tx) error {
		for _, i := range []*murlog.Interaction{in(a, murlog.InteractionLike, 1), in(b, murlog.InteractionLike, 1), in(a, murlog.InteractionAnnounce, 1), out} {
			if err := tx.Interactions().Create(i); err != nil {
				return err
			}
		}
		return nil
	})
	for _, tc := range []struct {
		name string
		i    *murlog.Interaction
		want murlog.Code
	}{
		{"same actor likes again with a new id", in(a, murlog.InteractionLike, 2), murlog.EConflict},
		{"activity id reused", &murlog.Interaction{ID: murlog.NewID(), Kind: murlog.InteractionLike, ActorID: b.ID, PostID: post.ID, ActivityURI: out.ActivityURI, CreatedAt: c.t}, murlog.EConflict},
		{"neither actor nor persona", &murlog.Interaction{ID: murlog.NewID(), Kind: murlog.InteractionLike, ActivityURI: "z", CreatedAt: c.t}, murlog.EInvalid},
	} {
		if err := s.Update(ctx, func(tx store.Tx) error { return tx.Interactions().Create(tc.i) }); code(err) != tc.want {
			t.Errorf("Create (%s) err = %v; want %s", tc.name, err, tc.want)
		}
	}
	view(t, s, func(tx store.Tx) error {
		if l, r, err := tx.Interactions().Counts(post.ID); l != 2 || r != 1 || err != nil {
			t.Errorf("Counts = %d likes, %d boosts, %v; want 2, 1", l, r, err)
		}
		if got, err := tx.Interactions().GetOutbound(per.ID, murlog.InteractionLike, rp.URI); err != nil || got.ID != out.ID || got.Inbound() {
			t.Errorf("GetOutbound = %+v, %v; want the outbound like", got, err)
		}
		if got, err := tx.Interactions().GetInbound(b.ID, murlog.InteractionLike, post.ID); err != nil || !got.Inbound() {
			t.Errorf("GetInbound = %+v, %v; want carol's like", got, err)
		}
		got, err := tx.Interactions().GetByActivity(out.ActivityURI)
		if err != nil || got.RemotePostID != rp.ID {
			t.Errorf("GetByActivity = %+v, %v; want the outbound like", got, err)
		}
		return nil
	})
	// A pruned or deleted remote post leaves the outbound like with its URI.
	update(t, s, func(tx store.Tx) error { return tx.RemotePosts().Delete(rp.ID) })
	view(t, s, func(tx store.Tx) error {
		got, err := tx.Interactions().GetByActivity(out.ActivityURI)
		if err != nil || got.RemotePostID != "" || got.ObjectURI != rp.URI {
			t.Errorf("after the remote post went, outbound like = %+v, %v; want it kept with ObjectURI", got, err)
		}
		return nil
	})
}

func testBlocks(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	per := seedPersona(t, s, c.t)
	a := seedActor(t, s, "bob", "b.example", false, c.t)
	blk := &murlog.Block{PersonaID: per.ID, ActorID: a.ID, ActivityURI: "https://l/b/1", CreatedAt: c.t}
	update(t, s, func(tx store.Tx) error {
		if err := tx.Blocks().Create(blk); err != nil {
			return err
		}
		if err := tx.Blocks().AddBlockedBy(&murlog.Block{PersonaID: per.ID, ActorID: a.ID, ActivityURI: "x1", CreatedAt: c.t}); err != nil {
			return err
		}
		return tx.Blocks().AddBlockedBy(&murlog.Block{PersonaID: per.ID, ActorID: a.ID, ActivityURI: "x2", CreatedAt: c.t})
	})
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.Blocks().Create(blk) }); code(err) != murlog.EConflict {
		t.Errorf("blocking twice err = %v; want conflict", err)
	}
	view(t, s, func(tx store.Tx) error {
		if ok, err := tx.Blocks().Blocking(a.ID); !ok || err != nil {
			t.Errorf("Blocking = %v, %v; want true", ok, err)
		}
		if ok, err := tx.Blocks().IsBlockedBy(per.ID, a.ID); !ok || err != nil {
			t.Errorf("IsBlockedBy = %v, %v; want true", ok, err)
		}
		if l, err := tx.Blocks().List(per.ID); err != nil || len(l) != 1 || l[0].ActivityURI != blk.ActivityURI {
			t.Errorf("List = %v, %v; want the block", l, err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		if err := tx.Blocks().Delete(per.ID, a.ID); err != nil {
			return err
		}
		return tx.Blocks().DeleteBlockedBy(per.ID, a.ID)
	})
	view(t, s, func(tx store.Tx) error {
		if _, err := tx.Blocks().Get(per.ID, a.ID); code(err) != murlog.ENotFound {
			t.Errorf("Get after Delete err = %v; want not_found", err)
		}
		if ok, _ := tx.Blocks().IsBlockedBy(per.ID, a.ID); ok {
			t.Error("IsBlockedBy after DeleteBlockedBy = true")
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		return tx.DomainBlocks().Create(&murlog.DomainBlock{Domain: "bad.example", Reason: "spam", CreatedAt: c.t})
	})
	if err := s.Update(ctx, func(tx store.Tx) error {
		return tx.DomainBlocks().Create(&murlog.DomainBlock{Domain: "bad.example", CreatedAt: c.t})
	}); code(err) != murlog.EConflict {
		t.Errorf("domain blocked twice err = %v; want conflict", err)
	}
	view(t, s, func(tx store.Tx) error {
		if ok, _ := tx.DomainBlocks().Has("bad.example"); !ok {
			t.Error("Has(bad.example) = false")
		}
		if ok, _ := tx.DomainBlocks().Has("good.example"); ok {
			t.Error("Has(good.example) = true")
		}
		if l, err := tx.DomainBlocks().List(); err != nil || len(l) != 1 || l[0].Reason != "spam" {
			t.Errorf("List = %v, %v", l, err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error { return tx.DomainBlocks().Delete("bad.example") })
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.DomainBlocks().Delete("bad.example") }); code(err) != murlog.ENotFound {
		t.Errorf("Delete of an unblocked domain err = %v; want not_found", err)
	}
}

func testNotifications(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	per := seedPersona(t, s, c.t)
	a := seedActor(t, s, "bob", "b.example", false, c.t)
	kinds := []murlog.NotificationKind{murlog.NotifyFollow, murlog.NotifyMention, murlog.NotifyFavourite, murlog.NotifyMention, murlog.NotifyMove}
	var ids []string
	update(t, s, func(tx store.Tx) error {
		for _, k := range kinds {
			n := &murlog.Notification{ID: murlog.NewID(), PersonaID: per.ID, Kind: k, ActorID: a.ID, CreatedAt: c.t}
			if err := tx.Notifications().Create(n); err != nil {
				return err
			}
			ids = append(ids, n.ID)
		}
		return nil
	})
	list := func(q store.NotificationQuery) (got []string) {
		view(t, s, func(tx store.Tx) error {
			l, err := tx.Notifications().List(q)
			for _, n := range l {
				got = append(got, n.ID)
			}
			return err
		})
		return got
	}
	if got := list(store.NotificationQuery{PersonaID: per.ID, Limit: 2}); !slices.Equal(got, []string{ids[4], ids[3]}) {
		t.Errorf("first page of 2 = %v; want the two newest", got)
	}
	if got := list(store.NotificationQuery{PersonaID: per.ID, Before: ids[3], Limit: 10}); !slices.Equal(got, []string{ids[2], ids[1], ids[0]}) {
		t.Errorf("page after the 2nd newest = %v; want the three older", got)
	}
	if got := list(store.NotificationQuery{PersonaID: per.ID, Kinds: []murlog.NotificationKind{murlog.NotifyMention}, Limit: 10}); !slices.Equal(got, []string{ids[3], ids[1]}) {
		t.Errorf("mentions only = %v; want the two mentions", got)
	}
	update(t, s, func(tx store.Tx) error {
		if n, err := tx.Notifications().MarkRead(per.ID, ids[0], ids[1], murlog.NewID()); n != 2 || err != nil {
			t.Errorf("MarkRead(2 known, 1 unknown) = %d, %v; want 2", n, err)
		}
		if n, _ := tx.Notifications().CountUnread(per.ID); n != 3 {
			t.Errorf("CountUnread = %d; want 3", n)
		}
		if n, err := tx.Notifications().MarkAllRead(per.ID); n != 3 || err != nil {
			t.Errorf("MarkAllRead = %d, %v; want 3", n, err)
		}
		return tx.Notifications().Delete(per.ID, ids[0])
	})
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.Notifications().Delete(per.ID, ids[0]) }); code(err) != murlog.ENotFound {
		t.Errorf("Delete twice err = %v; want not_found", err)
	}
}

func testDeliveries(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	key := murlog.NewID()
	update(t, s, func(tx store.Tx) error {
		d := tx.Deliveries()
		if err := d.Add(key, c.t, "https://a/inbox", "https://b/inbox", "https://c/inbox", "https://d/inbox"); err != nil {
			return err
		}
		if err := d.Set(key, "https://a/inbox", murlog.DeliveryDelivered, "", c.t); err != nil {
			return err
		}
		if err := d.Set(key, "https://b/inbox", murlog.DeliveryFailed, "HTTP 500", c.t); err != nil {
			return err
		}
		if err := d.Set(key, "https://b/inbox", murlog.DeliveryFailed, strings.Repeat("x", 2000), c.t.Add(time.Second)); err != nil {
			return err
		}
		if err := d.Set(key, "https://c/inbox", murlog.DeliverySkipped, "dead domain", c.t); err != nil {
			return err
		}
		return d.Add(key, c.t, "https://a/inbox") // already delivered: left alone
	})
	view(t, s, func(tx store.Tx) error {
		sum, err := tx.Deliveries().Summary(key)
		if err != nil {
			return err
		}
		if sum.Pending != 1 || sum.Delivered != 1 || sum.Failed != 1 || sum.Skipped != 1 || len(sum.LastErrors) != 1 {
			t.Errorf("Summary = %+v; want one of each state, one error", sum)
		} else if e := sum.LastErrors[0]; e.Attempts != 2 || len(e.LastError) != store.MaxDomainError {
			t.Errorf("failed delivery = %+v; want 2 attempts and the error cut to %d", e, store.MaxDomainError)
		}
		l, err := tx.Deliveries().List(key, "https://b/inbox", 10)
		if err != nil || len(l) != 2 || l[0].Inbox != "https://c/inbox" {
			t.Errorf("List after b = %v, %v; want c and d", l, err)
		}
		return nil
	})
}

func testPinsTombstones(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	per := seedPersona(t, s, c.t)
	pub := c.t
	p1, p2 := NewPost(per.ID, &pub, murlog.VisibilityPublic, c.t), NewPost(per.ID, &pub, murlog.VisibilityPublic, c.t)
	update(t, s, func(tx store.Tx) error {
		for i, p := range []*murlog.Post{p1, p2} {
			if err := tx.Posts().Create(p); err != nil {
				return err
			}
			if err := tx.Pins().Pin(&murlog.Pin{PersonaID: per.ID, PostID: p.ID, PinnedAt: c.t.Add(time.Duration(i) * time.Second)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err := s.Update(ctx, func(tx store.Tx) error {
		return tx.Pins().Pin(&murlog.Pin{PersonaID: per.ID, PostID: p1.ID, PinnedAt: c.t})
	}); code(err) != murlog.EConflict {
		t.Errorf("pinning twice err = %v; want conflict", err)
	}
	update(t, s, func(tx store.Tx) error { return tx.Posts().Delete(p1.ID) }) // a deleted post is unpinned
	view(t, s, func(tx store.Tx) error {
		l, err := tx.Pins().List(per.ID)
		if err != nil || len(l) != 1 || l[0].PostID != p2.ID {
			t.Errorf("Pins after deleting p1 = %v, %v; want p2 only", l, err)
		}
		return nil
	})
	ts := &murlog.Tombstone{URI: "https://l/@alice/" + p1.ID, PersonaID: per.ID, PostID: p1.ID, Type: "Note", DeletedAt: c.t}
	update(t, s, func(tx store.Tx) error {
		if err := tx.Tombstones().Put(ts); err != nil {
			return err
		}
		return tx.Tombstones().Put(ts)
	})
	view(t, s, func(tx store.Tx) error {
		if got, err := tx.Tombstones().Get(p1.ID); err != nil || got.URI != ts.URI {
			t.Errorf("Tombstones.Get = %+v, %v", got, err)
		}
		if _, err := tx.Tombstones().Get(p2.ID); code(err) != murlog.ENotFound {
			t.Errorf("Tombstones.Get(live post) err = %v; want not_found", err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error { return tx.Pins().Unpin(per.ID, p2.ID) })
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.Pins().Unpin(per.ID, p2.ID) }); code(err) != murlog.ENotFound {
		t.Errorf("Unpin twice err = %v; want not_found", err)
	}
}
