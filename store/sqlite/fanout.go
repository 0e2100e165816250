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

func (r fanoutProgress) Save(key, after string, done bool, at time.Time) error {
	_, err := r.t.exec(`INSERT INTO fanout_progress (key, after, done, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET after = excluded.after, done = excluded.done, updated_at = excluded.updated_at`,
		key, after, boolInt(done), micros(at))
	return err
}
