package sqlite

import (
	"database/sql"
	"errors"
	"time"
)

type fanoutProgress struct{ t *tx }

func (r fanoutProgress) Get(key string) (string, bool, error) {
	var after string
	var done bool
	err := r.t.queryRow("SELECT after, done FROM fanout_progress WHERE key = ?", []any{key}, &after, &done)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return after, done, err
}

// Advance is one statement either way: the first page inserts the row
// (a second first page finds it and does nothing), later pages update it
// only where it still holds from. The statement's own write is the
// compare, so it holds on an engine with concurrent writers too.
func (r fanoutProgress) Advance(key, from, to string, done bool, at time.Time) (bool, error) {
	var (
		res sql.Result
		err error
	)
	if from == "" {
		res, err = r.t.exec(`INSERT INTO fanout_progress (key, after, done, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET after = excluded.after, done = excluded.done, updated_at = excluded.updated_at
			WHERE fanout_progress.after = '' AND fanout_progress.done = 0`,
			key, to, boolInt(done), micros(at))
	} else {
		res, err = r.t.exec(`UPDATE fanout_progress SET after = ?, done = ?, updated_at = ?
			WHERE key = ? AND after = ? AND done = 0`, to, boolInt(done), micros(at), key, from)
	}
	n, err := rowsAffected(res, err)
	return n == 1, err
}
