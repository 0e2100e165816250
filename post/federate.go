package post

import (
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/store"
)

// federate enqueues what a write of a post tells other servers, in the
// write's transaction, from the post as it was (nil for a new post) and
// as it is (nil once deleted). Only a post that is out — published at or
// before now — is federated: a post that comes out is Created (a
// scheduled one by its post.publish job, see publish), an edit of one is
// an Update, and one that is deleted, or goes back to a draft or a
// future time, is Deleted. A deleted post leaves a Tombstone, so its URL
// answers 410 Gone.
//
// A page (murlog.Post.Page) is part of the site, not of the persona's
// stream, so it is never federated: no Create goes out for it, and a post
// that becomes a page is Deleted on the servers that got it, as a post
// that goes back to a draft is (its address stays; its ActivityPub
// document answers 404 from then on). A page that becomes a post again
// is Created anew — Mastodon keeps a deleted post's id from coming back
// (it remembers a tombstone), so there it stays gone.
func (s *Service) federate(tx store.Tx, was, is *murlog.Post) error {
	now := tx.Now()
	wasOut, isOut := federated(was, now), federated(is, now)
	switch {
	case isOut && !wasOut:
		pl := delivery.PostPayload{PostID: is.ID, Activity: delivery.ActivityCreate}
		if was != nil {
			// Published by an edit: a job of its own, apart from any
			// Create of an earlier publication.
			pl.Version = delivery.Version(is.UpdatedAt)
		}
		return tx.Jobs().Enqueue(delivery.PostJob(pl))
	case isOut:
		return tx.Jobs().Enqueue(delivery.PostJob(delivery.PostPayload{PostID: is.ID, Activity: delivery.ActivityUpdate,
			Version: delivery.Version(is.UpdatedAt)}))
	case wasOut:
		if is == nil {
			if err := s.tombstone(tx, was, now); err != nil {
				return err
			}
		}
		return enqueueDelete(tx, was)
	}
	return nil
}

// federated reports whether p is published at now (any visibility) and
// not a page: what other servers have, or are to have, a copy of.
func federated(p *murlog.Post, now time.Time) bool {
	return p != nil && !p.Page && p.PublishedAt != nil && !p.PublishedAt.After(now)
}

func (s *Service) tombstone(tx store.Tx, p *murlog.Post, now time.Time) error {
	pe, err := tx.Personas().Get(p.PersonaID)
	if err != nil {
		return err
	}
	typ := "Note"
	if p.Kind == murlog.KindArticle {
		typ = "Article"
	}
	return tx.Tombstones().Put(&murlog.Tombstone{URI: s.site.PostURL(pe.Username, p.ID), PersonaID: p.PersonaID,
		PostID: p.ID, Type: typ, DeletedAt: now})
}

// maxDeleteInboxes bounds the bytes of inbox URLs a deliver_delete
// carries, well inside queue.MaxPayload.
const maxDeleteInboxes = 48 << 10

// enqueueDelete enqueues the Delete of p: to the followers, and to every
// other inbox its Create reached (the mentioned actors, the parent's
// author, followers gone since), read from its Deliveries; a direct post
// only to the inboxes it reached.
func enqueueDelete(tx store.Tx, p *murlog.Post) error {
	direct := p.Visibility == murlog.VisibilityDirect
	followers := map[string]bool{}
	for after := ""; !direct; {
		page, err := tx.Followers().Inboxes(p.PersonaID, after, 500)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		for _, in := range page {
			followers[in] = true
		}
		after = page[len(page)-1]
	}
	var extras []string
	size := 0
walk:
	for after := ""; ; {
		ds, err := tx.Deliveries().List(p.ID, after, 500)
		if err != nil {
			return err
		}
		if len(ds) == 0 {
			break
		}
		for _, d := range ds {
			if d.State == murlog.DeliverySkipped || followers[d.Inbox] {
				continue
			}
			if size += len(d.Inbox) + 3; size > maxDeleteInboxes {
				break walk
			}
			extras = append(extras, d.Inbox)
		}
		after = ds[len(ds)-1].Inbox
	}
	return tx.Jobs().Enqueue(delivery.DeleteJob(delivery.DeletePayload{PostID: p.ID, PersonaID: p.PersonaID,
		Inboxes: extras, OnlyInboxes: direct}))
}
