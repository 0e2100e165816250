package sqlite

import (
	"database/sql"
	"errors"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

type pins struct{ t *tx }

func (r pins) Pin(p *murlog.Pin) error {
	_, err := r.t.exec("INSERT INTO pins (persona_id, post_id, pinned_at) VALUES (?, ?, ?)", p.PersonaID, p.PostID, micros(p.PinnedAt))
	return err
}

func (r pins) Unpin(personaID, postID string) error {
	res, err := r.t.exec("DELETE FROM pins WHERE persona_id = ? AND post_id = ?", personaID, postID)
	return affected(res, err, "pin")
}

func (r pins) List(personaID string) ([]*murlog.Pin, error) {
	return many(r.t, "SELECT persona_id, post_id, pinned_at FROM pins WHERE persona_id = ? ORDER BY pinned_at DESC, post_id DESC",
		func(sc interface{ Scan(...any) error }) (*murlog.Pin, error) {
			var p murlog.Pin
			var at int64
			if err := sc.Scan(&p.PersonaID, &p.PostID, &at); err != nil {
				return nil, err
			}
			p.PinnedAt = fromMicros(at)
			return &p, nil
		}, personaID)
}

type tombstones struct{ t *tx }

func (r tombstones) Put(t *murlog.Tombstone) error {
	_, err := r.t.exec(`INSERT INTO tombstones (uri, persona_id, post_id, type, deleted_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (uri) DO UPDATE SET persona_id = excluded.persona_id, post_id = excluded.post_id,
		type = excluded.type, deleted_at = excluded.deleted_at`,
		t.URI, t.PersonaID, t.PostID, t.Type, micros(t.DeletedAt))
	return err
}

func scanTombstone(sc interface{ Scan(...any) error }) (*murlog.Tombstone, error) {
	var t murlog.Tombstone
	var at int64
	if err := sc.Scan(&t.URI, &t.PersonaID, &t.PostID, &t.Type, &at); err != nil {
		return nil, err
	}
	t.DeletedAt = fromMicros(at)
	return &t, nil
}

func (r tombstones) Get(postID string) (*murlog.Tombstone, error) {
	return one(r.t, "tombstone", "SELECT uri, persona_id, post_id, type, deleted_at FROM tombstones WHERE post_id = ? LIMIT 1", scanTombstone, postID)
}

func (r tombstones) GetByURI(uri string) (*murlog.Tombstone, error) {
	return one(r.t, "tombstone", "SELECT uri, persona_id, post_id, type, deleted_at FROM tombstones WHERE uri = ?", scanTombstone, uri)
}

type timeline struct{ t *tx }

func (r timeline) Add(e *murlog.TimelineEntry) error {
	_, err := r.t.exec(`INSERT INTO timeline (id, persona_id, remote_post_id, boosted_by, announce_uri, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		e.ID, e.PersonaID, e.RemotePostID, nullStr(e.BoostedBy), e.AnnounceURI, micros(e.CreatedAt))
	return err
}

func (r timeline) DeleteByAnnounce(boostedBy, uri string) error {
	if uri == "" {
		return nil
	}
	_, err := r.t.exec("DELETE FROM timeline WHERE announce_uri = ? AND boosted_by = ?", uri, boostedBy)
	return err
}

// List is one UNION ALL of two index range scans — the persona's
// published posts by publication, its entries by receipt — merged by
// SQLite and cut at limit; then each item is loaded by key.
func (r timeline) List(personaID string, now time.Time, before string, limit int) ([]*store.TimelineItem, error) {
	if limit <= 0 {
		return nil, murlog.Invalid("limit", "must be positive")
	}
	bound, bid := micros(now)+1, ""
	if before != "" {
		at, err := r.sortKey(personaID, now, before)
		if err != nil {
			return nil, err
		}
		bound, bid = at, before
	}
	type key struct {
		local bool
		id    string
		at    int64
	}
	// (at, id) < (bound, bid): with bid "" the first page takes every row
	// at or before now.
	keys, err := many(r.t, `SELECT 1, id, published_at AS at FROM posts
			WHERE persona_id = ?1 AND published_at IS NOT NULL AND published_at <= ?2 AND (published_at < ?3 OR (published_at = ?3 AND id < ?4))
		UNION ALL
		SELECT 0, id, created_at AS at FROM timeline
			WHERE persona_id = ?1 AND (created_at < ?3 OR (created_at = ?3 AND id < ?4))
		ORDER BY at DESC, id DESC LIMIT CAST(?5 AS INTEGER)`,
		func(sc interface{ Scan(...any) error }) (key, error) {
			var k key
			err := sc.Scan(&k.local, &k.id, &k.at)
			return k, err
		}, personaID, micros(now), bound, orMax(bid), limit)
	if err != nil {
		return nil, err
	}
	out := make([]*store.TimelineItem, 0, len(keys))
	for _, k := range keys {
		it := &store.TimelineItem{ID: k.id, At: fromMicros(k.at)}
		if k.local {
			if it.Post, err = (posts{r.t}).Get(k.id); err != nil {
				return nil, err
			}
		} else {
			if it.Entry, err = r.entry(k.id); err != nil {
				return nil, err
			}
			if it.RemotePost, err = (remotePosts{r.t}).Get(it.Entry.RemotePostID); err != nil {
				return nil, err
			}
		}
		out = append(out, it)
	}
	return out, nil
}

// orMax makes the first page's id bound larger than every id.
func orMax(id string) string {
	if id == "" {
		return "\uffff"
	}
	return id
}

func (r timeline) sortKey(personaID string, now time.Time, id string) (int64, error) {
	var at int64
	err := r.t.queryRow(`SELECT at FROM (
		SELECT published_at AS at FROM posts WHERE id = ?1 AND persona_id = ?2 AND published_at IS NOT NULL AND published_at <= ?3
		UNION ALL SELECT created_at FROM timeline WHERE id = ?1 AND persona_id = ?2) LIMIT 1`,
		[]any{id, personaID, micros(now)}, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, murlog.Invalid("cursor", "unknown cursor")
	}
	return at, err
}

func (r timeline) entry(id string) (*murlog.TimelineEntry, error) {
	return one(r.t, "timeline entry", "SELECT id, persona_id, remote_post_id, boosted_by, announce_uri, created_at FROM timeline WHERE id = ?",
		func(sc interface{ Scan(...any) error }) (*murlog.TimelineEntry, error) {
			var e murlog.TimelineEntry
			var by sql.NullString
			var at int64
			if err := sc.Scan(&e.ID, &e.PersonaID, &e.RemotePostID, &by, &e.AnnounceURI, &at); err != nil {
				return nil, err
			}
			e.BoostedBy, e.CreatedAt = by.String, fromMicros(at)
			return &e, nil
		}, id)
}
