package sqlite

import (
	"database/sql"
	"encoding/json"
	"time"

	"github.com/murlog/murlog"
)

type personas struct{ t *tx }

const personaCols = `id, username, display_name, summary, fields, avatar_path, header_path,
	locked, show_follows, discoverable, is_primary, public_key_pem, private_key_pem,
	posts_count, followers_count, following_count, created_at, updated_at`

func scanPersona(sc interface{ Scan(...any) error }) (*murlog.Persona, error) {
	var p murlog.Persona
	var fields string
	var created, updated int64
	err := sc.Scan(&p.ID, &p.Username, &p.DisplayName, &p.Summary, &fields, &p.AvatarPath, &p.HeaderPath,
		&p.Locked, &p.ShowFollows, &p.Discoverable, &p.Primary, &p.PublicKeyPEM, &p.PrivateKeyPEM,
		&p.PostsCount, &p.FollowersCount, &p.FollowingCount, &created, &updated)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(fields), &p.Fields); err != nil {
		return nil, murlog.Internal(err)
	}
	p.CreatedAt, p.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &p, nil
}

func fieldsJSON(f []murlog.Field) string {
	if f == nil {
		f = []murlog.Field{}
	}
	b, _ := json.Marshal(f)
	return string(b)
}

func (r personas) Create(p *murlog.Persona) error {
	_, err := r.t.exec(`INSERT INTO personas (`+personaCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.ID, p.Username, p.DisplayName, p.Summary, fieldsJSON(p.Fields), p.AvatarPath, p.HeaderPath,
		boolInt(p.Locked), boolInt(p.ShowFollows), boolInt(p.Discoverable), boolInt(p.Primary),
		p.PublicKeyPEM, p.PrivateKeyPEM, p.PostsCount, p.FollowersCount, p.FollowingCount,
		micros(p.CreatedAt), micros(p.UpdatedAt))
	return err
}

func (r personas) one(where string, arg any) (*murlog.Persona, error) {
	return one(r.t, "persona", "SELECT "+personaCols+" FROM personas WHERE "+where, scanPersona, arg)
}

func (r personas) Get(id string) (*murlog.Persona, error) { return r.one("id = ?", id) }

func (r personas) GetByUsername(username string) (*murlog.Persona, error) {
	return r.one("username = ?", username)
}

func (r personas) Primary() (*murlog.Persona, error) { return r.one("is_primary = ?", 1) }

func (r personas) PrimaryID() (string, error) {
	var id string
	err := r.t.queryRow("SELECT id FROM personas WHERE is_primary = 1", nil, &id)
	return id, notFound(err, "persona")
}

func (r personas) List() ([]*murlog.Persona, error) {
	rows, err := r.t.query("SELECT " + personaCols + " FROM personas ORDER BY is_primary DESC, id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*murlog.Persona
	for rows.Next() {
		p, err := scanPersona(rows)
		if err != nil {
			return nil, mapErr(err)
		}
		out = append(out, p)
	}
	return out, mapErr(rows.Err())
}

func (r personas) Update(p *murlog.Persona) error {
	res, err := r.t.exec(`UPDATE personas SET display_name = ?, summary = ?, fields = ?, avatar_path = ?,
		header_path = ?, locked = ?, show_follows = ?, discoverable = ?, updated_at = ? WHERE id = ?`,
		p.DisplayName, p.Summary, fieldsJSON(p.Fields), p.AvatarPath, p.HeaderPath,
		boolInt(p.Locked), boolInt(p.ShowFollows), boolInt(p.Discoverable), micros(p.UpdatedAt), p.ID)
	return affected(res, err, "persona")
}

func (r personas) AddPostsCount(id string, delta int) error {
	res, err := r.t.exec("UPDATE personas SET posts_count = max(0, posts_count + ?) WHERE id = ?", delta, id)
	return affected(res, err, "persona")
}

// RecountPosts counts in the same statement that stores the count, so no
// write can slip between the two.
func (r personas) RecountPosts(id string, now time.Time) (int, error) {
	var n int
	err := r.t.queryRow(`UPDATE personas SET posts_count =
		(SELECT count(*) FROM posts WHERE persona_id = personas.id AND published_at <= ?)
		WHERE id = ? RETURNING posts_count`, []any{micros(now), id}, &n)
	return n, notFound(err, "persona")
}

// affected turns "updated nothing" into ENotFound.
func affected(res sql.Result, err error, what string) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return mapErr(err)
	}
	if n == 0 {
		return murlog.NotFound(what)
	}
	return nil
}
