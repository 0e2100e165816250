package social_test

import (
	"slices"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

func TestInboundInteractions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	carol := e.actor("carol", "mk.example")
	post := e.post(e.alice, murlog.VisibilityPublic)
	private := e.post(e.alice, murlog.VisibilityFollowers)
	like := carol.URI + "/likes/1"
	must(t, e.svc.Liked(ctx, carol.ID, post.ID, like, "👍"))
	must(t, e.svc.Liked(ctx, carol.ID, post.ID, like, "👍"))                // redelivered
	must(t, e.svc.Liked(ctx, carol.ID, post.ID, carol.URI+"/likes/2", "")) // a second Like of the same post
	must(t, e.svc.Announced(ctx, carol.ID, post.ID, carol.URI+"/announce/1"))
	wantCode(t, "Announce of a followers-only post", e.svc.Announced(ctx, carol.ID, private.ID, carol.URI+"/announce/2"), murlog.EForbidden)
	wantCode(t, "Like with a bad activity id", e.svc.Liked(ctx, carol.ID, post.ID, "javascript:x", ""), murlog.EInvalid)
	if got := e.notifications(e.alice); !slices.Equal(got, []murlog.NotificationKind{murlog.NotifyReblog, murlog.NotifyFavourite}) {
		t.Errorf("notifications = %v; want one reblog and one favourite", got)
	}
	e.view(func(tx store.Tx) error {
		i, err := tx.Interactions().GetByActivity(like)
		if err != nil || i.Content != "👍" {
			t.Errorf("stored like = %+v, %v; want the reaction kept", i, err)
		}
		if l, r, _ := tx.Interactions().Counts(post.ID); l != 1 || r != 1 {
			t.Errorf("Counts = %d, %d; want 1, 1", l, r)
		}
		return nil
	})
	dave := e.actor("dave", "mk.example")
	wantCode(t, "Undo of carol's Like by dave", e.svc.Unliked(ctx, dave.ID, like, ""), murlog.EForbidden)
	must(t, e.svc.Unliked(ctx, carol.ID, "", post.ID)) // an Undo embedding only the object
	must(t, e.svc.Unliked(ctx, carol.ID, like, ""))    // and again by id: already gone
	must(t, e.svc.Unannounced(ctx, carol.ID, carol.URI+"/announce/1", ""))
	e.view(func(tx store.Tx) error {
		if l, r, _ := tx.Interactions().Counts(post.ID); l != 0 || r != 0 {
			t.Errorf("Counts after the Undos = %d, %d; want 0, 0", l, r)
		}
		return nil
	})
}

func TestOutboundInteractions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	carol := e.actor("carol", "m.example")
	rp := storetest.NewRemotePost(carol, 1, e.clock.Now())
	priv := storetest.NewRemotePost(carol, 2, e.clock.Now())
	priv.Visibility = murlog.VisibilityFollowers
	must(t, e.svc.Store(ctx, rp))
	must(t, e.svc.Store(ctx, priv))

	like, err := e.svc.Favourite(ctx, e.alice.ID, rp.ID)
	must(t, err)
	again, err := e.svc.Favourite(ctx, e.alice.ID, rp.ID)
	must(t, err)
	if again.ID != like.ID {
		t.Errorf("second Favourite = %s; want the first like %s", again.ID, like.ID)
	}
	j := one(e, delivery.TopicSendLike)
	if j.ActivityID != like.ActivityURI || j.Object != rp.URI || j.Inbox != carol.Inbox {
		t.Errorf("send_like = %+v; want the Like of %s to carol", j, rp.URI)
	}
	must(t, e.svc.Unfavourite(ctx, e.alice.ID, rp.ID))
	must(t, e.svc.Unfavourite(ctx, e.alice.ID, rp.ID))
	if u := one(e, delivery.TopicSendUndoLike); u.ActivityID != like.ActivityURI || u.UndoID == "" {
		t.Errorf("send_undo_like = %+v; want it to carry the Like's id", u)
	}

	_, err = e.svc.Reblog(ctx, e.alice.ID, priv.ID)
	wantCode(t, "Reblog of a followers-only post", err, murlog.EForbidden)
	boost, err := e.svc.Reblog(ctx, e.alice.ID, rp.ID)
	must(t, err)
	ann := jobs[delivery.AnnouncePayload](e, delivery.TopicSendAnnounce)
	if len(ann) != 1 || ann[0].ActivityID != boost.ActivityURI || ann[0].ObjectTo != carol.DeliveryInbox() || ann[0].Object != rp.URI {
		t.Errorf("send_announce = %+v; want the Announce of %s, the author's server told at its shared inbox", ann, rp.URI)
	}
	must(t, e.svc.Unreblog(ctx, e.alice.ID, rp.ID))
	undo := jobs[delivery.AnnouncePayload](e, delivery.TopicSendUndoAnnounce)
	if len(undo) != 1 || undo[0].ActivityID != boost.ActivityURI || undo[0].UndoID == "" {
		t.Errorf("send_undo_announce = %+v; want it to carry the Announce's id", undo)
	}
	_, err = e.svc.Favourite(ctx, e.alice.ID, murlog.NewID())
	wantCode(t, "Favourite of an unknown post", err, murlog.ENotFound)
}

func TestBlocks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	carol := e.actor("carol", "m.example")
	f, err := e.svc.Follow(ctx, e.alice.ID, carol.ID)
	must(t, err)
	must(t, e.svc.Accepted(ctx, carol.ID, FollowRef(f.ActivityURI)))
	_, err = e.svc.Requested(ctx, e.alice.ID, carol.ID, carol.URI+"#f1")
	must(t, err)
	jobs[struct{}](e, delivery.TopicSendFollow)
	jobs[struct{}](e, delivery.TopicAcceptFollow)
	if p := e.persona(e.alice.ID); p.FollowersCount != 1 || p.FollowingCount != 1 {
		t.Fatalf("setup: counts %d/%d; want 1/1", p.FollowersCount, p.FollowingCount)
	}

	b, err := e.svc.Block(ctx, e.alice.ID, carol.ID)
	must(t, err)
	if p := e.persona(e.alice.ID); p.FollowersCount != 0 || p.FollowingCount != 0 {
		t.Errorf("after Block counts %d/%d; want 0/0", p.FollowersCount, p.FollowingCount)
	}
	if u := one(e, delivery.TopicSendUndoFollow); u.ActivityID != f.ActivityURI {
		t.Errorf("Block's Undo Follow carries %s; want %s", u.ActivityID, f.ActivityURI)
	}
	if r := one(e, delivery.TopicRejectFollow); r.ActivityID != carol.URI+"#f1" {
		t.Errorf("Block's Reject answers %s", r.ActivityID)
	}
	if s := one(e, delivery.TopicSendBlock); s.ActivityID != b.ActivityURI || s.Object != carol.URI {
		t.Errorf("send_block = %+v; want the Block of carol", s)
	}
	again, err := e.svc.Block(ctx, e.alice.ID, carol.ID)
	if err != nil || again.ActivityURI != b.ActivityURI {
		t.Errorf("Block twice = %+v, %v; want the first block", again, err)
	}
	none(e, delivery.TopicSendBlock)

	_, err = e.svc.Follow(ctx, e.alice.ID, carol.ID)
	wantCode(t, "Follow of a blocked actor", err, murlog.EForbidden)
	_, err = e.svc.Requested(ctx, e.alice.ID, carol.ID, carol.URI+"#f2")
	wantCode(t, "Follow from a blocked actor", err, murlog.EForbidden)
	if r := one(e, delivery.TopicRejectFollow); r.ActivityID != carol.URI+"#f2" {
		t.Errorf("a blocked actor's Follow is answered with Reject of %s; want #f2", r.ActivityID)
	}
	post := e.post(e.alice, murlog.VisibilityPublic)
	wantCode(t, "Like from a blocked actor", e.svc.Liked(ctx, carol.ID, post.ID, carol.URI+"/l", ""), murlog.EForbidden)
	if l, _ := e.svc.Blocks(ctx, e.alice.ID); len(l) != 1 {
		t.Errorf("Blocks = %d; want 1", len(l))
	}
	must(t, e.svc.Unblock(ctx, e.alice.ID, carol.ID))
	if u := one(e, delivery.TopicSendUndoBlock); u.ActivityID != b.ActivityURI || u.UndoID == "" {
		t.Errorf("send_undo_block = %+v; want it to carry the Block's id", u)
	}

	// Blocked by: the follows end silently and following is refused.
	f, err = e.svc.Follow(ctx, e.bob.ID, carol.ID)
	must(t, err)
	must(t, e.svc.Accepted(ctx, carol.ID, FollowRef(f.ActivityURI)))
	jobs[struct{}](e, delivery.TopicSendFollow)
	must(t, e.svc.BlockedBy(ctx, carol.ID, e.bob.ID, carol.URI+"/blocks/1"))
	if p := e.persona(e.bob.ID); p.FollowingCount != 0 {
		t.Errorf("bob's following_count after being blocked = %d; want 0", p.FollowingCount)
	}
	none(e, delivery.TopicSendUndoFollow)
	_, err = e.svc.Follow(ctx, e.bob.ID, carol.ID)
	wantCode(t, "Follow of an actor who blocks us", err, murlog.EForbidden)
	must(t, e.svc.UnblockedBy(ctx, carol.ID, e.bob.ID))
	_, err = e.svc.Follow(ctx, e.bob.ID, carol.ID)
	must(t, err)
}

func TestDomainBlock(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	spam := []*murlog.RemoteActor{e.actor("s1", "spam.example"), e.actor("s2", "spam.example")}
	good := e.actor("g", "good.example")
	for i, a := range append(spam, good) {
		_, err := e.svc.Requested(ctx, e.alice.ID, a.ID, a.URI+"#f")
		must(t, err)
		if i == 0 {
			f, err := e.svc.Follow(ctx, e.alice.ID, a.ID)
			must(t, err)
			must(t, e.svc.Accepted(ctx, a.ID, FollowRef(f.ActivityURI)))
		}
	}
	_, err := e.svc.DomainBlock(ctx, "SPAM.example", "spam")
	must(t, err)
	_, err = e.svc.DomainBlock(ctx, "spam.example", "")
	wantCode(t, "DomainBlock twice", err, murlog.EConflict)
	_, err = e.svc.DomainBlock(ctx, "x/y", "")
	wantCode(t, "DomainBlock of a path", err, murlog.EInvalid)
	if p := e.persona(e.alice.ID); p.FollowersCount != 1 || p.FollowingCount != 0 {
		t.Errorf("after the domain block counts %d/%d; want 1/0 (only good.example left)", p.FollowersCount, p.FollowingCount)
	}
	if ok, _ := e.svc.IsDomainBlocked(ctx, "spam.example"); !ok {
		t.Error("IsDomainBlocked(spam.example) = false")
	}
	_, err = e.svc.Requested(ctx, e.alice.ID, spam[1].ID, spam[1].URI+"#f2")
	wantCode(t, "Follow from a blocked domain", err, murlog.EForbidden)
	rp := storetest.NewRemotePost(spam[0], 1, e.clock.Now())
	wantCode(t, "post from a blocked domain", e.svc.Store(ctx, rp), murlog.EForbidden)
	must(t, e.svc.DomainUnblock(ctx, "spam.example"))
	wantCode(t, "DomainUnblock twice", e.svc.DomainUnblock(ctx, "spam.example"), murlog.ENotFound)
}
