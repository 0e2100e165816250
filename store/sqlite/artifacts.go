package sqlite

import (
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

type dirtyKeys struct{ t *tx }

func (t *tx) DirtyKeys() store.DirtyKeys { t.marked(); return dirtyKeys{t} }

func checkKeys(n int) error {
	if n > store.MaxMarkKeys {
		return murlog.Invalid("keys", "at most %d at once (got %d)", store.MaxMarkKeys, n)
	}
	return nil
}

func (d dirtyKeys) Mark(keys ...string) error {
	if err := checkKeys(len(keys)); err != nil {
		return err
	}
	for _, k := range keys {
		if k == "" || len(k) > store.MaxDirtyKey {
			return murlog.Invalid("keys", "a key must be 1–%d bytes", store.MaxDirtyKey)
		}
	}
	now := micros(d.t.now)
	for _, k := range keys {
		if _, err := d.t.exec(`INSERT INTO artifact_dirty (key, gen, since) VALUES (?, 1, ?)
			ON CONFLICT (key) DO UPDATE SET gen = gen + 1`, k, now); err != nil {
			return err
		}
	}
	return nil
}

func (d dirtyKeys) Newest(limit int, since time.Time) ([]store.DirtyKey, error) {
	if limit <= 0 || limit > store.MaxMarkKeys {
		return nil, murlog.Invalid("limit", "must be 1–%d", store.MaxMarkKeys)
	}
	// touched has the millisecond of unixepoch('subsec'): since is taken
	// down to its millisecond, or a mark made in the same one is missed.
	from := int64(0)
	if !since.IsZero() {
		from = since.UnixMilli() * 1000
	}
	rows, err := d.t.query(`SELECT key, gen, since, touched FROM artifact_dirty WHERE touched >= ?
		ORDER BY touched DESC, key LIMIT CAST(? AS INTEGER)`, from, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.DirtyKey
	for rows.Next() {
		var k store.DirtyKey
		var first, last int64
		if err := rows.Scan(&k.Key, &k.Gen, &first, &last); err != nil {
			return nil, mapErr(err)
		}
		k.Since, k.Touched = fromMicros(first), fromMicros(last)
		out = append(out, k)
	}
	return out, mapErr(rows.Err())
}

func (d dirtyKeys) Clear(done ...store.DirtyKey) (int, error) {
	if err := checkKeys(len(done)); err != nil {
		return 0, err
	}
	n := 0
	for _, k := range done {
		res, err := d.t.exec("DELETE FROM artifact_dirty WHERE key = ? AND gen = ?", k.Key, k.Gen)
		if err != nil {
			return n, err
		}
		if c, _ := res.RowsAffected(); c > 0 {
			n += int(c)
			continue
		}
		// Not this generation: dirtied again (it stays), or cleared by
		// another rebuild meanwhile (marked again; see store.DirtyKeys).
		if _, err := d.t.exec(`INSERT INTO artifact_dirty (key, gen, since) VALUES (?, 1, ?)
			ON CONFLICT (key) DO NOTHING`, k.Key, micros(d.t.now)); err != nil {
			return n, err
		}
	}
	return n, nil
}

func (d dirtyKeys) Reap(before time.Time) (int, error) {
	return rowsAffected(d.t.exec("DELETE FROM artifact_dirty WHERE since < ?", micros(before)))
}

func (d dirtyKeys) Count() (int, error) {
	var n int
	err := d.t.queryRow("SELECT count(*) FROM artifact_dirty", nil, &n)
	return n, mapErr(err)
}
