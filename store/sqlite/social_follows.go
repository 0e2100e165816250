package sqlite

import (
	"database/sql"
	"time"

	"github.com/murlog/murlog"
)

// follows and followers keep the personas' counters through the triggers
// of 003_federation.sql, so a cascade from a deleted actor counts too.

type follows struct{ t *tx }

const followCols = "id, persona_id, actor_id, activity_uri, state, created_at, accepted_at"

func scanFollow(sc interface{ Scan(...any) error }) (*murlog.Follow, error) {
	var f murlog.Follow
	var created int64
	var accepted sql.NullInt64
	if err := sc.Scan(&f.ID, &f.PersonaID, &f.ActorID, &f.ActivityURI, &f.State, &created, &accepted); err != nil {
		return nil, err
	}
	f.CreatedAt, f.AcceptedAt = fromMicros(created), fromNullMicros(accepted)
	return &f, nil
}

func (r follows) Create(f *murlog.Follow) error {
	_, err := r.t.exec("INSERT INTO follows ("+followCols+") VALUES (?, ?, ?, ?, ?, ?, ?)",
		f.ID, f.PersonaID, f.ActorID, f.ActivityURI, string(f.State), micros(f.CreatedAt), nullMicros(f.AcceptedAt))
	return err
}

func (r follows) one(where string, args ...any) (*murlog.Follow, error) {
	return one(r.t, "follow", "SELECT "+followCols+" FROM follows WHERE "+where, scanFollow, args...)
}

func (r follows) Get(id string) (*murlog.Follow, error) { return r.one("id = ?", id) }

func (r follows) GetByActor(personaID, actorID string) (*murlog.Follow, error) {
	return r.one("persona_id = ? AND actor_id = ?", personaID, actorID)
}

func (r follows) GetByActivity(uri string) (*murlog.Follow, error) {
	return r.one("activity_uri = ?", uri)
}

func (r follows) SetState(id string, state murlog.FollowState, at time.Time) error {
	var acc any
	if state == murlog.FollowAccepted {
		acc = micros(at)
	}
	res, err := r.t.exec("UPDATE follows SET state = ?, accepted_at = ? WHERE id = ?", string(state), acc, id)
	return affected(res, err, "follow")
}

func (r follows) Delete(id string) error {
	res, err := r.t.exec("DELETE FROM follows WHERE id = ?", id)
	return affected(res, err, "follow")
}

func (r follows) List(personaID string, state murlog.FollowState, after string, limit int) ([]*murlog.Follow, error) {
	if limit <= 0 {
		return nil, murlog.Invalid("limit", "must be positive")
	}
	return many(r.t, "SELECT "+followCols+` FROM follows WHERE persona_id = ? AND (? = '' OR state = ?) AND id > ?
		ORDER BY id LIMIT CAST(? AS INTEGER)`, scanFollow, personaID, string(state), string(state), after, limit)
}

func (r follows) Count(personaID string, state murlog.FollowState) (int, error) {
	var n int
	err := r.t.queryRow("SELECT count(*) FROM follows WHERE persona_id = ? AND (? = '' OR state = ?)",
		[]any{personaID, string(state), string(state)}, &n)
	return n, err
}

func (r follows) Followed(actorID string) ([]string, error) {
	return many(r.t, "SELECT persona_id FROM follows WHERE actor_id = ? AND state = 'accepted' ORDER BY persona_id",
		scanString, actorID)
}

func (r follows) DeleteByDomain(domain string) (int, error) {
	return rowsAffected(r.t.exec(`DELETE FROM follows WHERE actor_id IN
		(SELECT id FROM remote_actors WHERE domain = ?)`, domain))
}

func scanString(sc interface{ Scan(...any) error }) (string, error) {
	var s string
	err := sc.Scan(&s)
	return s, err
}

type followers struct{ t *tx }

const followerCols = "id, persona_id, actor_id, activity_uri, state, created_at"

func scanFollower(sc interface{ Scan(...any) error }) (*murlog.Follower, error) {
	var f murlog.Follower
	var created int64
	if err := sc.Scan(&f.ID, &f.PersonaID, &f.ActorID, &f.ActivityURI, &f.State, &created); err != nil {
		return nil, err
	}
	f.CreatedAt = fromMicros(created)
	return &f, nil
}

// Create copies the actor's delivery inbox into the row; an unknown actor
// inserts nothing and is ENotFound.
func (r followers) Create(f *murlog.Follower) error {
	res, err := r.t.exec(`INSERT INTO followers (`+followerCols+`, delivery_inbox)
		SELECT ?, ?, id, ?, ?, ?, CASE WHEN shared_inbox != '' THEN shared_inbox ELSE inbox END
		FROM remote_actors WHERE id = ?`,
		f.ID, f.PersonaID, f.ActivityURI, string(f.State), micros(f.CreatedAt), f.ActorID)
	return affected(res, err, "remote actor")
}

func (r followers) one(where string, args ...any) (*murlog.Follower, error) {
	return one(r.t, "follower", "SELECT "+followerCols+" FROM followers WHERE "+where, scanFollower, args...)
}

func (r followers) Get(id string) (*murlog.Follower, error) { return r.one("id = ?", id) }

func (r followers) GetByActor(personaID, actorID string) (*murlog.Follower, error) {
	return r.one("persona_id = ? AND actor_id = ?", personaID, actorID)
}

func (r followers) GetByActivity(uri string) (*murlog.Follower, error) {
	return r.one("activity_uri = ?", uri)
}

func (r followers) SetState(id string, state murlog.FollowState) error {
	res, err := r.t.exec("UPDATE followers SET state = ? WHERE id = ?", string(state), id)
	return affected(res, err, "follower")
}

func (r followers) SetActivity(id, uri string) error {
	res, err := r.t.exec("UPDATE followers SET activity_uri = ? WHERE id = ?", uri, id)
	return affected(res, err, "follower")
}

func (r followers) Delete(id string) error {
	res, err := r.t.exec("DELETE FROM followers WHERE id = ?", id)
	return affected(res, err, "follower")
}

func (r followers) List(personaID string, state murlog.FollowState, after string, limit int) ([]*murlog.Follower, error) {
	if limit <= 0 {
		return nil, murlog.Invalid("limit", "must be positive")
	}
	return many(r.t, "SELECT "+followerCols+` FROM followers WHERE persona_id = ? AND (? = '' OR state = ?) AND id > ?
		ORDER BY id LIMIT CAST(? AS INTEGER)`, scanFollower, personaID, string(state), string(state), after, limit)
}

func (r followers) Count(personaID string, state murlog.FollowState) (int, error) {
	var n int
	err := r.t.queryRow("SELECT count(*) FROM followers WHERE persona_id = ? AND (? = '' OR state = ?)",
		[]any{personaID, string(state), string(state)}, &n)
	return n, err
}

// Inboxes walks followers_inbox in order; DISTINCT over an index in its
// own order is a skip-scan, not a sort.
func (r followers) Inboxes(personaID, after string, limit int) ([]string, error) {
	if limit <= 0 {
		return nil, murlog.Invalid("limit", "must be positive")
	}
	return many(r.t, `SELECT DISTINCT delivery_inbox FROM followers
		WHERE persona_id = ? AND state = 'accepted' AND delivery_inbox > ?
		ORDER BY delivery_inbox LIMIT CAST(? AS INTEGER)`, scanString, personaID, after, limit)
}

func (r followers) DeleteByDomain(domain string) (int, error) {
	return rowsAffected(r.t.exec(`DELETE FROM followers WHERE actor_id IN
		(SELECT id FROM remote_actors WHERE domain = ?)`, domain))
}
