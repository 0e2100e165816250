package social

import (
	"context"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/store"
)

// Follow asks actorID to accept personaID as a follower: a pending follow
// and its send_follow job. It refuses an actor the persona blocks, one on
// a blocked domain or one that blocks the persona (EForbidden), and a
// second follow of the same actor (EConflict, whatever its state).
func (s *Service) Follow(ctx context.Context, personaID, actorID string) (*murlog.Follow, error) {
	if err := checkID("actor_id", actorID); err != nil {
		return nil, err
	}
	var f *murlog.Follow
	err := s.store.Update(ctx, func(tx store.Tx) error {
		p, a, err := personaActor(tx, personaID, actorID)
		if err != nil {
			return err
		}
		if no, err := refused(tx, p.ID, a); err != nil {
			return err
		} else if no {
			return murlog.Errorf(murlog.EForbidden, "this account or its server is blocked")
		}
		if by, err := tx.Blocks().IsBlockedBy(p.ID, a.ID); err != nil {
			return err
		} else if by {
			return murlog.Errorf(murlog.EForbidden, "this account blocks you")
		}
		if _, err := tx.Follows().GetByActor(p.ID, a.ID); err == nil {
			return murlog.Errorf(murlog.EConflict, "already following or requested")
		} else if murlog.ErrorCode(err) != murlog.ENotFound {
			return err
		}
		id := murlog.NewID()
		f = &murlog.Follow{ID: id, PersonaID: p.ID, ActorID: a.ID, ActivityURI: s.site.ActivityURL(p.Username, id),
			State: murlog.FollowPending, CreatedAt: tx.Now()}
		if err := tx.Follows().Create(f); err != nil {
			return err
		}
		return tx.Jobs().Enqueue(delivery.ActivityJob(delivery.TopicSendFollow, followPayload(p, a, f.ActivityURI)))
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

func followPayload(p *murlog.Persona, a *murlog.RemoteActor, activityID string) delivery.ActivityPayload {
	return delivery.ActivityPayload{PersonaID: p.ID, Actor: a.URI, Inbox: a.Inbox, Object: a.URI, ActivityID: activityID}
}

// Unfollow deletes the persona's follow of actorID (pending or accepted)
// and sends an Undo carrying the Follow's id. A send_follow not yet
// started is taken back. ENotFound when there is no follow.
func (s *Service) Unfollow(ctx context.Context, personaID, actorID string) error {
	if err := checkID("actor_id", actorID); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		p, a, err := personaActor(tx, personaID, actorID)
		if err != nil {
			return err
		}
		f, err := tx.Follows().GetByActor(p.ID, a.ID)
		if err != nil {
			return err
		}
		return s.undoFollow(tx, p, a, f)
	})
}

// undoFollow deletes f and enqueues its Undo.
func (s *Service) undoFollow(tx store.Tx, p *murlog.Persona, a *murlog.RemoteActor, f *murlog.Follow) error {
	if err := tx.Follows().Delete(f.ID); err != nil {
		return err
	}
	pl := followPayload(p, a, f.ActivityURI)
	if err := tx.Jobs().Cancel(delivery.ActivityJob(delivery.TopicSendFollow, pl).ID); err != nil {
		return err
	}
	pl.UndoID = s.activityID(p)
	return tx.Jobs().Enqueue(delivery.ActivityJob(delivery.TopicSendUndoFollow, pl))
}

// FollowRef names the follow an Accept or Reject answers: by the Follow's
// id when the activity carries it, else by the persona it was about.
type FollowRef struct {
	ActivityURI string
	PersonaID   string
}

// findFollow finds the follow ref names and checks that actorID — the
// actor who answered — is the one followed.
func findFollow(tx store.Tx, actorID string, ref FollowRef) (*murlog.Follow, error) {
	if err := checkID("actor_id", actorID); err != nil {
		return nil, err
	}
	var (
		f   *murlog.Follow
		err error
	)
	switch {
	case ref.ActivityURI != "":
		f, err = tx.Follows().GetByActivity(ref.ActivityURI)
	case ref.PersonaID != "":
		if err := checkID("persona_id", ref.PersonaID); err != nil {
			return nil, err
		}
		f, err = tx.Follows().GetByActor(ref.PersonaID, actorID)
	default:
		return nil, murlog.Invalid("follow", "names neither the Follow nor the persona")
	}
	if err != nil {
		return nil, err
	}
	if f.ActorID != actorID {
		return nil, murlog.Errorf(murlog.EForbidden, "only the followed actor may answer a follow")
	}
	return f, nil
}

// Accepted records actorID's Accept of a follow: accepted, and counted in
// following_count. Accepting twice changes nothing.
func (s *Service) Accepted(ctx context.Context, actorID string, ref FollowRef) error {
	return s.store.Update(ctx, func(tx store.Tx) error {
		f, err := findFollow(tx, actorID, ref)
		if err != nil || f.State == murlog.FollowAccepted {
			return err
		}
		return tx.Follows().SetState(f.ID, murlog.FollowAccepted, tx.Now())
	})
}

// Rejected records actorID's Reject of a follow, pending or accepted (a
// Reject later is Mastodon's "remove follower"): the follow is removed.
func (s *Service) Rejected(ctx context.Context, actorID string, ref FollowRef) error {
	return s.store.Update(ctx, func(tx store.Tx) error {
		f, err := findFollow(tx, actorID, ref)
		if err != nil {
			return err
		}
		return tx.Follows().Delete(f.ID)
	})
}

// Following returns the persona's follows in state ("" for any), paged
// by id after after.
func (s *Service) Following(ctx context.Context, personaID string, state murlog.FollowState, after string, n int) ([]*murlog.Follow, error) {
	if err := checkCursor("after", after); err != nil {
		return nil, err
	}
	return view(s, ctx, personaID, func(tx store.Tx, p *murlog.Persona) ([]*murlog.Follow, error) {
		return tx.Follows().List(p.ID, state, after, limit(n))
	})
}

// FollowOf returns the persona's follow of actorID (follows.check), or
// ENotFound.
func (s *Service) FollowOf(ctx context.Context, personaID, actorID string) (*murlog.Follow, error) {
	if err := checkID("actor_id", actorID); err != nil {
		return nil, err
	}
	return view(s, ctx, personaID, func(tx store.Tx, p *murlog.Persona) (*murlog.Follow, error) {
		return tx.Follows().GetByActor(p.ID, actorID)
	})
}
