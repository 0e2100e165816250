package sqlite

import (
	"database/sql"
	"errors"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

type sessions struct{ t *tx }

func (r sessions) Create(s *murlog.Session) error {
	_, err := r.t.exec(`INSERT INTO sessions (token_hash, created_at, expires_at, last_seen_at, user_agent)
		VALUES (?, ?, ?, ?, ?)`, s.TokenHash, micros(s.CreatedAt), micros(s.ExpiresAt), micros(s.LastSeenAt), s.UserAgent)
	return err
}

func (r sessions) Get(tokenHash string) (*murlog.Session, error) {
	var s murlog.Session
	var c, e, l int64
	err := r.t.queryRow("SELECT token_hash, created_at, expires_at, last_seen_at, user_agent FROM sessions WHERE token_hash = ?",
		[]any{tokenHash}, &s.TokenHash, &c, &e, &l, &s.UserAgent)
	if err != nil {
		return nil, notFound(err, "session")
	}
	s.CreatedAt, s.ExpiresAt, s.LastSeenAt = fromMicros(c), fromMicros(e), fromMicros(l)
	return &s, nil
}

func (r sessions) Touch(tokenHash string, lastSeen, expires time.Time) error {
	_, err := r.t.exec("UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE token_hash = ?",
		micros(lastSeen), micros(expires), tokenHash)
	return err
}

func (r sessions) Delete(tokenHash string) error {
	_, err := r.t.exec("DELETE FROM sessions WHERE token_hash = ?", tokenHash)
	return err
}

func (r sessions) DeletePrefix(prefix string) (int, error) {
	if prefix == "" {
		return 0, nil
	}
	res, err := r.t.exec("DELETE FROM sessions WHERE substr(token_hash, 1, length(?1)) = ?1", prefix)
	return rowsAffected(res, err)
}

func (r sessions) DeleteAllExcept(keep string) (int, error) {
	res, err := r.t.exec("DELETE FROM sessions WHERE token_hash <> ?", keep)
	return rowsAffected(res, err)
}

func (r sessions) List(now time.Time, limit int) ([]*murlog.Session, error) {
	rows, err := r.t.query(`SELECT token_hash, created_at, expires_at, last_seen_at, user_agent FROM sessions
		WHERE expires_at > ? ORDER BY last_seen_at DESC, token_hash LIMIT CAST(? AS INTEGER)`, micros(now), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*murlog.Session
	for rows.Next() {
		var s murlog.Session
		var c, e, l int64
		if err := rows.Scan(&s.TokenHash, &c, &e, &l, &s.UserAgent); err != nil {
			return nil, mapErr(err)
		}
		s.CreatedAt, s.ExpiresAt, s.LastSeenAt = fromMicros(c), fromMicros(e), fromMicros(l)
		out = append(out, &s)
	}
	return out, mapErr(rows.Err())
}

func (r sessions) DeleteExpired(now time.Time) (int, error) {
	res, err := r.t.exec("DELETE FROM sessions WHERE expires_at <= ?", micros(now))
	return rowsAffected(res, err)
}

type tokens struct{ t *tx }

func (r tokens) Create(k *murlog.APIToken) error {
	_, err := r.t.exec(`INSERT INTO api_tokens (id, name, token_hash, prefix, created_at, last_used_at)
		VALUES (?, ?, ?, ?, ?, ?)`, k.ID, k.Name, k.TokenHash, k.Prefix, micros(k.CreatedAt), nullMicros(k.LastUsedAt))
	return err
}

const tokenCols = "id, name, token_hash, prefix, created_at, last_used_at"

func scanToken(sc interface{ Scan(...any) error }) (*murlog.APIToken, error) {
	var k murlog.APIToken
	var c int64
	var l sql.NullInt64
	if err := sc.Scan(&k.ID, &k.Name, &k.TokenHash, &k.Prefix, &c, &l); err != nil {
		return nil, err
	}
	k.CreatedAt, k.LastUsedAt = fromMicros(c), fromNullMicros(l)
	return &k, nil
}

func (r tokens) GetByHash(tokenHash string) (*murlog.APIToken, error) {
	return one(r.t, "token", "SELECT "+tokenCols+" FROM api_tokens WHERE token_hash = ?", scanToken, tokenHash)
}

func (r tokens) List() ([]*murlog.APIToken, error) {
	rows, err := r.t.query("SELECT " + tokenCols + " FROM api_tokens ORDER BY id DESC")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*murlog.APIToken
	for rows.Next() {
		k, err := scanToken(rows)
		if err != nil {
			return nil, mapErr(err)
		}
		out = append(out, k)
	}
	return out, mapErr(rows.Err())
}

func (r tokens) Delete(id string) error {
	res, err := r.t.exec("DELETE FROM api_tokens WHERE id = ?", id)
	return affected(res, err, "token")
}

func (r tokens) DeleteAll() (int, error) {
	res, err := r.t.exec("DELETE FROM api_tokens")
	return rowsAffected(res, err)
}

func (r tokens) Touch(id string, at time.Time) error {
	_, err := r.t.exec("UPDATE api_tokens SET last_used_at = ? WHERE id = ?", micros(at), id)
	return err
}

type loginAttempts struct{ t *tx }

func (r loginAttempts) Get(key string) (*murlog.LoginAttempts, error) {
	a := murlog.LoginAttempts{Key: key}
	var last, locked int64
	err := r.t.queryRow("SELECT failures, last_failure, locked_until FROM login_attempts WHERE key = ?",
		[]any{key}, &a.Failures, &last, &locked)
	if errors.Is(err, sql.ErrNoRows) {
		return &a, nil
	}
	if err != nil {
		return nil, err
	}
	a.LastFailure, a.LockedUntil = fromMicros(last), fromMicros(locked)
	return &a, nil
}

func (r loginAttempts) Put(a *murlog.LoginAttempts) error {
	_, err := r.t.exec(`INSERT INTO login_attempts (key, failures, last_failure, locked_until) VALUES (?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, last_failure = excluded.last_failure,
		locked_until = excluded.locked_until`, a.Key, a.Failures, micros(a.LastFailure), micros(a.LockedUntil))
	return err
}

// hitSQL is the whole limiter rule in one UPSERT, so SQLite's writer lock
// or PostgreSQL's row lock on conflict makes each attempt see the one
// before it. In DO UPDATE, bare column names are the row before the hit.
// ?1 key, ?2 now, ?3 max, ?4 window, ?5 lockout (times in microseconds).
const hitSQL = `INSERT INTO login_attempts (key, failures, last_failure, locked_until)
	VALUES (?1, 1, ?2, CASE WHEN ?3 <= 1 THEN ?2 + ?5 ELSE 0 END)
	ON CONFLICT (key) DO UPDATE SET
		failures = CASE
			WHEN ?2 < locked_until THEN MAX(failures, ?3) + 1
			WHEN failures >= ?3 OR ?2 - last_failure > ?4 THEN 1
			ELSE failures + 1 END,
		locked_until = CASE
			WHEN ?2 < locked_until THEN locked_until
			WHEN (CASE WHEN failures >= ?3 OR ?2 - last_failure > ?4 THEN 1 ELSE failures + 1 END) >= ?3 THEN ?2 + ?5
			ELSE locked_until END,
		last_failure = ?2
	RETURNING failures, last_failure, locked_until`

func (r loginAttempts) Hit(key string, now time.Time, p store.AttemptPolicy) (*murlog.LoginAttempts, bool, error) {
	a := murlog.LoginAttempts{Key: key}
	var last, locked int64
	err := r.t.queryRow(hitSQL, []any{key, micros(now), max(p.Max, 1), p.Window.Microseconds(), p.Lockout.Microseconds()},
		&a.Failures, &last, &locked)
	if err != nil {
		return nil, false, mapErr(err)
	}
	a.LastFailure, a.LockedUntil = fromMicros(last), fromMicros(locked)
	// Only a hit that found the key locked pushes the count past Max.
	return &a, a.Failures > max(p.Max, 1), nil
}

func (r loginAttempts) Delete(key string) error {
	_, err := r.t.exec("DELETE FROM login_attempts WHERE key = ?", key)
	return err
}

func (r loginAttempts) DeleteBefore(t time.Time) (int, error) {
	res, err := r.t.exec("DELETE FROM login_attempts WHERE last_failure < ? AND locked_until < ?", micros(t), micros(t))
	return rowsAffected(res, err)
}

func rowsAffected(res sql.Result, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), mapErr(err)
}
