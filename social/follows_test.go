package social_test

import (
	"slices"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/social"
)

func TestFollowLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	carol := e.actor("carol", "m.example")
	f, err := e.svc.Follow(ctx, e.alice.ID, carol.ID)
	must(t, err)
	if f.State != murlog.FollowPending || f.ActivityURI != site.ActivityURL("alice", f.ID) {
		t.Errorf("Follow = %+v; want pending with id %s", f, site.ActivityURL("alice", f.ID))
	}
	j := one(e, delivery.TopicSendFollow)
	if j.ActivityID != f.ActivityURI || j.Inbox != carol.Inbox || j.Object != carol.URI || j.PersonaID != e.alice.ID {
		t.Errorf("send_follow payload = %+v; want the Follow's id to carol's inbox", j)
	}
	_, err = e.svc.Follow(ctx, e.alice.ID, carol.ID)
	wantCode(t, "Follow twice", err, murlog.EConflict)
	_, err = e.svc.Follow(ctx, e.alice.ID, "nope")
	wantCode(t, "Follow(bad id)", err, murlog.EInvalid)

	dave := e.actor("dave", "m.example")
	wantCode(t, "Accept by another actor", e.svc.Accepted(ctx, dave.ID, social.FollowRef{ActivityURI: f.ActivityURI}), murlog.EForbidden)
	wantCode(t, "Accept of an unknown follow", e.svc.Accepted(ctx, carol.ID, social.FollowRef{ActivityURI: "https://blog.example/x"}), murlog.ENotFound)
	if n := e.persona(e.alice.ID).FollowingCount; n != 0 {
		t.Errorf("following_count while pending = %d; want 0", n)
	}
	must(t, e.svc.Accepted(ctx, carol.ID, social.FollowRef{ActivityURI: f.ActivityURI}))
	must(t, e.svc.Accepted(ctx, carol.ID, social.FollowRef{PersonaID: e.alice.ID})) // an Accept naming only the persona, again
	if n := e.persona(e.alice.ID).FollowingCount; n != 1 {
		t.Errorf("following_count after Accept (twice) = %d; want 1", n)
	}
	got, err := e.svc.FollowOf(ctx, "", carol.ID) // "" is the primary persona
	if err != nil || got.State != murlog.FollowAccepted || got.AcceptedAt == nil {
		t.Errorf("FollowOf = %+v, %v; want accepted", got, err)
	}

	must(t, e.svc.Unfollow(ctx, e.alice.ID, carol.ID))
	u := one(e, delivery.TopicSendUndoFollow)
	if u.ActivityID != f.ActivityURI || u.UndoID == "" || u.UndoID == f.ActivityURI {
		t.Errorf("send_undo_follow payload = %+v; want the original Follow's id and a new Undo id", u)
	}
	if n := e.persona(e.alice.ID).FollowingCount; n != 0 {
		t.Errorf("following_count after Unfollow = %d; want 0", n)
	}
	wantCode(t, "Unfollow twice", e.svc.Unfollow(ctx, e.alice.ID, carol.ID), murlog.ENotFound)

	// Unfollowing before the Follow went out takes the send_follow back.
	f2, err := e.svc.Follow(ctx, e.alice.ID, carol.ID)
	must(t, err)
	must(t, e.svc.Unfollow(ctx, e.alice.ID, carol.ID))
	none(e, delivery.TopicSendFollow)
	one(e, delivery.TopicSendUndoFollow)

	// Rejected removes it.
	f2, err = e.svc.Follow(ctx, e.alice.ID, carol.ID)
	must(t, err)
	must(t, e.svc.Rejected(ctx, carol.ID, social.FollowRef{ActivityURI: f2.ActivityURI}))
	_, err = e.svc.FollowOf(ctx, e.alice.ID, carol.ID)
	wantCode(t, "FollowOf after Reject", err, murlog.ENotFound)

	l, err := e.svc.Following(ctx, e.alice.ID, "", "", 0)
	if err != nil || len(l) != 0 {
		t.Errorf("Following after all that = %v, %v; want none", l, err)
	}
}

func TestFollowRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	carol := e.actor("carol", "m.example")
	followURI := carol.URI + "#follows/1"

	// alice accepts at once.
	f, err := e.svc.Requested(ctx, e.alice.ID, carol.ID, followURI)
	must(t, err)
	if f.State != murlog.FollowAccepted {
		t.Errorf("follower of an open persona = %s; want accepted", f.State)
	}
	a := one(e, delivery.TopicAcceptFollow)
	if a.ActivityID != followURI || a.Inbox != carol.Inbox || a.UndoID == "" {
		t.Errorf("accept_follow payload = %+v; want their Follow's id and our Accept's id", a)
	}
	if n := e.persona(e.alice.ID).FollowersCount; n != 1 {
		t.Errorf("followers_count = %d; want 1", n)
	}
	// The same Follow again (a retry) is one Accept; a new Follow from an
	// accepted follower is answered again, as Mastodon does.
	_, err = e.svc.Requested(ctx, e.alice.ID, carol.ID, followURI)
	must(t, err)
	none(e, delivery.TopicAcceptFollow)
	_, err = e.svc.Requested(ctx, e.alice.ID, carol.ID, carol.URI+"#follows/2")
	must(t, err)
	if a := one(e, delivery.TopicAcceptFollow); a.ActivityID != carol.URI+"#follows/2" {
		t.Errorf("re-sent Accept answers %s; want the new Follow", a.ActivityID)
	}
	if got := e.notifications(e.alice); !slices.Equal(got, []murlog.NotificationKind{murlog.NotifyFollow}) {
		t.Errorf("alice's notifications = %v; want one follow", got)
	}
	if n := e.persona(e.alice.ID).FollowersCount; n != 1 {
		t.Errorf("followers_count after repeats = %d; want 1", n)
	}

	// bob is locked.
	f, err = e.svc.Requested(ctx, e.bob.ID, carol.ID, carol.URI+"#follows/3")
	must(t, err)
	if f.State != murlog.FollowPending {
		t.Errorf("follower of a locked persona = %s; want pending", f.State)
	}
	none(e, delivery.TopicAcceptFollow)
	if got := e.notifications(e.bob); !slices.Equal(got, []murlog.NotificationKind{murlog.NotifyFollowRequest}) {
		t.Errorf("bob's notifications = %v; want one follow_request", got)
	}
	if p, err := e.svc.Pending(ctx, e.bob.ID, "", 10); err != nil || len(p) != 1 {
		t.Errorf("Pending = %v, %v; want carol", p, err)
	}
	must(t, e.svc.Approve(ctx, e.bob.ID, carol.ID))
	if a := one(e, delivery.TopicAcceptFollow); a.ActivityID != carol.URI+"#follows/3" {
		t.Errorf("Approve's Accept answers %s", a.ActivityID)
	}
	if n := e.persona(e.bob.ID).FollowersCount; n != 1 {
		t.Errorf("bob's followers_count after Approve = %d; want 1", n)
	}
	wantCode(t, "Reject of an accepted follower", e.svc.Reject(ctx, e.bob.ID, carol.ID), murlog.EConflict)
	must(t, e.svc.Remove(ctx, e.bob.ID, carol.ID))
	if r := one(e, delivery.TopicRejectFollow); r.ActivityID != carol.URI+"#follows/3" {
		t.Errorf("Remove's Reject answers %s", r.ActivityID)
	}
	if n := e.persona(e.bob.ID).FollowersCount; n != 0 {
		t.Errorf("bob's followers_count after Remove = %d; want 0", n)
	}

	// A pending request rejected.
	dave := e.actor("dave", "n.example")
	_, err = e.svc.Requested(ctx, e.bob.ID, dave.ID, dave.URI+"#f")
	must(t, err)
	must(t, e.svc.Reject(ctx, e.bob.ID, dave.ID))
	one(e, delivery.TopicRejectFollow)
	wantCode(t, "Approve after Reject", e.svc.Approve(ctx, e.bob.ID, dave.ID), murlog.ENotFound)

	// Undo Follow: only by its actor.
	wantCode(t, "Undo of carol's Follow by dave", e.svc.Undone(ctx, dave.ID, carol.URI+"#follows/2"), murlog.EForbidden)
	must(t, e.svc.Undone(ctx, carol.ID, carol.URI+"#follows/2"))
	if n := e.persona(e.alice.ID).FollowersCount; n != 0 {
		t.Errorf("alice's followers_count after Undo = %d; want 0", n)
	}
	if l, _ := e.svc.Followers(ctx, e.alice.ID, "", "", 10); len(l) != 0 {
		t.Errorf("alice's followers after Undo = %d; want 0", len(l))
	}
}
