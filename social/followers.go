package social

import (
	"context"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/store"
)

// Requested handles actorID's Follow (id followURI) of personaID. Unless
// the persona is locked it is accepted at once: an accepted follower, an
// accept_follow job and a "follow" notification; a locked persona gets a
// pending follower and a "follow_request". A Follow from an actor
// already following is answered again with an Accept (Mastodon does so: the
// remote side may have lost the first), a repeat of a pending request
// only updates its id. A Follow from an actor the persona blocks, or from
// a blocked domain, is answered with a Reject and refused (EForbidden).
func (s *Service) Requested(ctx context.Context, personaID, actorID, followURI string) (*murlog.Follower, error) {
	if err := checkID("persona_id", personaID); err != nil {
		return nil, err
	}
	if err := checkIRI("follow", followURI); err != nil {
		return nil, err
	}
	var (
		f       *murlog.Follower
		blocked bool
	)
	err := s.store.Update(ctx, func(tx store.Tx) error {
		blocked = false
		p, a, err := personaActor(tx, personaID, actorID)
		if err != nil {
			return err
		}
		if blocked, err = refused(tx, p.ID, a); err != nil || blocked {
			if err == nil {
				err = s.answer(tx, delivery.TopicRejectFollow, p, a, followURI)
			}
			return err
		}
		f, err = tx.Followers().GetByActor(p.ID, a.ID)
		switch {
		case err == nil:
			if f.ActivityURI != followURI {
				if err := tx.Followers().SetActivity(f.ID, followURI); err != nil {
					return err
				}
				f.ActivityURI = followURI
			}
			if f.State == murlog.FollowAccepted {
				return s.answer(tx, delivery.TopicAcceptFollow, p, a, followURI)
			}
			return nil
		case murlog.ErrorCode(err) != murlog.ENotFound:
			return err
		}
		f = &murlog.Follower{ID: murlog.NewID(), PersonaID: p.ID, ActorID: a.ID, ActivityURI: followURI,
			State: murlog.FollowAccepted, CreatedAt: tx.Now()}
		kind := murlog.NotifyFollow
		if p.Locked {
			f.State, kind = murlog.FollowPending, murlog.NotifyFollowRequest
		}
		if err := tx.Followers().Create(f); err != nil {
			return err
		}
		if err := notify(tx, p.ID, kind, a.ID, "", ""); err != nil {
			return err
		}
		if f.State == murlog.FollowAccepted {
			return s.answer(tx, delivery.TopicAcceptFollow, p, a, followURI)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if blocked {
		return nil, murlog.Errorf(murlog.EForbidden, "the follower is blocked")
	}
	return f, nil
}

// answer enqueues the Accept or Reject of the Follow followURI. Its id
// derives from the Follow's, so answering the same Follow twice is one job.
func (s *Service) answer(tx store.Tx, topic string, p *murlog.Persona, a *murlog.RemoteActor, followURI string) error {
	return tx.Jobs().Enqueue(delivery.ActivityJob(topic, delivery.ActivityPayload{PersonaID: p.ID, Actor: a.URI,
		Inbox: a.Inbox, Object: a.URI, ActivityID: followURI, UndoID: s.answerID(p, topic, followURI)}))
}

// follower loads the persona, the actor and the follower row.
func follower(tx store.Tx, personaID, actorID string) (*murlog.Persona, *murlog.RemoteActor, *murlog.Follower, error) {
	p, a, err := personaActor(tx, personaID, actorID)
	if err != nil {
		return nil, nil, nil, err
	}
	f, err := tx.Followers().GetByActor(p.ID, a.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, a, f, nil
}

// Approve accepts a pending follow request and sends the Accept.
// Approving an accepted follower changes nothing.
func (s *Service) Approve(ctx context.Context, personaID, actorID string) error {
	return s.store.Update(ctx, func(tx store.Tx) error {
		p, a, f, err := follower(tx, personaID, actorID)
		if err != nil || f.State == murlog.FollowAccepted {
			return err
		}
		if err := tx.Followers().SetState(f.ID, murlog.FollowAccepted); err != nil {
			return err
		}
		return s.answer(tx, delivery.TopicAcceptFollow, p, a, f.ActivityURI)
	})
}

// Reject refuses a pending follow request: the row goes and a Reject is
// sent. An accepted follower is EConflict: that is Remove.
func (s *Service) Reject(ctx context.Context, personaID, actorID string) error {
	return s.removeFollower(ctx, personaID, actorID, false)
}

// Remove removes a follower in any state and sends a Reject of its Follow,
// which Mastodon reads as "you no longer follow".
func (s *Service) Remove(ctx context.Context, personaID, actorID string) error {
	return s.removeFollower(ctx, personaID, actorID, true)
}

func (s *Service) removeFollower(ctx context.Context, personaID, actorID string, accepted bool) error {
	return s.store.Update(ctx, func(tx store.Tx) error {
		p, a, f, err := follower(tx, personaID, actorID)
		if err != nil {
			return err
		}
		if f.State == murlog.FollowAccepted && !accepted {
			return murlog.Errorf(murlog.EConflict, "not a pending request; remove the follower instead")
		}
		if err := tx.Followers().Delete(f.ID); err != nil {
			return err
		}
		return s.answer(tx, delivery.TopicRejectFollow, p, a, f.ActivityURI)
	})
}

// Undone handles actorID's Undo of its Follow followURI: the follower
// goes. Only the Follow's own actor may undo it (EForbidden); an unknown
// Follow is ENotFound.
func (s *Service) Undone(ctx context.Context, actorID, followURI string) error {
	if err := checkID("actor_id", actorID); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		f, err := tx.Followers().GetByActivity(followURI)
		if err != nil {
			return err
		}
		if f.ActorID != actorID {
			return murlog.Errorf(murlog.EForbidden, "only the follower may undo its follow")
		}
		return tx.Followers().Delete(f.ID)
	})
}

// Followers returns the persona's followers in state ("" for any).
func (s *Service) Followers(ctx context.Context, personaID string, state murlog.FollowState, after string, n int) ([]*murlog.Follower, error) {
	if err := checkCursor("after", after); err != nil {
		return nil, err
	}
	return view(s, ctx, personaID, func(tx store.Tx, p *murlog.Persona) ([]*murlog.Follower, error) {
		return tx.Followers().List(p.ID, state, after, limit(n))
	})
}

// Pending returns the persona's follow requests.
func (s *Service) Pending(ctx context.Context, personaID, after string, n int) ([]*murlog.Follower, error) {
	return s.Followers(ctx, personaID, murlog.FollowPending, after, n)
}
