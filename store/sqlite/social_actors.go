package sqlite

import (
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/murlog/murlog"
)

// many runs a query and scans every row with scan.
func many[T any](t *tx, query string, scan func(interface{ Scan(...any) error }) (T, error), args ...any) ([]T, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, mapErr(err)
		}
		out = append(out, v)
	}
	return out, mapErr(rows.Err())
}

// nullStr stores "" as NULL, for optional references.
func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func jsonText(v any) string {
	b, _ := json.Marshal(v) // slices of strings and plain structs only
	return string(b)
}

// placeholders returns "?, ?, …" for n arguments.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

type remoteActors struct{ t *tx }

const remoteActorCols = `id, uri, username, domain, display_name, summary, url, inbox, shared_inbox, outbox,
	followers, following, featured, avatar_url, header_url, type, locked, discoverable, fields, key_id,
	public_key_pem, ed25519_key_id, ed25519_key, moved_to, fetched_at, created_at, updated_at`

func scanRemoteActor(sc interface{ Scan(...any) error }) (*murlog.RemoteActor, error) {
	var a murlog.RemoteActor
	var fields string
	var fetched, created, updated int64
	err := sc.Scan(&a.ID, &a.URI, &a.Username, &a.Domain, &a.DisplayName, &a.Summary, &a.URL, &a.Inbox,
		&a.SharedInbox, &a.Outbox, &a.Followers, &a.Following, &a.Featured, &a.AvatarURL, &a.HeaderURL,
		&a.Type, &a.Locked, &a.Discoverable, &fields, &a.KeyID, &a.PublicKeyPEM, &a.Ed25519KeyID,
		&a.Ed25519Key, &a.MovedTo, &fetched, &created, &updated)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(fields), &a.Fields); err != nil {
		return nil, murlog.Internal(err)
	}
	a.FetchedAt, a.CreatedAt, a.UpdatedAt = fromMicros(fetched), fromMicros(created), fromMicros(updated)
	return &a, nil
}

// Upsert keeps id and created_at of an existing row: excluded.* are the
// new values, and neither column is in the SET list.
func (r remoteActors) Upsert(a *murlog.RemoteActor) error {
	if a.ID == "" {
		a.ID = murlog.NewID()
	}
	var created int64
	err := r.t.queryRow(`INSERT INTO remote_actors (`+remoteActorCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (uri) DO UPDATE SET username = excluded.username, domain = excluded.domain,
		display_name = excluded.display_name, summary = excluded.summary, url = excluded.url,
		inbox = excluded.inbox, shared_inbox = excluded.shared_inbox, outbox = excluded.outbox,
		followers = excluded.followers, following = excluded.following, featured = excluded.featured,
		avatar_url = excluded.avatar_url, header_url = excluded.header_url, type = excluded.type,
		locked = excluded.locked, discoverable = excluded.discoverable, fields = excluded.fields,
		key_id = excluded.key_id, public_key_pem = excluded.public_key_pem,
		ed25519_key_id = excluded.ed25519_key_id, ed25519_key = excluded.ed25519_key,
		moved_to = excluded.moved_to, fetched_at = excluded.fetched_at, updated_at = excluded.updated_at
		RETURNING id, created_at`,
		[]any{a.ID, a.URI, a.Username, a.Domain, a.DisplayName, a.Summary, a.URL, a.Inbox, a.SharedInbox,
			a.Outbox, a.Followers, a.Following, a.Featured, a.AvatarURL, a.HeaderURL, a.Type,
			boolInt(a.Locked), boolInt(a.Discoverable), fieldsJSON(a.Fields), a.KeyID, a.PublicKeyPEM,
			a.Ed25519KeyID, a.Ed25519Key, a.MovedTo, micros(a.FetchedAt), micros(a.CreatedAt), micros(a.UpdatedAt)},
		&a.ID, &created)
	if err != nil {
		return mapErr(err)
	}
	a.CreatedAt = fromMicros(created)
	return nil
}

func (r remoteActors) one(where string, args ...any) (*murlog.RemoteActor, error) {
	return one(r.t, "remote actor", "SELECT "+remoteActorCols+" FROM remote_actors WHERE "+where, scanRemoteActor, args...)
}

func (r remoteActors) Get(id string) (*murlog.RemoteActor, error) { return r.one("id = ?", id) }

func (r remoteActors) GetByURI(uri string) (*murlog.RemoteActor, error) {
	return r.one("uri = ?", uri)
}

// GetByKeyID is two index lookups; the not-empty terms let the planner use
// the partial indexes.
func (r remoteActors) GetByKeyID(keyID string) (*murlog.RemoteActor, error) {
	if keyID == "" {
		return nil, murlog.NotFound("remote actor")
	}
	return r.one(`id = coalesce((SELECT id FROM remote_actors WHERE key_id = ?1 AND key_id != ''),
		(SELECT id FROM remote_actors WHERE ed25519_key_id = ?1 AND ed25519_key_id != ''))`, keyID)
}

func (r remoteActors) ListByIDs(ids ...string) ([]*murlog.RemoteActor, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return many(r.t, "SELECT "+remoteActorCols+" FROM remote_actors WHERE id IN ("+placeholders(len(ids))+")", scanRemoteActor, args...)
}

func (r remoteActors) SetMovedTo(id, target string, at time.Time) error {
	res, err := r.t.exec("UPDATE remote_actors SET moved_to = ?, updated_at = ? WHERE id = ?", target, micros(at), id)
	return affected(res, err, "remote actor")
}

func (r remoteActors) Delete(id string) error {
	res, err := r.t.exec("DELETE FROM remote_actors WHERE id = ?", id)
	return affected(res, err, "remote actor")
}

// Prune deletes in one statement over a bounded candidate list, so a run
// holds the write lock for at most limit deletions.
func (r remoteActors) Prune(before time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, murlog.Invalid("limit", "must be positive")
	}
	res, err := r.t.exec(`DELETE FROM remote_actors WHERE id IN (
		SELECT a.id FROM remote_actors a WHERE a.fetched_at < ?1
		AND NOT EXISTS (SELECT 1 FROM follows WHERE actor_id = a.id)
		AND NOT EXISTS (SELECT 1 FROM followers WHERE actor_id = a.id)
		AND NOT EXISTS (SELECT 1 FROM blocks WHERE actor_id = a.id)
		AND NOT EXISTS (SELECT 1 FROM blocked_by WHERE actor_id = a.id)
		AND NOT EXISTS (SELECT 1 FROM remote_posts WHERE actor_id = a.id)
		AND NOT EXISTS (SELECT 1 FROM interactions WHERE actor_id = a.id)
		AND NOT EXISTS (SELECT 1 FROM notifications WHERE actor_id = a.id AND created_at >= ?1)
		LIMIT CAST(?2 AS INTEGER))`, micros(before), limit)
	return rowsAffected(res, err)
}

type remotePosts struct{ t *tx }

const remotePostCols = `id, uri, actor_id, type, url, name, content, summary, sensitive, visibility,
	in_reply_to, quote_of, language, attachments, tags, mentions, published_at, updated_at, received_at`

func scanRemotePost(sc interface{ Scan(...any) error }) (*murlog.RemotePost, error) {
	var p murlog.RemotePost
	var att, tags, mentions string
	var pub, received int64
	var upd sql.NullInt64
	err := sc.Scan(&p.ID, &p.URI, &p.ActorID, &p.Type, &p.URL, &p.Name, &p.Content, &p.Summary, &p.Sensitive,
		&p.Visibility, &p.InReplyTo, &p.QuoteOf, &p.Language, &att, &tags, &mentions, &pub, &upd, &received)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(att), &p.Attachments); err != nil {
		return nil, murlog.Internal(err)
	}
	if p.Tags, err = parseTags(tags); err != nil {
		return nil, murlog.Internal(err)
	}
	if err := json.Unmarshal([]byte(mentions), &p.Mentions); err != nil {
		return nil, murlog.Internal(err)
	}
	p.PublishedAt, p.ReceivedAt, p.UpdatedAt = fromMicros(pub), fromMicros(received), fromNullMicros(upd)
	return &p, nil
}

func stringsJSON(s []string) string {
	if s == nil {
		s = []string{}
	}
	return jsonText(s)
}

// Upsert never moves a post to another owner: actor_id is not in the SET
// list, and the caller checks ownership before an update.
func (r remotePosts) Upsert(p *murlog.RemotePost) error {
	if p.ID == "" {
		p.ID = murlog.NewID()
	}
	att := p.Attachments
	if att == nil {
		att = []murlog.RemoteAttachment{}
	}
	var received int64
	err := r.t.queryRow(`INSERT INTO remote_posts (`+remotePostCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (uri) DO UPDATE SET type = excluded.type, url = excluded.url, name = excluded.name,
		content = excluded.content, summary = excluded.summary, sensitive = excluded.sensitive,
		visibility = excluded.visibility, in_reply_to = excluded.in_reply_to, quote_of = excluded.quote_of,
		language = excluded.language, attachments = excluded.attachments, tags = excluded.tags,
		mentions = excluded.mentions, published_at = excluded.published_at, updated_at = excluded.updated_at
		RETURNING id, received_at`,
		[]any{p.ID, p.URI, p.ActorID, p.Type, p.URL, p.Name, p.Content, p.Summary, boolInt(p.Sensitive),
			string(p.Visibility), p.InReplyTo, p.QuoteOf, p.Language, jsonText(att), tagsJSON(p.Tags),
			stringsJSON(p.Mentions), micros(p.PublishedAt), nullMicros(p.UpdatedAt), micros(p.ReceivedAt)},
		&p.ID, &received)
	if err != nil {
		return mapErr(err)
	}
	p.ReceivedAt = fromMicros(received)
	return nil
}

func (r remotePosts) one(where string, arg any) (*murlog.RemotePost, error) {
	return one(r.t, "remote post", "SELECT "+remotePostCols+" FROM remote_posts WHERE "+where, scanRemotePost, arg)
}

func (r remotePosts) Get(id string) (*murlog.RemotePost, error) { return r.one("id = ?", id) }

func (r remotePosts) GetByURI(uri string) (*murlog.RemotePost, error) {
	return r.one("uri = ?", uri)
}

func (r remotePosts) Replies(uri string, limit int) ([]*murlog.RemotePost, error) {
	return many(r.t, "SELECT "+remotePostCols+" FROM remote_posts WHERE in_reply_to = ? ORDER BY published_at, id LIMIT CAST(? AS INTEGER)",
		scanRemotePost, uri, limit)
}

func (r remotePosts) Delete(id string) error {
	res, err := r.t.exec("DELETE FROM remote_posts WHERE id = ?", id)
	return affected(res, err, "remote post")
}

func (r remotePosts) DeleteByActor(actorID string) (int, error) {
	return rowsAffected(r.t.exec("DELETE FROM remote_posts WHERE actor_id = ?", actorID))
}

// Prune walks remote_posts_received from the oldest; each NOT EXISTS is
// one index probe.
func (r remotePosts) Prune(before time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, murlog.Invalid("limit", "must be positive")
	}
	res, err := r.t.exec(`DELETE FROM remote_posts WHERE id IN (
		SELECT p.id FROM remote_posts p WHERE p.received_at < ?1
		AND NOT EXISTS (SELECT 1 FROM interactions WHERE remote_post_id = p.id)
		AND NOT EXISTS (SELECT 1 FROM interactions WHERE object_uri = p.uri AND persona_id IS NOT NULL)
		AND NOT EXISTS (SELECT 1 FROM posts WHERE in_reply_to = p.uri AND in_reply_to != '')
		AND NOT EXISTS (SELECT 1 FROM posts WHERE quote_of = p.uri AND quote_of != '')
		AND NOT EXISTS (SELECT 1 FROM notifications WHERE remote_post_id = p.id
			AND (kind IN ('mention', 'reply', 'quote') OR created_at >= ?1))
		ORDER BY p.received_at LIMIT CAST(?2 AS INTEGER))`, micros(before), limit)
	return rowsAffected(res, err)
}
