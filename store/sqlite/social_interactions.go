package sqlite

import (
	"database/sql"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

type interactions struct{ t *tx }

const interactionCols = "id, kind, actor_id, post_id, persona_id, object_uri, remote_post_id, activity_uri, content, created_at"

func scanInteraction(sc interface{ Scan(...any) error }) (*murlog.Interaction, error) {
	var i murlog.Interaction
	var actor, post, persona, rpost sql.NullString
	var created int64
	if err := sc.Scan(&i.ID, &i.Kind, &actor, &post, &persona, &i.ObjectURI, &rpost, &i.ActivityURI, &i.Content, &created); err != nil {
		return nil, err
	}
	i.ActorID, i.PostID, i.PersonaID, i.RemotePostID = actor.String, post.String, persona.String, rpost.String
	i.CreatedAt = fromMicros(created)
	return &i, nil
}

func (r interactions) Create(i *murlog.Interaction) error {
	if (i.ActorID == "") == (i.PersonaID == "") {
		return murlog.Invalid("interaction", "needs either a remote actor or a persona")
	}
	_, err := r.t.exec("INSERT INTO interactions ("+interactionCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		i.ID, string(i.Kind), nullStr(i.ActorID), nullStr(i.PostID), nullStr(i.PersonaID), i.ObjectURI,
		nullStr(i.RemotePostID), i.ActivityURI, i.Content, micros(i.CreatedAt))
	return err
}

func (r interactions) one(where string, args ...any) (*murlog.Interaction, error) {
	return one(r.t, "interaction", "SELECT "+interactionCols+" FROM interactions WHERE "+where, scanInteraction, args...)
}

func (r interactions) GetByActivity(uri string) (*murlog.Interaction, error) {
	return r.one("activity_uri = ?", uri)
}

func (r interactions) GetInbound(actorID string, kind murlog.InteractionKind, postID string) (*murlog.Interaction, error) {
	return r.one("post_id = ? AND kind = ? AND actor_id = ?", postID, string(kind), actorID)
}

func (r interactions) GetOutbound(personaID string, kind murlog.InteractionKind, objectURI string) (*murlog.Interaction, error) {
	return r.one("persona_id = ? AND kind = ? AND object_uri = ?", personaID, string(kind), objectURI)
}

func (r interactions) Delete(id string) error {
	res, err := r.t.exec("DELETE FROM interactions WHERE id = ?", id)
	return affected(res, err, "interaction")
}

func (r interactions) Counts(postID string) (likes, announces int, err error) {
	err = r.t.queryRow(`SELECT count(*) FILTER (WHERE kind = 'like'), count(*) FILTER (WHERE kind = 'announce')
		FROM interactions WHERE post_id = ? AND actor_id IS NOT NULL`, []any{postID}, &likes, &announces)
	return likes, announces, err
}

type blocks struct{ t *tx }

func scanBlock(sc interface{ Scan(...any) error }) (*murlog.Block, error) {
	var b murlog.Block
	var created int64
	if err := sc.Scan(&b.PersonaID, &b.ActorID, &b.ActivityURI, &created); err != nil {
		return nil, err
	}
	b.CreatedAt = fromMicros(created)
	return &b, nil
}

func (r blocks) Create(b *murlog.Block) error {
	_, err := r.t.exec("INSERT INTO blocks (persona_id, actor_id, activity_uri, created_at) VALUES (?, ?, ?, ?)",
		b.PersonaID, b.ActorID, b.ActivityURI, micros(b.CreatedAt))
	return err
}

func (r blocks) Get(personaID, actorID string) (*murlog.Block, error) {
	return one(r.t, "block", "SELECT persona_id, actor_id, activity_uri, created_at FROM blocks WHERE persona_id = ? AND actor_id = ?",
		scanBlock, personaID, actorID)
}

func (r blocks) Delete(personaID, actorID string) error {
	res, err := r.t.exec("DELETE FROM blocks WHERE persona_id = ? AND actor_id = ?", personaID, actorID)
	return affected(res, err, "block")
}

func (r blocks) List(personaID string) ([]*murlog.Block, error) {
	return many(r.t, "SELECT persona_id, actor_id, activity_uri, created_at FROM blocks WHERE persona_id = ? ORDER BY created_at DESC, actor_id",
		scanBlock, personaID)
}

func (r blocks) Blocking(actorID string) (bool, error) {
	var n int
	err := r.t.queryRow("SELECT EXISTS (SELECT 1 FROM blocks WHERE actor_id = ?)", []any{actorID}, &n)
	return n == 1, err
}

func (r blocks) AddBlockedBy(b *murlog.Block) error {
	_, err := r.t.exec(`INSERT INTO blocked_by (persona_id, actor_id, activity_uri, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT DO UPDATE SET activity_uri = excluded.activity_uri`,
		b.PersonaID, b.ActorID, b.ActivityURI, micros(b.CreatedAt))
	return err
}

func (r blocks) DeleteBlockedBy(personaID, actorID string) error {
	res, err := r.t.exec("DELETE FROM blocked_by WHERE persona_id = ? AND actor_id = ?", personaID, actorID)
	return affected(res, err, "block")
}

func (r blocks) IsBlockedBy(personaID, actorID string) (bool, error) {
	var n int
	err := r.t.queryRow("SELECT EXISTS (SELECT 1 FROM blocked_by WHERE persona_id = ? AND actor_id = ?)", []any{personaID, actorID}, &n)
	return n == 1, err
}

type domainBlocks struct{ t *tx }

func (r domainBlocks) Create(b *murlog.DomainBlock) error {
	_, err := r.t.exec("INSERT INTO domain_blocks (domain, reason, created_at) VALUES (?, ?, ?)", b.Domain, b.Reason, micros(b.CreatedAt))
	return err
}

func (r domainBlocks) Delete(domain string) error {
	res, err := r.t.exec("DELETE FROM domain_blocks WHERE domain = ?", domain)
	return affected(res, err, "domain block")
}

func (r domainBlocks) Has(domain string) (bool, error) {
	var n int
	err := r.t.queryRow("SELECT EXISTS (SELECT 1 FROM domain_blocks WHERE domain = ?)", []any{domain}, &n)
	return n == 1, err
}

func (r domainBlocks) List() ([]*murlog.DomainBlock, error) {
	return many(r.t, "SELECT domain, reason, created_at FROM domain_blocks ORDER BY domain", func(sc interface{ Scan(...any) error }) (*murlog.DomainBlock, error) {
		var b murlog.DomainBlock
		var created int64
		if err := sc.Scan(&b.Domain, &b.Reason, &created); err != nil {
			return nil, err
		}
		b.CreatedAt = fromMicros(created)
		return &b, nil
	})
}

type notifications struct{ t *tx }

const notificationCols = "id, persona_id, kind, actor_id, post_id, remote_post_id, read, created_at"

func scanNotification(sc interface{ Scan(...any) error }) (*murlog.Notification, error) {
	var n murlog.Notification
	var actor, post, rpost sql.NullString
	var created int64
	if err := sc.Scan(&n.ID, &n.PersonaID, &n.Kind, &actor, &post, &rpost, &n.Read, &created); err != nil {
		return nil, err
	}
	n.ActorID, n.PostID, n.RemotePostID = actor.String, post.String, rpost.String
	n.CreatedAt = fromMicros(created)
	return &n, nil
}

func (r notifications) Create(n *murlog.Notification) error {
	_, err := r.t.exec("INSERT INTO notifications ("+notificationCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		n.ID, n.PersonaID, string(n.Kind), nullStr(n.ActorID), nullStr(n.PostID), nullStr(n.RemotePostID),
		boolInt(n.Read), micros(n.CreatedAt))
	return err
}

func (r notifications) List(q store.NotificationQuery) ([]*murlog.Notification, error) {
	if q.Limit <= 0 {
		return nil, murlog.Invalid("limit", "must be positive")
	}
	query := "SELECT " + notificationCols + " FROM notifications WHERE persona_id = ?"
	args := []any{q.PersonaID}
	if q.Before != "" {
		query += " AND id < ?"
		args = append(args, q.Before)
	}
	if len(q.Kinds) > 0 {
		query += " AND kind IN (" + placeholders(len(q.Kinds)) + ")"
		for _, k := range q.Kinds {
			args = append(args, string(k))
		}
	}
	return many(r.t, query+" ORDER BY id DESC LIMIT CAST(? AS INTEGER)", scanNotification, append(args, q.Limit)...)
}

func (r notifications) CountUnread(personaID string) (int, error) {
	var n int
	err := r.t.queryRow("SELECT count(*) FROM notifications WHERE persona_id = ? AND read = 0", []any{personaID}, &n)
	return n, err
}

func (r notifications) MarkRead(personaID string, ids ...string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	args := []any{personaID}
	for _, id := range ids {
		args = append(args, id)
	}
	return rowsAffected(r.t.exec("UPDATE notifications SET read = 1 WHERE persona_id = ? AND read = 0 AND id IN ("+placeholders(len(ids))+")", args...))
}

func (r notifications) MarkAllRead(personaID string) (int, error) {
	return rowsAffected(r.t.exec("UPDATE notifications SET read = 1 WHERE persona_id = ? AND read = 0", personaID))
}

func (r notifications) Delete(personaID, id string) error {
	res, err := r.t.exec("DELETE FROM notifications WHERE persona_id = ? AND id = ?", personaID, id)
	return affected(res, err, "notification")
}

// deliveries are keyed (key, inbox); a post's rows are one range of the
// primary key.
type deliveries struct{ t *tx }

func (r deliveries) Add(key string, at time.Time, inboxes ...string) error {
	for _, in := range inboxes {
		if _, err := r.t.exec(`INSERT INTO deliveries (key, inbox, state, updated_at) VALUES (?, ?, 'pending', ?)
			ON CONFLICT DO NOTHING`, key, in, micros(at)); err != nil {
			return err
		}
	}
	return nil
}

func (r deliveries) Set(key, inbox string, state murlog.DeliveryState, errMsg string, at time.Time) error {
	attempted := boolInt(state == murlog.DeliveryFailed || state == murlog.DeliveryDelivered ||
		state == murlog.DeliveryPending && errMsg != "")
	_, err := r.t.exec(`INSERT INTO deliveries (key, inbox, state, attempts, last_error, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
		ON CONFLICT DO UPDATE SET state = ?3, attempts = attempts + ?4, last_error = ?5, updated_at = ?6`,
		key, inbox, string(state), attempted, truncateRunes(errMsg, store.MaxDomainError), micros(at))
	return err
}

const deliveryCols = "key, inbox, state, attempts, last_error, updated_at"

func scanDelivery(sc interface{ Scan(...any) error }) (*murlog.Delivery, error) {
	var d murlog.Delivery
	var upd int64
	if err := sc.Scan(&d.Key, &d.Inbox, &d.State, &d.Attempts, &d.LastError, &upd); err != nil {
		return nil, err
	}
	d.UpdatedAt = fromMicros(upd)
	return &d, nil
}

func (r deliveries) Summary(key string) (*store.DeliverySummary, error) {
	var s store.DeliverySummary
	err := r.t.queryRow(`SELECT count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = 'delivered'),
		count(*) FILTER (WHERE state = 'failed'), count(*) FILTER (WHERE state = 'skipped') FROM deliveries WHERE key = ?`,
		[]any{key}, &s.Pending, &s.Delivered, &s.Failed, &s.Skipped)
	if err != nil {
		return nil, err
	}
	if s.Failed > 0 {
		s.LastErrors, err = many(r.t, "SELECT "+deliveryCols+` FROM deliveries WHERE key = ? AND state = 'failed'
			ORDER BY updated_at DESC, inbox LIMIT CAST(? AS INTEGER)`, scanDelivery, key, store.MaxDeliveryErrors)
	}
	return &s, err
}

func (r deliveries) List(key, after string, limit int) ([]*murlog.Delivery, error) {
	if limit <= 0 {
		return nil, murlog.Invalid("limit", "must be positive")
	}
	return many(r.t, "SELECT "+deliveryCols+" FROM deliveries WHERE key = ? AND inbox > ? ORDER BY inbox LIMIT CAST(? AS INTEGER)",
		scanDelivery, key, after, limit)
}
