package social

import (
	"context"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/store"
)

// Block blocks actorID for the persona. As Mastodon does, the follows
// both ways end — an Undo of the persona's Follow, a Reject of the actor's
// — and the Block is sent; jobs already queued are left alone. Blocking a
// blocked actor returns the existing block.
func (s *Service) Block(ctx context.Context, personaID, actorID string) (*murlog.Block, error) {
	var b *murlog.Block
	err := s.store.Update(ctx, func(tx store.Tx) error {
		p, a, err := personaActor(tx, personaID, actorID)
		if err != nil {
			return err
		}
		b, err = tx.Blocks().Get(p.ID, a.ID)
		if err == nil || murlog.ErrorCode(err) != murlog.ENotFound {
			return err
		}
		if f, err := tx.Follows().GetByActor(p.ID, a.ID); err == nil {
			if err := s.undoFollow(tx, p, a, f); err != nil {
				return err
			}
		} else if murlog.ErrorCode(err) != murlog.ENotFound {
			return err
		}
		if f, err := tx.Followers().GetByActor(p.ID, a.ID); err == nil {
			if err := tx.Followers().Delete(f.ID); err != nil {
				return err
			}
			if err := s.answer(tx, delivery.TopicRejectFollow, p, a, f.ActivityURI); err != nil {
				return err
			}
		} else if murlog.ErrorCode(err) != murlog.ENotFound {
			return err
		}
		b = &murlog.Block{PersonaID: p.ID, ActorID: a.ID, ActivityURI: s.activityID(p), CreatedAt: tx.Now()}
		if err := tx.Blocks().Create(b); err != nil {
			return err
		}
		return tx.Jobs().Enqueue(delivery.ActivityJob(delivery.TopicSendBlock, blockPayload(p, a, b.ActivityURI)))
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

func blockPayload(p *murlog.Persona, a *murlog.RemoteActor, id string) delivery.ActivityPayload {
	return delivery.ActivityPayload{PersonaID: p.ID, Actor: a.URI, Inbox: a.Inbox, Object: a.URI, ActivityID: id}
}

// Unblock lifts the persona's block and sends an Undo carrying the
// Block's id. Not blocked is not an error.
func (s *Service) Unblock(ctx context.Context, personaID, actorID string) error {
	return s.store.Update(ctx, func(tx store.Tx) error {
		p, a, err := personaActor(tx, personaID, actorID)
		if err != nil {
			return err
		}
		b, err := tx.Blocks().Get(p.ID, a.ID)
		if murlog.ErrorCode(err) == murlog.ENotFound {
			return nil
		}
		if err != nil {
			return err
		}
		if err := tx.Blocks().Delete(p.ID, a.ID); err != nil {
			return err
		}
		pl := blockPayload(p, a, b.ActivityURI)
		pl.UndoID = s.activityID(p)
		return tx.Jobs().Enqueue(delivery.ActivityJob(delivery.TopicSendUndoBlock, pl))
	})
}

// Blocks lists the persona's blocks, newest first.
func (s *Service) Blocks(ctx context.Context, personaID string) ([]*murlog.Block, error) {
	return view(s, ctx, personaID, func(tx store.Tx, p *murlog.Persona) ([]*murlog.Block, error) {
		return tx.Blocks().List(p.ID)
	})
}

// BlockedBy handles actorID's Block (activityURI) of the persona: the
// follows both ways end without a word (the remote side dropped them
// already) and nothing of the persona is delivered to it any more.
func (s *Service) BlockedBy(ctx context.Context, actorID, personaID, activityURI string) error {
	if err := checkID("persona_id", personaID); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		a, err := actor(tx, actorID)
		if err != nil {
			return err
		}
		p, err := persona(tx, personaID)
		if err != nil {
			return err
		}
		if err := dropFollows(tx, p.ID, a.ID); err != nil {
			return err
		}
		return tx.Blocks().AddBlockedBy(&murlog.Block{PersonaID: p.ID, ActorID: a.ID, ActivityURI: activityURI, CreatedAt: tx.Now()})
	})
}

// dropFollows removes the follows both ways between a persona and an
// actor, sending nothing.
func dropFollows(tx store.Tx, personaID, actorID string) error {
	if f, err := tx.Follows().GetByActor(personaID, actorID); err == nil {
		if err := tx.Follows().Delete(f.ID); err != nil {
			return err
		}
	} else if murlog.ErrorCode(err) != murlog.ENotFound {
		return err
	}
	if f, err := tx.Followers().GetByActor(personaID, actorID); err == nil {
		return tx.Followers().Delete(f.ID)
	} else if murlog.ErrorCode(err) != murlog.ENotFound {
		return err
	}
	return nil
}

// UnblockedBy handles actorID's Undo Block. Not blocked is not an error.
func (s *Service) UnblockedBy(ctx context.Context, actorID, personaID string) error {
	if err := checkID("actor_id", actorID); err != nil {
		return err
	}
	if err := checkID("persona_id", personaID); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		err := tx.Blocks().DeleteBlockedBy(personaID, actorID)
		if murlog.ErrorCode(err) == murlog.ENotFound {
			return nil
		}
		return err
	})
}

// normalDomain lower-cases a host[:port] and checks it looks like one.
func normalDomain(d string) (string, error) {
	d = strings.ToLower(strings.TrimSpace(d))
	if d == "" || len(d) > 253 || strings.ContainsAny(d, "/@ \t?#") {
		return "", murlog.Invalid("domain", "is not a host name")
	}
	return d, nil
}

// DomainBlock blocks a whole server: nothing from it is accepted, and the
// follows both ways with its actors are dropped (silently: the server is
// not told). EConflict when it is already blocked.
func (s *Service) DomainBlock(ctx context.Context, domain, reason string) (*murlog.DomainBlock, error) {
	d, err := normalDomain(domain)
	if err != nil {
		return nil, err
	}
	if len(reason) > 1000 {
		return nil, murlog.Invalid("reason", "is longer than 1000 characters")
	}
	var b *murlog.DomainBlock
	err = s.store.Update(ctx, func(tx store.Tx) error {
		b = &murlog.DomainBlock{Domain: d, Reason: strings.TrimSpace(reason), CreatedAt: tx.Now()}
		if err := tx.DomainBlocks().Create(b); err != nil {
			return err
		}
		if _, err := tx.Followers().DeleteByDomain(d); err != nil {
			return err
		}
		_, err := tx.Follows().DeleteByDomain(d)
		return err
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// DomainUnblock lifts a domain block; ENotFound when there is none.
func (s *Service) DomainUnblock(ctx context.Context, domain string) error {
	d, err := normalDomain(domain)
	if err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error { return tx.DomainBlocks().Delete(d) })
}

// IsDomainBlocked reports whether domain is blocked. It is the inbox's
// cheap check before any key fetch.
func (s *Service) IsDomainBlocked(ctx context.Context, domain string) (bool, error) {
	d, err := normalDomain(domain)
	if err != nil {
		return false, err
	}
	var ok bool
	err = s.store.View(ctx, func(tx store.Tx) (err error) { ok, err = tx.DomainBlocks().Has(d); return err })
	return ok, err
}

// DomainBlocks lists the blocked domains by name.
func (s *Service) DomainBlocks(ctx context.Context) ([]*murlog.DomainBlock, error) {
	var out []*murlog.DomainBlock
	err := s.store.View(ctx, func(tx store.Tx) (err error) { out, err = tx.DomainBlocks().List(); return err })
	return out, err
}
