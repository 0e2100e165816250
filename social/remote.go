package social

import (
	"context"
	"net/url"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// Store keeps a received remote post (a Create) owned by p.ActorID and
// tells the personas concerned: a reply to a local post notifies its
// persona ("reply"), a quote of one "quote", a mention of a persona
// "mention"; the post enters the home timeline of each persona following
// the author or mentioned. A post already stored is updated only when it
// has the same owner (EForbidden otherwise) and notifies nothing again.
// Posts from a blocked domain, or whose id is not on the author's
// server, are EForbidden; a persona blocking the author is neither
// notified nor shown the post.
func (s *Service) Store(ctx context.Context, p *murlog.RemotePost) error {
	if err := checkID("actor_id", p.ActorID); err != nil {
		return err
	}
	if err := checkIRI("uri", p.URI); err != nil {
		return err
	}
	if !p.Visibility.Valid() {
		return murlog.Invalid("visibility", "is not one of public, unlisted, followers, direct")
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		a, err := tx.RemoteActors().Get(p.ActorID)
		if err != nil {
			return err
		}
		if no, err := refused(tx, "", a); err != nil {
			return err
		} else if no {
			return murlog.Errorf(murlog.EForbidden, "the server is blocked")
		}
		if u, err := url.Parse(p.URI); err != nil || !strings.EqualFold(u.Host, a.Domain) {
			// As Mastodon: an actor creates objects on its own server only.
			return murlog.Errorf(murlog.EForbidden, "the post is not on its author's server")
		}
		old, err := tx.RemotePosts().GetByURI(p.URI)
		switch {
		case err == nil:
			if old.ActorID != p.ActorID {
				return murlog.Errorf(murlog.EForbidden, "the post belongs to another actor")
			}
			p.ID = old.ID
			return tx.RemotePosts().Upsert(p)
		case murlog.ErrorCode(err) != murlog.ENotFound:
			return err
		}
		p.ID, p.ReceivedAt = murlog.NewID(), tx.Now()
		if err := tx.RemotePosts().Upsert(p); err != nil {
			return err
		}
		return s.received(tx, a, p)
	})
}

// received notifies and fills timelines for a new post.
func (s *Service) received(tx store.Tx, a *murlog.RemoteActor, p *murlog.RemotePost) error {
	told := map[string]bool{} // one notification per persona per post
	tell := func(personaID string, kind murlog.NotificationKind, postID string) error {
		if told[personaID] {
			return nil
		}
		if no, err := refused(tx, personaID, a); err != nil || no {
			return err
		}
		told[personaID] = true
		return notify(tx, personaID, kind, a.ID, postID, p.ID)
	}
	for _, ref := range []struct {
		iri  string
		kind murlog.NotificationKind
	}{{p.InReplyTo, murlog.NotifyReply}, {p.QuoteOf, murlog.NotifyQuote}} {
		lp, err := s.localPost(tx, ref.iri)
		if err != nil {
			return err
		}
		if lp != nil {
			if err := tell(lp.PersonaID, ref.kind, lp.ID); err != nil {
				return err
			}
		}
	}
	audience := map[string]bool{}
	for i, m := range p.Mentions {
		if i == 64 {
			break // the federation layer caps arrays; this is a second fence
		}
		lp, err := s.localPersona(tx, m)
		if err != nil {
			return err
		}
		if lp == nil {
			continue
		}
		audience[lp.ID] = true
		if err := tell(lp.ID, murlog.NotifyMention, ""); err != nil {
			return err
		}
	}
	followers, err := tx.Follows().Followed(a.ID)
	if err != nil {
		return err
	}
	for _, id := range followers {
		audience[id] = true
	}
	for id := range audience {
		if no, err := refused(tx, id, a); err != nil {
			return err
		} else if no {
			continue
		}
		if err := tx.Timeline().Add(&murlog.TimelineEntry{ID: murlog.NewID(), PersonaID: id, RemotePostID: p.ID, CreatedAt: tx.Now()}); err != nil {
			return err
		}
	}
	return nil
}

// Update replaces a stored post with its edited version, only when
// actorID owns it (EForbidden, nothing written, otherwise). An unknown
// post is ENotFound: Mastodon too ignores Updates of what it never saw.
func (s *Service) Update(ctx context.Context, actorID string, p *murlog.RemotePost) error {
	if err := checkID("actor_id", actorID); err != nil {
		return err
	}
	if !p.Visibility.Valid() {
		return murlog.Invalid("visibility", "is not one of public, unlisted, followers, direct")
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		old, err := tx.RemotePosts().GetByURI(p.URI)
		if err != nil {
			return err
		}
		if old.ActorID != actorID {
			return murlog.Errorf(murlog.EForbidden, "only the post's author may update it")
		}
		p.ID, p.ActorID = old.ID, old.ActorID
		return tx.RemotePosts().Upsert(p)
	})
}

// Delete removes the stored post uri, only when actorID owns it.
func (s *Service) Delete(ctx context.Context, actorID, uri string) error {
	if err := checkID("actor_id", actorID); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		old, err := tx.RemotePosts().GetByURI(uri)
		if err != nil {
			return err
		}
		if old.ActorID != actorID {
			return murlog.Errorf(murlog.EForbidden, "only the post's author may delete it")
		}
		return tx.RemotePosts().Delete(old.ID)
	})
}

// DeleteActor handles an actor's Delete of itself: the actor goes with
// its posts, follows both ways, interactions, blocks and notifications;
// the counters follow.
func (s *Service) DeleteActor(ctx context.Context, actorID string) error {
	if err := checkID("actor_id", actorID); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error { return tx.RemoteActors().Delete(actorID) })
}

// Boosted handles actorID's Announce (announceURI) of a cached remote
// post: it enters the home timeline of each persona following actorID.
func (s *Service) Boosted(ctx context.Context, actorID, announceURI, remotePostID string) error {
	if err := checkID("post_id", remotePostID); err != nil {
		return err
	}
	if err := checkIRI("activity", announceURI); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		a, err := actor(tx, actorID)
		if err != nil {
			return err
		}
		rp, err := tx.RemotePosts().Get(remotePostID)
		if err != nil {
			return err
		}
		if rp.Visibility != murlog.VisibilityPublic && rp.Visibility != murlog.VisibilityUnlisted {
			return murlog.Errorf(murlog.EForbidden, "only public and unlisted posts can be boosted")
		}
		personas, err := tx.Follows().Followed(a.ID)
		if err != nil {
			return err
		}
		author, err := tx.RemoteActors().Get(rp.ActorID)
		if err != nil {
			return err
		}
		for _, id := range personas {
			if no, err := refused(tx, id, author); err != nil {
				return err
			} else if no {
				continue
			}
			if err := tx.Timeline().Add(&murlog.TimelineEntry{ID: murlog.NewID(), PersonaID: id, RemotePostID: rp.ID,
				BoostedBy: a.ID, AnnounceURI: announceURI, CreatedAt: tx.Now()}); err != nil {
				return err
			}
		}
		return nil
	})
}

// Unboosted handles actorID's Undo of its Announce of a remote post.
func (s *Service) Unboosted(ctx context.Context, actorID, announceURI string) error {
	if err := checkID("actor_id", actorID); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error { return tx.Timeline().DeleteByAnnounce(actorID, announceURI) })
}

// Moved records actorID's Move to target (an actor IRI the caller has
// checked names actorID in alsoKnownAs) and tells each persona following
// it ("move"). Following the new account is left to the owner.
func (s *Service) Moved(ctx context.Context, actorID, target string) error {
	if err := checkIRI("target", target); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		a, err := actor(tx, actorID)
		if err != nil {
			return err
		}
		if a.MovedTo == target {
			return nil
		}
		if err := tx.RemoteActors().SetMovedTo(a.ID, target, tx.Now()); err != nil {
			return err
		}
		personas, err := tx.Follows().Followed(a.ID)
		if err != nil {
			return err
		}
		for _, id := range personas {
			if err := notify(tx, id, murlog.NotifyMove, a.ID, "", ""); err != nil {
				return err
			}
		}
		return nil
	})
}
