package sqlite

import (
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

type shieldCounters struct{ t *tx }

func (t *tx) ShieldCounters() store.ShieldCounters { return shieldCounters{t} }

const shieldHitSQL = `INSERT INTO shield_counters (win, key, count) VALUES (?, ?, ?)
	ON CONFLICT (win, key) DO UPDATE SET count = count + excluded.count RETURNING count`

func (s shieldCounters) Hit(key string, window time.Time, n int) (int, error) {
	if key == "" || len(key) > store.MaxShieldKey {
		return 0, murlog.Invalid("key", "must be 1–%d bytes", store.MaxShieldKey)
	}
	if n < 1 || n > store.MaxShieldHit {
		return 0, murlog.Invalid("n", "must be 1–%d, not %d", store.MaxShieldHit, n)
	}
	var count int
	err := s.t.queryRow(shieldHitSQL, []any{micros(window), key, n}, &count)
	return count, mapErr(err)
}

func (s shieldCounters) Reap(before time.Time) (int, error) {
	res, err := s.t.exec("DELETE FROM shield_counters WHERE win < ?", micros(before))
	return rowsAffected(res, err)
}
