package social

import (
	"context"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

// Liked records actorID's Like (activityURI, with Misskey's reaction
// when there is one) of local post postID and notifies its persona once:
// the same Like again, or another Like of the same post by the same actor,
// changes nothing. Likes from a blocked actor or domain are EForbidden.
func (s *Service) Liked(ctx context.Context, actorID, postID, activityURI, reaction string) error {
	return s.inbound(ctx, murlog.InteractionLike, actorID, postID, activityURI, reaction)
}

// Announced records actorID's boost of a local post and notifies
// ("reblog") once.
func (s *Service) Announced(ctx context.Context, actorID, postID, activityURI string) error {
	return s.inbound(ctx, murlog.InteractionAnnounce, actorID, postID, activityURI, "")
}

func (s *Service) inbound(ctx context.Context, kind murlog.InteractionKind, actorID, postID, activityURI, content string) error {
	if err := checkID("post_id", postID); err != nil {
		return err
	}
	if err := checkIRI("activity", activityURI); err != nil {
		return err
	}
	if len(content) > 256 {
		content = "" // a reaction is one emoji or :shortcode:; anything longer is not one
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		a, err := actor(tx, actorID)
		if err != nil {
			return err
		}
		post, err := tx.Posts().Get(postID)
		if err != nil {
			return err
		}
		if post.PublishedAt == nil || post.PublishedAt.After(tx.Now()) {
			return murlog.NotFound("post")
		}
		if no, err := refused(tx, post.PersonaID, a); err != nil {
			return err
		} else if no {
			return murlog.Errorf(murlog.EForbidden, "the actor is blocked")
		}
		if kind == murlog.InteractionAnnounce && !post.PublicAt(tx.Now()) {
			return murlog.Errorf(murlog.EForbidden, "only public and unlisted posts can be boosted")
		}
		if done, err := murlog.Found(tx.Interactions().GetByActivity(activityURI)); err != nil || done {
			return err
		}
		if done, err := murlog.Found(tx.Interactions().GetInbound(a.ID, kind, post.ID)); err != nil || done {
			return err
		}
		if err := tx.Interactions().Create(&murlog.Interaction{ID: murlog.NewID(), Kind: kind, ActorID: a.ID, PostID: post.ID,
			ActivityURI: activityURI, Content: content, CreatedAt: tx.Now()}); err != nil {
			return err
		}
		n := murlog.NotifyFavourite
		if kind == murlog.InteractionAnnounce {
			n = murlog.NotifyReblog
		}
		return notify(tx, post.PersonaID, n, a.ID, post.ID, "")
	})
}

// Unliked handles actorID's Undo of its Like activityURI. When the Undo
// embeds only the Like's object, pass postID instead (activityURI "") to
// remove the actor's like of that post. Removing what is not there is not
// an error: the Undo may come twice.
func (s *Service) Unliked(ctx context.Context, actorID, activityURI, postID string) error {
	return s.undoInbound(ctx, murlog.InteractionLike, actorID, activityURI, postID)
}

// Unannounced handles actorID's Undo of its boost of a local post.
func (s *Service) Unannounced(ctx context.Context, actorID, activityURI, postID string) error {
	return s.undoInbound(ctx, murlog.InteractionAnnounce, actorID, activityURI, postID)
}

func (s *Service) undoInbound(ctx context.Context, kind murlog.InteractionKind, actorID, activityURI, postID string) error {
	if err := checkID("actor_id", actorID); err != nil {
		return err
	}
	if activityURI == "" {
		if err := checkID("post_id", postID); err != nil {
			return err
		}
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		var (
			i   *murlog.Interaction
			err error
		)
		if activityURI != "" {
			i, err = tx.Interactions().GetByActivity(activityURI)
		} else {
			i, err = tx.Interactions().GetInbound(actorID, kind, postID)
		}
		if murlog.ErrorCode(err) == murlog.ENotFound {
			return nil
		}
		if err != nil {
			return err
		}
		if i.ActorID != actorID || i.Kind != kind {
			return murlog.Errorf(murlog.EForbidden, "only its actor may undo an interaction")
		}
		return tx.Interactions().Delete(i.ID)
	})
}

// Favourite likes a cached remote post as the persona and sends the
// Like to its author. Liking a liked post returns the existing like.
func (s *Service) Favourite(ctx context.Context, personaID, remotePostID string) (*murlog.Interaction, error) {
	return s.outbound(ctx, murlog.InteractionLike, personaID, remotePostID)
}

// Reblog boosts a cached public or unlisted remote post and sends the
// Announce to the followers and the author.
func (s *Service) Reblog(ctx context.Context, personaID, remotePostID string) (*murlog.Interaction, error) {
	return s.outbound(ctx, murlog.InteractionAnnounce, personaID, remotePostID)
}

func (s *Service) outbound(ctx context.Context, kind murlog.InteractionKind, personaID, remotePostID string) (*murlog.Interaction, error) {
	if err := checkID("post_id", remotePostID); err != nil {
		return nil, err
	}
	var i *murlog.Interaction
	err := s.store.Update(ctx, func(tx store.Tx) error {
		p, rp, author, err := s.remoteTarget(tx, personaID, remotePostID)
		if err != nil {
			return err
		}
		if kind == murlog.InteractionAnnounce && rp.Visibility != murlog.VisibilityPublic && rp.Visibility != murlog.VisibilityUnlisted {
			return murlog.Errorf(murlog.EForbidden, "only public and unlisted posts can be boosted")
		}
		i, err = tx.Interactions().GetOutbound(p.ID, kind, rp.URI)
		if err == nil || murlog.ErrorCode(err) != murlog.ENotFound {
			return err
		}
		i = &murlog.Interaction{ID: murlog.NewID(), Kind: kind, PersonaID: p.ID, ObjectURI: rp.URI, RemotePostID: rp.ID, CreatedAt: tx.Now()}
		i.ActivityURI = s.site.ActivityURL(p.Username, i.ID)
		if err := tx.Interactions().Create(i); err != nil {
			return err
		}
		return tx.Jobs().Enqueue(interactionJob(p, author, i, ""))
	})
	if err != nil {
		return nil, err
	}
	return i, nil
}

// remoteTarget loads the persona, a remote post and its author, refusing
// a blocked author.
func (s *Service) remoteTarget(tx store.Tx, personaID, remotePostID string) (*murlog.Persona, *murlog.RemotePost, *murlog.RemoteActor, error) {
	p, err := persona(tx, personaID)
	if err != nil {
		return nil, nil, nil, err
	}
	rp, err := tx.RemotePosts().Get(remotePostID)
	if err != nil {
		return nil, nil, nil, err
	}
	author, err := tx.RemoteActors().Get(rp.ActorID)
	if err != nil {
		return nil, nil, nil, err
	}
	if no, err := refused(tx, p.ID, author); err != nil {
		return nil, nil, nil, err
	} else if no {
		return nil, nil, nil, murlog.Errorf(murlog.EForbidden, "the author is blocked")
	}
	return p, rp, author, nil
}

// interactionJob is the job delivering i (or, with undoID, its Undo).
func interactionJob(p *murlog.Persona, author *murlog.RemoteActor, i *murlog.Interaction, undoID string) queue.Job {
	if i.Kind == murlog.InteractionAnnounce {
		return delivery.AnnounceJob(delivery.AnnouncePayload{PersonaID: p.ID, Object: i.ObjectURI, ObjectTo: author.Inbox,
			ActivityID: i.ActivityURI, UndoID: undoID})
	}
	topic := delivery.TopicSendLike
	if undoID != "" {
		topic = delivery.TopicSendUndoLike
	}
	return delivery.ActivityJob(topic, delivery.ActivityPayload{PersonaID: p.ID, Actor: author.URI, Inbox: author.Inbox,
		Object: i.ObjectURI, ActivityID: i.ActivityURI, UndoID: undoID, Content: i.Content})
}

// Unfavourite withdraws the persona's like of a remote post and sends
// the Undo carrying the Like's id. Not liked is not an error.
func (s *Service) Unfavourite(ctx context.Context, personaID, remotePostID string) error {
	return s.undoOutbound(ctx, murlog.InteractionLike, personaID, remotePostID)
}

// Unreblog withdraws the persona's boost and sends the Undo Announce.
func (s *Service) Unreblog(ctx context.Context, personaID, remotePostID string) error {
	return s.undoOutbound(ctx, murlog.InteractionAnnounce, personaID, remotePostID)
}

func (s *Service) undoOutbound(ctx context.Context, kind murlog.InteractionKind, personaID, remotePostID string) error {
	if err := checkID("post_id", remotePostID); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		p, err := persona(tx, personaID)
		if err != nil {
			return err
		}
		rp, err := tx.RemotePosts().Get(remotePostID)
		if err != nil {
			return err
		}
		author, err := tx.RemoteActors().Get(rp.ActorID)
		if err != nil {
			return err
		}
		i, err := tx.Interactions().GetOutbound(p.ID, kind, rp.URI)
		if murlog.ErrorCode(err) == murlog.ENotFound {
			return nil
		}
		if err != nil {
			return err
		}
		if err := tx.Interactions().Delete(i.ID); err != nil {
			return err
		}
		return tx.Jobs().Enqueue(interactionJob(p, author, i, s.activityID(p)))
	})
}
