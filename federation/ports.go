package federation

import (
	"context"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// StorePorts implements the handler's Tombstones, Followers,
// FollowerChecker and Pins over the store. They are ports rather than
// store calls in the handlers so that the documents' shapes can be tested
// apart from the federation tables, and so that the artifact store (a
// later stage) can answer them instead of the ledger.
type StorePorts struct{ Store store.Store }

// Tombstone reports when postID was deleted, if it was.
func (p StorePorts) Tombstone(ctx context.Context, postID string) (time.Time, bool, error) {
	var t *murlog.Tombstone
	err := p.Store.View(ctx, func(tx store.Tx) error {
		var err error
		t, err = tx.Tombstones().Get(postID)
		return err
	})
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	return t.DeletedAt, true, nil
}

// FollowerURIs pages the actor ids of a persona's accepted followers.
func (p StorePorts) FollowerURIs(ctx context.Context, personaID, after string, limit int) ([]string, string, error) {
	return p.page(ctx, after, limit, func(tx store.Tx, n int) ([]string, []string, error) {
		fs, err := tx.Followers().List(personaID, murlog.FollowAccepted, after, n)
		ids, actors := make([]string, len(fs)), make([]string, len(fs))
		for i, f := range fs {
			ids[i], actors[i] = f.ID, f.ActorID
		}
		return ids, actors, err
	})
}

// FollowingURIs pages the actor ids a persona follows (accepted follows).
func (p StorePorts) FollowingURIs(ctx context.Context, personaID, after string, limit int) ([]string, string, error) {
	return p.page(ctx, after, limit, func(tx store.Tx, n int) ([]string, []string, error) {
		fs, err := tx.Follows().List(personaID, murlog.FollowAccepted, after, n)
		ids, actors := make([]string, len(fs)), make([]string, len(fs))
		for i, f := range fs {
			ids[i], actors[i] = f.ID, f.ActorID
		}
		return ids, actors, err
	})
}

// page reads one page of relation rows (their ids are the cursor) and
// turns the remote actors' local ids into their URIs. One more row than
// asked is read to know whether a next page exists.
func (p StorePorts) page(ctx context.Context, after string, limit int, rows func(store.Tx, int) (ids, actorIDs []string, err error)) ([]string, string, error) {
	if after != "" && !murlog.ValidID(after) {
		return nil, "", murlog.Invalid("page", "is not a valid cursor")
	}
	var uris []string
	next := ""
	err := p.Store.View(ctx, func(tx store.Tx) error {
		ids, actorIDs, err := rows(tx, limit+1)
		if err != nil {
			return err
		}
		if len(ids) > limit {
			ids, actorIDs = ids[:limit], actorIDs[:limit]
			next = ids[limit-1]
		}
		actors, err := tx.RemoteActors().ListByIDs(actorIDs...)
		if err != nil {
			return err
		}
		byID := make(map[string]string, len(actors))
		for _, a := range actors {
			byID[a.ID] = a.URI
		}
		for _, id := range actorIDs {
			if u, ok := byID[id]; ok {
				uris = append(uris, u)
			}
		}
		return nil
	})
	return uris, next, err
}

// IsFollower reports whether actorURI is an accepted follower of the
// persona.
func (p StorePorts) IsFollower(ctx context.Context, personaID, actorURI string) (bool, error) {
	ok := false
	err := p.Store.View(ctx, func(tx store.Tx) error {
		a, err := tx.RemoteActors().GetByURI(actorURI)
		if err != nil {
			return err
		}
		f, err := tx.Followers().GetByActor(personaID, a.ID)
		if err != nil {
			return err
		}
		ok = f.State == murlog.FollowAccepted
		return nil
	})
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return false, nil
	}
	return ok, err
}

// PinnedPostIDs lists the persona's pinned posts, newest pin first.
func (p StorePorts) PinnedPostIDs(ctx context.Context, personaID string) ([]string, error) {
	var ids []string
	err := p.Store.View(ctx, func(tx store.Tx) error {
		pins, err := tx.Pins().List(personaID)
		for _, pin := range pins {
			ids = append(ids, pin.PostID)
		}
		return err
	})
	return ids, err
}
