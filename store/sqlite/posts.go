package sqlite

import (
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

type posts struct{ t *tx }

const postCols = `id, persona_id, kind, title, source, content, summary, sensitive, visibility,
	language, tags, in_reply_to, quote_of, mentions, as_note, published_at, created_at, updated_at, excerpt, image, slug, page`

// publicPredicate is the publication predicate (murlog.Post.PublicAt) in
// SQL. Every query that serves an anonymous reader includes it verbatim; its
// visibility term matches the partial indexes in 001_initial.sql so the
// planner can use them. The one parameter is "now" in unix microseconds.
const publicPredicate = `published_at IS NOT NULL AND visibility IN ('public', 'unlisted') AND published_at <= ?`

func scanPost(sc interface{ Scan(...any) error }) (*murlog.Post, error) {
	var p murlog.Post
	var tags, mentions string
	var pub sql.NullInt64
	var created, updated int64
	err := sc.Scan(&p.ID, &p.PersonaID, &p.Kind, &p.Title, &p.Source, &p.Content, &p.Summary, &p.Sensitive,
		&p.Visibility, &p.Language, &tags, &p.InReplyTo, &p.QuoteOf, &mentions, &p.AsNote, &pub, &created, &updated,
		&p.Excerpt, &p.Image, &p.Slug, &p.Page)
	if err != nil {
		return nil, err
	}
	if p.Tags, err = parseTags(tags); err != nil {
		return nil, murlog.Internal(err)
	}
	if mentions != "[]" && mentions != "" {
		if err := json.Unmarshal([]byte(mentions), &p.Mentions); err != nil {
			return nil, murlog.Internal(err)
		}
	}
	p.PublishedAt = fromNullMicros(pub)
	p.CreatedAt, p.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &p, nil
}

// parseTags decodes the tags column. Hashtags are letters, digits and
// underscores, so the JSON needs no unescaping and a split does; anything
// else falls back to encoding/json (decoding tags was 6% of a list call).
func parseTags(s string) ([]string, error) {
	if s == "[]" || s == "" {
		return nil, nil
	}
	if len(s) >= 4 && s[0] == '[' && s[1] == '"' && s[len(s)-2] == '"' && s[len(s)-1] == ']' && !strings.ContainsRune(s, '\\') {
		return strings.Split(s[2:len(s)-2], `","`), nil
	}
	var tags []string
	err := json.Unmarshal([]byte(s), &tags)
	return tags, err
}

func tagsJSON(tags []string) string {
	if len(tags) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(tags)
	return string(b)
}

// mentionsJSON encodes the mentions column.
func mentionsJSON(ms []murlog.PostMention) string {
	if len(ms) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(ms) // strings only
	return string(b)
}

func (r posts) Create(p *murlog.Post) error {
	_, err := r.t.exec(`INSERT INTO posts (`+postCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.ID, p.PersonaID, string(p.Kind), p.Title, p.Source, p.Content, p.Summary, boolInt(p.Sensitive),
		string(p.Visibility), p.Language, tagsJSON(p.Tags), p.InReplyTo, p.QuoteOf, mentionsJSON(p.Mentions), boolInt(p.AsNote),
		nullMicros(p.PublishedAt), micros(p.CreatedAt), micros(p.UpdatedAt), p.Excerpt, p.Image, p.Slug, boolInt(p.Page))
	return err
}

func (r posts) Get(id string) (*murlog.Post, error) {
	return one(r.t, "post", "SELECT "+postCols+" FROM posts WHERE id = ?", scanPost, id)
}

func (r posts) Update(p *murlog.Post) error {
	res, err := r.t.exec(`UPDATE posts SET kind = ?, title = ?, source = ?, content = ?, summary = ?,
		sensitive = ?, visibility = ?, language = ?, tags = ?, in_reply_to = ?, quote_of = ?, mentions = ?,
		as_note = ?, published_at = ?, updated_at = ?, excerpt = ?, image = ?, slug = ?, page = ? WHERE id = ?`,
		string(p.Kind), p.Title, p.Source, p.Content, p.Summary, boolInt(p.Sensitive), string(p.Visibility),
		p.Language, tagsJSON(p.Tags), p.InReplyTo, p.QuoteOf, mentionsJSON(p.Mentions), boolInt(p.AsNote),
		nullMicros(p.PublishedAt), micros(p.UpdatedAt), p.Excerpt, p.Image, p.Slug, boolInt(p.Page), p.ID)
	return affected(res, err, "post")
}

func (r posts) Delete(id string) error {
	res, err := r.t.exec("DELETE FROM posts WHERE id = ?", id)
	return affected(res, err, "post")
}

func (r posts) CountPublic(now time.Time) (map[string]int, error) {
	rows, err := r.t.query("SELECT persona_id, COUNT(*) FROM posts WHERE "+publicPredicate+" AND page = 0 GROUP BY persona_id", micros(now))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, mapErr(err)
		}
		out[id] = n
	}
	return out, mapErr(rows.Err())
}

// List pages with keyset cursors: the public audience in
// (published_at, id) order, the owner in id order.
func (r posts) List(q store.PostQuery) ([]*murlog.Post, error) {
	if q.Limit <= 0 {
		return nil, murlog.Invalid("limit", "must be positive")
	}
	var (
		query string
		args  []any
	)
	switch q.Audience {
	case murlog.AudiencePublic:
		// The predicate's upper bound is now, or, after a cursor, the
		// cursor post's published_at (itself ≤ now, so the predicate
		// still holds). Bounding the index range there keeps deep pages as
		// cheap as the first: with now as the bound SQLite would walk every
		// newer entry to test the row value.
		bound := micros(q.Now)
		var after []any
		if q.Before != "" {
			pub, err := r.publicSortKey(q.Before, bound)
			if err != nil {
				return nil, err
			}
			bound = pub
			after = []any{pub, q.Before}
		}
		query = "SELECT " + postCols + " FROM posts WHERE " + publicPredicate + " AND page = 0"
		args = append(args, bound)
		if q.PersonaID != "" {
			query += " AND persona_id = ?"
			args = append(args, q.PersonaID)
		}
		if after != nil {
			query += " AND (published_at, id) < (?, ?)"
			args = append(args, after...)
		}
		query += " ORDER BY published_at DESC, id DESC LIMIT CAST(? AS INTEGER)"
	case murlog.AudienceOwner:
		query = "SELECT " + postCols + " FROM posts WHERE 1 = 1"
		if q.PersonaID != "" {
			query += " AND persona_id = ?"
			args = append(args, q.PersonaID)
		}
		if q.Before != "" {
			query += " AND id < ?"
			args = append(args, q.Before)
		}
		query += " ORDER BY id DESC LIMIT CAST(? AS INTEGER)"
	default:
		return nil, murlog.Internal(errors.New("sqlite: unknown audience"))
	}
	args = append(args, q.Limit)
	rows, err := r.t.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]*murlog.Post, 0, q.Limit)
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, mapErr(err)
		}
		out = append(out, p)
	}
	return out, mapErr(rows.Err())
}

// publicSortKey returns the published_at of a cursor post, which must itself
// be publicly visible: a cursor must not reveal anything about drafts.
func (r posts) publicSortKey(id string, now int64) (int64, error) {
	var pub int64
	err := r.t.queryRow("SELECT published_at FROM posts WHERE id = ? AND "+publicPredicate, []any{id, now}, &pub)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, murlog.Invalid("cursor", "unknown cursor")
	}
	return pub, err
}

func (r posts) Replies(uri string, limit int) ([]*murlog.Post, error) {
	return many(r.t, "SELECT "+postCols+" FROM posts WHERE in_reply_to = ? ORDER BY id LIMIT CAST(? AS INTEGER)", scanPost, uri, limit)
}

// slugOwner prefers the current slug to an old one.
const slugOwner = `SELECT id, 0 FROM posts WHERE persona_id = ?1 AND slug = ?2 AND slug != ''
	UNION ALL SELECT post_id, 1 FROM post_old_slugs WHERE persona_id = ?1 AND slug = ?2 ORDER BY 2 LIMIT 1`

func (r posts) SlugOwner(personaID, slug string) (string, bool, error) {
	var id string
	var old bool
	err := r.t.queryRow(slugOwner, []any{personaID, slug}, &id, &old)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, murlog.NotFound("slug")
	}
	return id, old, err
}

// takenSlugs reads the range [base-, base.) of both slug indexes: "." is
// the character after "-", and no slug has a dot. (Queries of posts by
// slug also ask for a slug that is not empty, so that SQLite may use the
// partial index posts_slug.)
const takenSlugs = `SELECT slug FROM posts WHERE persona_id = ?1 AND slug != '' AND (slug = ?2 OR slug >= ?3 AND slug < ?4)
	UNION SELECT slug FROM post_old_slugs WHERE persona_id = ?1 AND (slug = ?2 OR slug >= ?3 AND slug < ?4)`

func (r posts) TakenSlugs(personaID, base string) (map[string]bool, error) {
	rows, err := r.t.query(takenSlugs, personaID, base, base+"-", base+".")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	taken := map[string]bool{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, mapErr(err)
		}
		taken[s] = true
	}
	return taken, mapErr(rows.Err())
}

func (r posts) KeepOldSlug(personaID, slug, id string, at time.Time, keep int) error {
	if _, err := r.t.exec(`INSERT INTO post_old_slugs (persona_id, slug, post_id, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (persona_id, slug) DO UPDATE SET post_id = excluded.post_id, created_at = excluded.created_at`,
		personaID, slug, id, micros(at)); err != nil {
		return err
	}
	_, err := r.t.exec(`DELETE FROM post_old_slugs WHERE post_id = ?1 AND slug NOT IN
		(SELECT slug FROM post_old_slugs WHERE post_id = ?1 ORDER BY created_at DESC, slug LIMIT CAST(?2 AS INTEGER))`, id, keep)
	return err
}

func (r posts) DropOldSlug(personaID, slug string) error {
	_, err := r.t.exec("DELETE FROM post_old_slugs WHERE persona_id = ? AND slug = ?", personaID, slug)
	return err
}
