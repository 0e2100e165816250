package sqlite

import (
	"strings"
)

type settings struct{ t *tx }

func (s settings) Get(key string) (string, error) {
	var v string
	err := s.t.queryRow("SELECT value FROM settings WHERE key = ?", []any{key}, &v)
	return v, notFound(err, "setting "+key)
}

func (s settings) GetMany(keys ...string) (map[string]string, error) {
	out := make(map[string]string, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	rows, err := s.t.query("SELECT key, value FROM settings WHERE key IN (?"+strings.Repeat(",?", len(keys)-1)+")", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, mapErr(err)
		}
		out[k] = v
	}
	return out, mapErr(rows.Err())
}

func (s settings) Set(key, value string) error {
	_, err := s.t.exec("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value)
	return err
}

func (s settings) Delete(key string) error {
	_, err := s.t.exec("DELETE FROM settings WHERE key = ?", key)
	return err
}
