package storetest

import (
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// testTimeline interleaves own posts and received ones in time and walks
// the merged timeline page by page.
func testTimeline(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	per := seedPersona(t, s, c.t)
	a := seedActor(t, s, "bob", "b.example", false, c.t)
	booster := seedActor(t, s, "carol", "c.example", false, c.t)
	var want []string // newest first
	start := c.t.Add(-time.Hour)
	update(t, s, func(tx store.Tx) error {
		for i := range 10 {
			at := start.Add(time.Duration(i) * time.Minute)
			var id string
			if i%3 == 0 {
				p := NewPost(per.ID, &at, murlog.VisibilityFollowers, at)
				if err := tx.Posts().Create(p); err != nil {
					return err
				}
				id = p.ID
			} else {
				rp := NewRemotePost(a, i, at)
				if err := tx.RemotePosts().Upsert(rp); err != nil {
					return err
				}
				e := &murlog.TimelineEntry{ID: murlog.NewID(), PersonaID: per.ID, RemotePostID: rp.ID, CreatedAt: at}
				if i == 5 {
					e.BoostedBy, e.AnnounceURI = booster.ID, booster.URI+"/announce/5"
				}
				if err := tx.Timeline().Add(e); err != nil {
					return err
				}
				// The same post again by the same way is skipped.
				if err := tx.Timeline().Add(&murlog.TimelineEntry{ID: murlog.NewID(), PersonaID: per.ID, RemotePostID: rp.ID,
					BoostedBy: e.BoostedBy, AnnounceURI: e.AnnounceURI, CreatedAt: at}); err != nil {
					return err
				}
				id = e.ID
			}
			want = append([]string{id}, want...)
		}
		// Drafts and scheduled posts stay out.
		future := c.t.Add(time.Hour)
		if err := tx.Posts().Create(NewPost(per.ID, &future, murlog.VisibilityPublic, c.t)); err != nil {
			return err
		}
		return tx.Posts().Create(NewPost(per.ID, nil, murlog.VisibilityPublic, c.t))
	})
	var got []string
	view(t, s, func(tx store.Tx) error {
		before := ""
		for {
			page, err := tx.Timeline().List(per.ID, c.t, before, 3)
			if err != nil {
				return err
			}
			if len(page) == 0 {
				return nil
			}
			for _, it := range page {
				if (it.Post == nil) == (it.RemotePost == nil) {
					t.Errorf("item %s: Post %v RemotePost %v; want exactly one", it.ID, it.Post, it.RemotePost)
				}
				if it.Entry != nil && it.Entry.AnnounceURI != "" && it.Entry.BoostedBy != booster.ID {
					t.Errorf("boosted entry = %+v; want BoostedBy carol", it.Entry)
				}
				got = append(got, it.ID)
			}
			before = page[len(page)-1].ID
		}
	})
	if len(got) != len(want) {
		t.Fatalf("timeline paged by 3 has %d items; want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("timeline[%d] = %s; want %s (newest first, own and received merged)", i, got[i], want[i])
		}
	}
	if err := s.View(ctx, func(tx store.Tx) error {
		_, err := tx.Timeline().List(per.ID, c.t, murlog.NewID(), 3)
		return err
	}); code(err) != murlog.EInvalid {
		t.Errorf("List with an unknown cursor err = %v; want invalid", err)
	}
	update(t, s, func(tx store.Tx) error {
		if err := tx.Timeline().DeleteByAnnounce(a.ID, booster.URI+"/announce/5"); err != nil {
			return err // another actor's Undo: nothing goes
		}
		return tx.Timeline().DeleteByAnnounce(booster.ID, booster.URI+"/announce/5")
	})
	view(t, s, func(tx store.Tx) error {
		page, err := tx.Timeline().List(per.ID, c.t, "", 20)
		if len(page) != len(want)-1 {
			t.Errorf("after DeleteByAnnounce the timeline has %d items; want %d", len(page), len(want)-1)
		}
		return err
	})
}

// testPrune: what nobody local touched goes, in batches; what is
// referenced stays.
func testPrune(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	per := seedPersona(t, s, c.t)
	old := c.t.Add(-40 * 24 * time.Hour)
	cut := c.t.Add(-30 * 24 * time.Hour)
	stranger := seedActor(t, s, "stranger", "s.example", false, old)
	followed := seedActor(t, s, "followed", "f.example", false, old)
	liker := seedActor(t, s, "liker", "l.example", false, old)
	notifier := seedActor(t, s, "notifier", "n.example", false, old)
	fresh := seedActor(t, s, "fresh", "s.example", false, c.t)
	keep := map[string]string{} // remote post id → why
	var drop []string
	pub := c.t
	local := NewPost(per.ID, &pub, murlog.VisibilityPublic, c.t)
	update(t, s, func(tx store.Tx) error {
		if err := tx.Follows().Create(&murlog.Follow{ID: murlog.NewID(), PersonaID: per.ID, ActorID: followed.ID, ActivityURI: "f1", State: murlog.FollowAccepted, CreatedAt: old}); err != nil {
			return err
		}
		mk := func(a *murlog.RemoteActor, n int, at time.Time) *murlog.RemotePost {
			p := NewRemotePost(a, n, at)
			if err := tx.RemotePosts().Upsert(p); err != nil {
				t.Fatal(err)
			}
			return p
		}
		for i := range 7 {
			drop = append(drop, mk(stranger, i, old).ID)
		}
		liked, replied, quoted, mentioned := mk(followed, 100, old), mk(followed, 101, old), mk(followed, 102, old), mk(followed, 103, old)
		keep[mk(followed, 104, c.t).ID] = "received recently"
		keep[liked.ID], keep[replied.ID], keep[quoted.ID], keep[mentioned.ID] = "liked", "replied to", "quoted", "mentions the persona"
		drop = append(drop, mk(followed, 105, old).ID)
		if err := tx.Interactions().Create(&murlog.Interaction{ID: murlog.NewID(), Kind: murlog.InteractionLike, PersonaID: per.ID,
			ObjectURI: liked.URI, RemotePostID: liked.ID, ActivityURI: "like1", CreatedAt: old}); err != nil {
			return err
		}
		local.InReplyTo, local.QuoteOf = replied.URI, quoted.URI
		if err := tx.Posts().Create(local); err != nil {
			return err
		}
		if err := tx.Interactions().Create(&murlog.Interaction{ID: murlog.NewID(), Kind: murlog.InteractionLike, ActorID: liker.ID,
			PostID: local.ID, ActivityURI: "like2", CreatedAt: old}); err != nil {
			return err
		}
		if err := tx.Notifications().Create(&murlog.Notification{ID: murlog.NewID(), PersonaID: per.ID, Kind: murlog.NotifyMention,
			ActorID: followed.ID, RemotePostID: mentioned.ID, CreatedAt: old}); err != nil {
			return err
		}
		return tx.Notifications().Create(&murlog.Notification{ID: murlog.NewID(), PersonaID: per.ID, Kind: murlog.NotifyMove,
			ActorID: notifier.ID, CreatedAt: c.t.Add(-time.Hour)})
	})
	view(t, s, func(tx store.Tx) error {
		p, err := tx.Posts().Get(local.ID)
		if err != nil || p.InReplyTo == "" || p.QuoteOf == "" {
			t.Errorf("local post in_reply_to/quote_of = %+v, %v; want both stored", p, err)
		}
		return nil
	})
	posts, rounds := 0, 0
	for {
		var n int
		update(t, s, func(tx store.Tx) (err error) { n, err = tx.RemotePosts().Prune(cut, 3); return err })
		if n > 3 {
			t.Fatalf("Prune(limit 3) deleted %d", n)
		}
		posts += n
		rounds++
		if n == 0 {
			break
		}
	}
	if posts != len(drop) || rounds != 4 {
		t.Errorf("post prune deleted %d in %d rounds of 3; want %d in 4", posts, rounds, len(drop))
	}
	var actors int
	update(t, s, func(tx store.Tx) (err error) { actors, err = tx.RemoteActors().Prune(cut, 100); return err })
	if actors != 1 {
		t.Errorf("actor prune deleted %d; want 1 (the stranger)", actors)
	}
	view(t, s, func(tx store.Tx) error {
		for id, why := range keep {
			if _, err := tx.RemotePosts().Get(id); err != nil {
				t.Errorf("post kept because %s: %v", why, err)
			}
		}
		for _, id := range drop {
			if _, err := tx.RemotePosts().Get(id); code(err) != murlog.ENotFound {
				t.Errorf("unreferenced old post %s: %v; want pruned", id, err)
			}
		}
		for _, a := range []*murlog.RemoteActor{followed, liker, notifier, fresh} {
			if _, err := tx.RemoteActors().Get(a.ID); err != nil {
				t.Errorf("actor %s: %v; want kept", a.Username, err)
			}
		}
		if _, err := tx.RemoteActors().Get(stranger.ID); code(err) != murlog.ENotFound {
			t.Errorf("stranger: %v; want pruned", err)
		}
		return nil
	})
}
