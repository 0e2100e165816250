package sqlite

import (
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// publicCols are postCols without the source: the public never sees the
// owner's source text, and a list then reads about half the bytes (a row's
// source and content are most of it).
const publicCols = `id, persona_id, kind, title, '' AS source, content, summary, sensitive, visibility,
	language, tags, in_reply_to, quote_of, mentions, as_note, published_at, created_at, updated_at, excerpt, image, slug, page`

// excerptCols are publicCols for a list of excerpts (PublicQuery.Excerpts):
// the content is read only for a row with no stored excerpt.
const excerptCols = `id, persona_id, kind, title, '' AS source, CASE WHEN excerpt = '' THEN content ELSE '' END AS content,
	summary, sensitive, visibility, language, tags, in_reply_to, quote_of, mentions, as_note, published_at, created_at,
	updated_at, excerpt, image, slug, page`

// publicPosts are the anonymous reader's queries. Each includes
// publicPredicate; "listed" adds visibility = 'public'.
//
// Every query has one of a few fixed texts (variable inputs such as id
// lists and search terms travel as one JSON or FTS parameter), so the
// per-connection statement cache, which is keyed by the text, stays small
// whatever readers send.
type publicPosts struct{ t *tx }

// shown is the predicate of the sitemap: every post and page anyone may
// come across; listed, that of lists, tag pages, neighbours, search and
// feeds, leaves the pages out (the site menu lists them).
const (
	shown  = publicPredicate + ` AND visibility = 'public'`
	listed = shown + ` AND page = 0`
)

func (r publicPosts) Get(id string, now time.Time) (*murlog.Post, error) {
	return one(r.t, "post", "SELECT "+publicCols+" FROM posts WHERE id = ? AND "+publicPredicate, scanPost, id, micros(now))
}

// cursor is the (published_at, id) key of a listed, published post.
type cursor struct {
	pub int64
	id  string
}

// cursorKey reads the sort key of the post a page continues after. It must
// be listed and published: a cursor must not reveal anything about drafts,
// and a post outside every list has no place in one.
func (r publicPosts) cursorKey(id string, now int64) (*cursor, error) {
	if id == "" {
		return nil, nil
	}
	var pub int64
	err := r.t.queryRow("SELECT published_at FROM posts WHERE id = ? AND "+listed, []any{id, now}, &pub)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, murlog.Invalid("cursor", "unknown cursor")
	}
	if err != nil {
		return nil, err
	}
	return &cursor{pub: pub, id: id}, nil
}

// sortKey names the columns holding a query's (published_at, id) order.
// Tag pages walk post_tags_page, whose copy of published_at must bound the
// range itself (upper says so): the predicate bounds only posts' column.
type sortKey struct {
	pub, id string
	upper   bool
}

var (
	postsKey = sortKey{pub: "published_at", id: "id"}
	tagsKey  = sortKey{pub: "t.pub_at", id: "t.post_id", upper: true}
)

// page completes a listed query with the cursor range, the order and the
// limit. It bounds the index range on both ends, as posts.List does: going
// newest first after a cursor, the predicate's upper bound becomes the
// cursor's published_at (itself ≤ now, so the predicate still holds);
// going oldest first, an explicit lower bound on published_at lets SQLite
// seek to the cursor instead of walking every older entry to test the row
// value. Deep pages then cost what the first one does.
//
// where holds the query up to and including listed; args its arguments,
// of which args[nowSlot] is now's slot in publicPredicate.
func page(where string, args []any, nowSlot int, k sortKey, c *cursor, oldest bool, limit int) (string, []any) {
	q := where
	if c != nil && !oldest {
		args[nowSlot] = c.pub
	}
	if k.upper {
		q += " AND " + k.pub + " <= ?"
		args = append(args, args[nowSlot])
	}
	switch {
	case c != nil && oldest:
		q += " AND " + k.pub + " >= ? AND (" + k.pub + ", " + k.id + ") > (?, ?)"
		args = append(args, c.pub, c.pub, c.id)
	case c != nil:
		q += " AND (" + k.pub + ", " + k.id + ") < (?, ?)"
		args = append(args, c.pub, c.id)
	}
	if oldest {
		q += " ORDER BY " + k.pub + ", " + k.id + " LIMIT CAST(? AS INTEGER)"
	} else {
		q += " ORDER BY " + k.pub + " DESC, " + k.id + " DESC LIMIT CAST(? AS INTEGER)"
	}
	return q, append(args, limit)
}

// List reads a tag page from post_tags_page in order, joining each entry to
// its post; other lists walk the posts indexes.
func (r publicPosts) List(q store.PublicQuery) ([]*murlog.Post, error) {
	if q.Limit <= 0 {
		return nil, murlog.Invalid("limit", "must be positive")
	}
	now := micros(q.Now)
	c, err := r.cursorKey(q.After, now)
	if err != nil {
		return nil, err
	}
	cols := publicCols
	if q.Excerpts {
		cols = excerptCols
	}
	where, key := "SELECT "+cols+" FROM posts WHERE ", postsKey
	var args []any
	if q.Tag != "" {
		// post_tags has none of posts' column names, so the columns and
		// the predicate need no qualifier.
		where, key = "SELECT "+cols+" FROM post_tags t JOIN posts p ON p.id = t.post_id WHERE t.tag = lower(?) AND ", tagsKey
		args = append(args, q.Tag)
	}
	nowSlot := len(args)
	where += listed
	args = append(args, now)
	if q.PersonaID != "" {
		where += " AND persona_id = ?"
		args = append(args, q.PersonaID)
	}
	query, args := page(where, args, nowSlot, key, c, q.Oldest, q.Limit)
	return manyPosts(r.t, q.Limit, query, args...)
}

func (r publicPosts) Position(q store.PublicQuery, max int) (int, bool, error) {
	if q.Oldest || q.After == "" || max < 0 {
		return 0, false, murlog.Invalid("query", "a position needs a cursor, newest first, and a bound")
	}
	now := micros(q.Now)
	c, err := r.cursorKey(q.After, now)
	if err != nil {
		return 0, false, err
	}
	// From the cursor towards the newest, oldest first, as far as max+1
	// entries: a bounded walk of the list's index, whatever the depth.
	inner, key := "SELECT id AS pid FROM posts WHERE "+listed, postsKey
	args := []any{now}
	if q.Tag != "" {
		inner, key = "SELECT t.post_id AS pid FROM post_tags t JOIN posts p ON p.id = t.post_id WHERE t.tag = lower(?) AND "+listed+
			" AND t.pub_at <= ?", tagsKey
		args = []any{q.Tag, now, now}
	}
	if q.PersonaID != "" {
		inner += " AND persona_id = ?"
		args = append(args, q.PersonaID)
	}
	inner += " AND " + key.pub + " >= ? AND (" + key.pub + ", " + key.id + ") >= (?, ?) ORDER BY " + key.pub + ", " + key.id +
		" LIMIT CAST(? AS INTEGER)"
	args = append(args, c.pub, c.pub, c.id, max+1)
	var n, in int
	err = r.t.queryRow("SELECT count(*), coalesce(sum(pid = ?), 0) FROM ("+inner+")", append([]any{c.id}, args...), &n, &in)
	return n, in > 0, err
}

// Neighbours takes p's persona and sort key as given: the caller read p
// through Get a moment ago, and a second read would only repeat it. Each
// neighbour is its own indexed ORDER BY … LIMIT 1 statement, with the
// columns and shape of Get: a UNION ALL of the two as subqueries cost
// SQLite 1.5–2× as much to prepare (the compound select and its
// subqueries take code paths nothing else on a post page runs), which a
// CGI process, preparing every statement once and cold, pays in full.
func (r publicPosts) Neighbours(p *murlog.Post, now time.Time) (*murlog.Post, *murlog.Post, error) {
	if !p.PublicAt(now) {
		return nil, nil, murlog.Invalid("post", "not published")
	}
	c := &cursor{pub: micros(*p.PublishedAt), id: p.ID}
	where := "SELECT " + publicCols + " FROM posts WHERE " + listed + " AND persona_id = ?"
	var pair [2]*murlog.Post
	for i, oldest := range []bool{false, true} {
		q, args := page(where, []any{micros(now), p.PersonaID}, 0, postsKey, c, oldest, 1)
		ps, err := manyPosts(r.t, 1, q, args...)
		if err != nil {
			return nil, nil, err
		}
		if len(ps) > 0 {
			pair[i] = ps[0]
		}
	}
	return pair[0], pair[1], nil
}

func (r publicPosts) ByIDs(ids []string, now time.Time) ([]*murlog.Post, error) {
	if len(ids) > store.MaxByIDs {
		return nil, murlog.Invalid("ids", "at most %d ids", store.MaxByIDs)
	}
	if len(ids) == 0 {
		return []*murlog.Post{}, nil
	}
	list, _ := json.Marshal(ids) // strings only
	found, err := manyPosts(r.t, len(ids), "SELECT "+excerptCols+" FROM posts WHERE id IN (SELECT value FROM json_each(?)) AND "+listed,
		string(list), micros(now))
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*murlog.Post, len(found))
	for _, p := range found {
		byID[p.ID] = p
	}
	out := make([]*murlog.Post, 0, len(found))
	for _, id := range ids {
		if p, ok := byID[id]; ok {
			out = append(out, p)
			delete(byID, id) // a repeated id is dropped
		}
	}
	return out, nil
}

func (r publicPosts) Sitemap(now time.Time, limit int) ([]store.SitemapEntry, error) {
	if limit <= 0 {
		return nil, murlog.Invalid("limit", "must be positive")
	}
	rows, err := r.t.query(`SELECT p.id, p.slug, u.username, p.published_at, p.updated_at
		FROM posts p JOIN personas u ON u.id = p.persona_id
		WHERE `+shown+` ORDER BY p.published_at DESC, p.id DESC LIMIT CAST(? AS INTEGER)`, micros(now), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]store.SitemapEntry, 0, min(limit, 1024))
	for rows.Next() {
		var e store.SitemapEntry
		var pub, upd int64
		if err := rows.Scan(&e.ID, &e.Slug, &e.Username, &pub, &upd); err != nil {
			return nil, mapErr(err)
		}
		e.PublishedAt, e.UpdatedAt = fromMicros(pub), fromMicros(upd)
		out = append(out, e)
	}
	return out, mapErr(rows.Err())
}

// bySlug looks a slug up among the current slugs first, then the old
// ones, asking for a slug that is not empty so that SQLite may use the
// partial index posts_slug.
const bySlug = `SELECT ` + publicCols + ` FROM posts WHERE id = coalesce(
	(SELECT id FROM posts WHERE persona_id = ?1 AND slug = ?2 AND slug != ''),
	(SELECT post_id FROM post_old_slugs WHERE persona_id = ?1 AND slug = ?2)) AND ` + publicPredicate

func (r publicPosts) BySlug(personaID, slug string, now time.Time) (*murlog.Post, error) {
	return one(r.t, "post", bySlug, scanPost, personaID, slug, micros(now))
}

func (r publicPosts) Pages(personaID string, now time.Time, limit int) ([]store.MenuEntry, error) {
	if limit <= 0 {
		return nil, murlog.Invalid("limit", "must be positive")
	}
	return many(r.t, `SELECT id, title, slug FROM posts WHERE page = 1 AND persona_id = ? AND `+shown+`
		ORDER BY published_at, id LIMIT CAST(? AS INTEGER)`, func(sc interface{ Scan(...any) error }) (store.MenuEntry, error) {
		var e store.MenuEntry
		err := sc.Scan(&e.ID, &e.Title, &e.Slug)
		return e, err
	}, personaID, micros(now), limit)
}

// NextPublication reads the partial index of publishable posts: its WHERE
// clause is repeated so the planner may use it.
func (r publicPosts) NextPublication(now time.Time) (*time.Time, error) {
	var next sql.NullInt64
	err := r.t.queryRow(`SELECT min(published_at) FROM posts
		WHERE published_at IS NOT NULL AND visibility IN ('public', 'unlisted') AND published_at > ?`,
		[]any{micros(now)}, &next)
	if err != nil {
		return nil, err
	}
	return fromNullMicros(next), nil
}

// manyPosts runs a query of postCols (or publicCols) rows; capacity is the expected count.
func manyPosts(t *tx, capacity int, query string, args ...any) ([]*murlog.Post, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]*murlog.Post, 0, min(capacity, 1024))
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, mapErr(err)
		}
		out = append(out, p)
	}
	return out, mapErr(rows.Err())
}
