package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// NewRemoteActor returns a remote actor ready to upsert: user on domain,
// with a shared inbox when shared is set.
func NewRemoteActor(user, domain string, shared bool, now time.Time) *murlog.RemoteActor {
	base := "https://" + domain + "/users/" + user
	a := &murlog.RemoteActor{URI: base, Username: user, Domain: domain, Inbox: base + "/inbox",
		Type: "Person", KeyID: base + "#main-key", PublicKeyPEM: "pem", Fields: []murlog.Field{{Name: "w", Value: "v"}},
		FetchedAt: now, CreatedAt: now, UpdatedAt: now}
	if shared {
		a.SharedInbox = "https://" + domain + "/inbox"
	}
	return a
}

// NewRemotePost returns a remote post of actor ready to upsert.
func NewRemotePost(actor *murlog.RemoteActor, n int, now time.Time) *murlog.RemotePost {
	return &murlog.RemotePost{URI: fmt.Sprintf("%s/statuses/%d", actor.URI, n), ActorID: actor.ID, Type: "Note",
		Content: "<p>hello</p>", Visibility: murlog.VisibilityPublic, Tags: []string{"go"},
		Attachments: []murlog.RemoteAttachment{{Type: "Image", URL: "https://x/1.png"}},
		PublishedAt: now, ReceivedAt: now}
}

func testSocial(t *testing.T, open Opener) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"RemoteActors", testRemoteActors},
		{"Follows", testFollows},
		{"Followers", testFollowers},
		{"Inboxes", testInboxes},
		{"RemotePosts", testRemotePosts},
		{"Interactions", testInteractions},
		{"Blocks", testBlocks},
		{"Notifications", testNotifications},
		{"Deliveries", testDeliveries},
		{"PinsTombstones", testPinsTombstones},
		{"Timeline", testTimeline},
		{"Prune", testPrune},
		{"Replies", testReplies},
		{"QuoteAuthorizations", testQuoteAuthorizations},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

func seedActor(t *testing.T, s store.Store, user, domain string, shared bool, now time.Time) *murlog.RemoteActor {
	t.Helper()
	a := NewRemoteActor(user, domain, shared, now)
	update(t, s, func(tx store.Tx) error { return tx.RemoteActors().Upsert(a) })
	return a
}

func counts(t *testing.T, s store.Store, personaID string) (followers, following int) {
	t.Helper()
	view(t, s, func(tx store.Tx) error {
		p, err := tx.Personas().Get(personaID)
		if err != nil {
			return err
		}
		followers, following = p.FollowersCount, p.FollowingCount
		return nil
	})
	return
}

func testRemoteActors(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	a := seedActor(t, s, "bob", "b.example", true, c.t)
	if !murlog.ValidID(a.ID) {
		t.Fatalf("Upsert gave id %q; want a UUID", a.ID)
	}
	first := a.ID
	c.t = c.t.Add(time.Hour)
	again := NewRemoteActor("bob", "b.example", false, c.t)
	again.DisplayName, again.Ed25519KeyID, again.Ed25519Key = "Bob", a.URI+"#ed25519-key", "z6Mk"
	update(t, s, func(tx store.Tx) error { return tx.RemoteActors().Upsert(again) })
	if again.ID != first || !again.CreatedAt.Equal(newClock().t) {
		t.Errorf("second Upsert of the same URI: id %s created %v; want the first id %s and creation time", again.ID, again.CreatedAt, first)
	}
	view(t, s, func(tx store.Tx) error {
		for _, k := range []string{a.KeyID, again.Ed25519KeyID} {
			got, err := tx.RemoteActors().GetByKeyID(k)
			if err != nil || got.ID != first {
				t.Errorf("GetByKeyID(%s) = %v, %v; want bob", k, got, err)
			}
		}
		if _, err := tx.RemoteActors().GetByKeyID(""); code(err) != murlog.ENotFound {
			t.Errorf(`GetByKeyID("") err = %v; want not_found`, err)
		}
		got, err := tx.RemoteActors().GetByURI(a.URI)
		if err != nil || got.DisplayName != "Bob" || got.SharedInbox != "" || got.DeliveryInbox() != a.Inbox || len(got.Fields) != 1 {
			t.Errorf("GetByURI after refetch = %+v, %v; want the new values", got, err)
		}
		l, err := tx.RemoteActors().ListByIDs(first, murlog.NewID())
		if err != nil || len(l) != 1 {
			t.Errorf("ListByIDs(known, unknown) = %d, %v; want 1", len(l), err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error { return tx.RemoteActors().SetMovedTo(first, "https://c.example/u/bob", c.t) })
	update(t, s, func(tx store.Tx) error { return tx.RemoteActors().Delete(first) })
	view(t, s, func(tx store.Tx) error {
		if _, err := tx.RemoteActors().Get(first); code(err) != murlog.ENotFound {
			t.Errorf("Get after Delete err = %v; want not_found", err)
		}
		return nil
	})
}

func testFollows(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	p := seedPersona(t, s, c.t)
	var actors []*murlog.RemoteActor
	for i := range 5 {
		actors = append(actors, seedActor(t, s, fmt.Sprint("u", i), "f.example", false, c.t))
	}
	var fs []*murlog.Follow
	update(t, s, func(tx store.Tx) error {
		for _, a := range actors {
			f := &murlog.Follow{ID: murlog.NewID(), PersonaID: p.ID, ActorID: a.ID, ActivityURI: "https://l/a/" + a.Username,
				State: murlog.FollowPending, CreatedAt: c.t}
			if err := tx.Follows().Create(f); err != nil {
				return err
			}
			fs = append(fs, f)
		}
		return nil
	})
	dup := &murlog.Follow{ID: murlog.NewID(), PersonaID: p.ID, ActorID: actors[0].ID, ActivityURI: "https://l/a/x", State: murlog.FollowPending, CreatedAt: c.t}
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.Follows().Create(dup) }); code(err) != murlog.EConflict {
		t.Errorf("second follow of the same actor err = %v; want conflict", err)
	}
	if _, n := counts(t, s, p.ID); n != 0 {
		t.Errorf("following_count with only pending follows = %d; want 0", n)
	}
	update(t, s, func(tx store.Tx) error {
		for _, f := range fs[:3] {
			if err := tx.Follows().SetState(f.ID, murlog.FollowAccepted, c.t); err != nil {
				return err
			}
		}
		return tx.Follows().SetState(fs[0].ID, murlog.FollowAccepted, c.t) // again: no double count
	})
	if _, n := counts(t, s, p.ID); n != 3 {
		t.Errorf("following_count after 3 accepts (one twice) = %d; want 3", n)
	}
	view(t, s, func(tx store.Tx) error {
		f, err := tx.Follows().GetByActivity(fs[1].ActivityURI)
		if err != nil || f.ID != fs[1].ID || f.State != murlog.FollowAccepted || f.AcceptedAt == nil {
			t.Errorf("GetByActivity = %+v, %v; want accepted with AcceptedAt", f, err)
		}
		var got []string
		after := ""
		for {
			page, err := tx.Follows().List(p.ID, murlog.FollowAccepted, after, 2)
			if err != nil {
				return err
			}
			if len(page) == 0 {
				break
			}
			for _, f := range page {
				got = append(got, f.ID)
			}
			after = page[len(page)-1].ID
		}
		want := []string{fs[0].ID, fs[1].ID, fs[2].ID}
		if !slices.Equal(got, want) {
			t.Errorf("List(accepted) paged by 2 = %v; want %v", got, want)
		}
		if n, _ := tx.Follows().Count(p.ID, ""); n != 5 {
			t.Errorf("Count(any) = %d; want 5", n)
		}
		if ids, _ := tx.Follows().Followed(actors[0].ID); !slices.Equal(ids, []string{p.ID}) {
			t.Errorf("Followed(accepted actor) = %v; want [persona]", ids)
		}
		return nil
	})
	// Deleting an accepted follow, and an actor (cascade), both count.
	update(t, s, func(tx store.Tx) error {
		if err := tx.Follows().Delete(fs[0].ID); err != nil {
			return err
		}
		return tx.RemoteActors().Delete(actors[1].ID)
	})
	if _, n := counts(t, s, p.ID); n != 1 {
		t.Errorf("following_count after a delete and an actor's deletion = %d; want 1", n)
	}
	update(t, s, func(tx store.Tx) error {
		n, err := tx.Follows().DeleteByDomain("f.example")
		if n != 3 {
			t.Errorf("DeleteByDomain = %d; want the 3 remaining", n)
		}
		return err
	})
	if _, n := counts(t, s, p.ID); n != 0 {
		t.Errorf("following_count after DeleteByDomain = %d; want 0", n)
	}
}

func testFollowers(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	p := seedPersona(t, s, c.t)
	a := seedActor(t, s, "bob", "b.example", true, c.t)
	f := &murlog.Follower{ID: murlog.NewID(), PersonaID: p.ID, ActorID: a.ID, ActivityURI: a.URI + "#follow/1", State: murlog.FollowAccepted, CreatedAt: c.t}
	update(t, s, func(tx store.Tx) error { return tx.Followers().Create(f) })
	if n, _ := counts(t, s, p.ID); n != 1 {
		t.Errorf("followers_count after an accepted follower = %d; want 1", n)
	}
	err := s.Update(ctx, func(tx store.Tx) error {
		return tx.Followers().Create(&murlog.Follower{ID: murlog.NewID(), PersonaID: p.ID, ActorID: a.ID, ActivityURI: "x", State: murlog.FollowPending, CreatedAt: c.t})
	})
	if code(err) != murlog.EConflict {
		t.Errorf("second follower row for the same actor err = %v; want conflict", err)
	}
	err = s.Update(ctx, func(tx store.Tx) error {
		return tx.Followers().Create(&murlog.Follower{ID: murlog.NewID(), PersonaID: p.ID, ActorID: murlog.NewID(), ActivityURI: "y", State: murlog.FollowPending, CreatedAt: c.t})
	})
	if code(err) != murlog.ENotFound {
		t.Errorf("follower of an unknown actor err = %v; want not_found", err)
	}
	update(t, s, func(tx store.Tx) error {
		if err := tx.Followers().SetActivity(f.ID, a.URI+"#follow/2"); err != nil {
			return err
		}
		return tx.Followers().SetState(f.ID, murlog.FollowPending)
	})
	if n, _ := counts(t, s, p.ID); n != 0 {
		t.Errorf("followers_count after back to pending = %d; want 0", n)
	}
	view(t, s, func(tx store.Tx) error {
		if got, err := tx.Followers().GetByActivity(a.URI + "#follow/2"); err != nil || got.ID != f.ID {
			t.Errorf("GetByActivity(new follow id) = %+v, %v; want the follower", got, err)
		}
		got, err := tx.Followers().GetByActor(p.ID, a.ID)
		if err != nil || got.ActivityURI != a.URI+"#follow/2" || got.State != murlog.FollowPending {
			t.Errorf("GetByActor = %+v, %v; want pending with the new activity", got, err)
		}
		l, err := tx.Followers().List(p.ID, murlog.FollowPending, "", 10)
		if err != nil || len(l) != 1 {
			t.Errorf("List(pending) = %d, %v; want 1", len(l), err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error { return tx.Followers().SetState(f.ID, murlog.FollowAccepted) })
	update(t, s, func(tx store.Tx) error { return tx.Followers().Delete(f.ID) })
	if n, _ := counts(t, s, p.ID); n != 0 {
		t.Errorf("followers_count after Delete = %d; want 0", n)
	}
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.Followers().Delete(f.ID) }); code(err) != murlog.ENotFound {
		t.Errorf("Delete twice err = %v; want not_found", err)
	}
}

// testInboxes: distinct, ordered, paged, accepted only, and following the
// actor's inbox changes.
func testInboxes(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	p := seedPersona(t, s, c.t)
	var solo *murlog.RemoteActor
	update(t, s, func(tx store.Tx) error {
		for h := range 3 {
			for u := range 4 {
				a := NewRemoteActor(fmt.Sprint("u", u), fmt.Sprintf("h%d.example", h), h != 2, c.t)
				if err := tx.RemoteActors().Upsert(a); err != nil {
					return err
				}
				st := murlog.FollowAccepted
				if u == 3 {
					st = murlog.FollowPending
				}
				if h == 2 && u == 0 {
					solo = a
				}
				if err := tx.Followers().Create(&murlog.Follower{ID: murlog.NewID(), PersonaID: p.ID, ActorID: a.ID,
					ActivityURI: a.URI + "#f", State: st, CreatedAt: c.t}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	all := func() []string {
		var got []string
		view(t, s, func(tx store.Tx) error {
			after := ""
			for {
				page, err := tx.Followers().Inboxes(p.ID, after, 2)
				if err != nil {
					return err
				}
				if len(page) == 0 {
					return nil
				}
				got = append(got, page...)
				after = page[len(page)-1]
			}
		})
		return got
	}
	want := []string{"https://h0.example/inbox", "https://h1.example/inbox",
		"https://h2.example/users/u0/inbox", "https://h2.example/users/u1/inbox", "https://h2.example/users/u2/inbox"}
	if got := all(); !slices.Equal(got, want) {
		t.Errorf("Inboxes paged by 2 = %v; want %v (distinct shared inboxes, personal ones of h2, pending u3 left out)", got, want)
	}
	solo.SharedInbox = "https://h2.example/inbox"
	update(t, s, func(tx store.Tx) error { return tx.RemoteActors().Upsert(solo) })
	want = []string{"https://h0.example/inbox", "https://h1.example/inbox", "https://h2.example/inbox",
		"https://h2.example/users/u1/inbox", "https://h2.example/users/u2/inbox"}
	if got := all(); !slices.Equal(got, want) {
		t.Errorf("after u0@h2 got a shared inbox, Inboxes = %v; want %v", got, want)
	}
}

// testReplies: the replies of a thread, local and remote, oldest first,
// bounded by limit; other posts' replies are not listed.
func testReplies(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	per := seedPersona(t, s, c.t)
	bob := seedActor(t, s, "bob", "r.example", true, c.t)
	const parent = "https://r.example/users/bob/statuses/0"
	var want []string
	for i := 1; i <= 3; i++ {
		rp := NewRemotePost(bob, i, c.t.Add(time.Duration(i)*time.Minute))
		rp.InReplyTo = parent
		update(t, s, func(tx store.Tx) error { return tx.RemotePosts().Upsert(rp) })
		want = append(want, rp.URI)
	}
	other := NewRemotePost(bob, 9, c.t)
	other.InReplyTo = "https://r.example/users/bob/statuses/8"
	update(t, s, func(tx store.Tx) error { return tx.RemotePosts().Upsert(other) })
	pub := c.t
	mine := NewPost(per.ID, &pub, murlog.VisibilityPublic, c.t)
	mine.InReplyTo = parent
	update(t, s, func(tx store.Tx) error { return tx.Posts().Create(mine) })
	view(t, s, func(tx store.Tx) error {
		rs, err := tx.RemotePosts().Replies(parent, 2)
		if err != nil {
			return err
		}
		if len(rs) != 2 || rs[0].URI != want[0] || rs[1].URI != want[1] {
			t.Errorf("RemotePosts.Replies(limit 2) = %d posts; want %v first", len(rs), want[:2])
		}
		ls, err := tx.Posts().Replies(parent, 10)
		if err != nil {
			return err
		}
		if len(ls) != 1 || ls[0].ID != mine.ID {
			t.Errorf("Posts.Replies = %d posts; want the local reply", len(ls))
		}
		return nil
	})
}

// testQuoteAuthorizations: a granted quote consent is kept once, read
// back, and goes with its post.
func testQuoteAuthorizations(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	per := seedPersona(t, s, c.t)
	pub := c.t
	p := NewPost(per.ID, &pub, murlog.VisibilityPublic, c.t)
	update(t, s, func(tx store.Tx) error { return tx.Posts().Create(p) })
	q := &store.QuoteAuthorization{ID: murlog.NewID(), PersonaID: per.ID, PostID: p.ID, Quoting: "https://r.example/notes/1", CreatedAt: c.t}
	update(t, s, func(tx store.Tx) error { return tx.QuoteAuthorizations().Put(q) })
	again := *q
	again.Quoting = "https://r.example/notes/other"
	update(t, s, func(tx store.Tx) error { return tx.QuoteAuthorizations().Put(&again) })
	view(t, s, func(tx store.Tx) error {
		got, err := tx.QuoteAuthorizations().Get(q.ID)
		if err != nil {
			return err
		}
		if got.Quoting != q.Quoting || got.PostID != p.ID || !got.CreatedAt.Equal(q.CreatedAt) {
			t.Errorf("QuoteAuthorizations.Get = %+v; want the first Put kept", got)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error { return tx.Posts().Delete(p.ID) })
	view(t, s, func(tx store.Tx) error {
		if _, err := tx.QuoteAuthorizations().Get(q.ID); murlog.ErrorCode(err) != murlog.ENotFound {
			t.Errorf("authorization of a deleted post: %v; want not found", err)
		}
		return nil
	})
}
