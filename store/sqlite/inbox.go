package sqlite

import (
	"time"

	"github.com/murlog/murlog/store"
)

// inboxItems implements store.InboxItems over the inbox_items table.
type inboxItems struct{ t *tx }

func (r inboxItems) Put(id, actorID, personaID string, body []byte, at time.Time) (bool, error) {
	if body == nil {
		body = []byte{} // NULL marks a processed item
	}
	res, err := r.t.exec(`INSERT INTO inbox_items (id, actor_id, persona_id, body, received_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`, id, actorID, personaID, body, micros(at))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, mapErr(err)
}

func (r inboxItems) Get(id string) (*store.InboxItem, error) {
	return one(r.t, "inbox item", "SELECT id, actor_id, persona_id, body, body IS NULL, received_at FROM inbox_items WHERE id = ?",
		func(sc interface{ Scan(...any) error }) (*store.InboxItem, error) {
			var it store.InboxItem
			var at int64
			if err := sc.Scan(&it.ID, &it.ActorID, &it.PersonaID, &it.Body, &it.Done, &at); err != nil {
				return nil, err
			}
			it.ReceivedAt = fromMicros(at)
			return &it, nil
		}, id)
}

func (r inboxItems) Done(id string) error {
	res, err := r.t.exec("UPDATE inbox_items SET body = NULL WHERE id = ?", id)
	return affected(res, err, "inbox item")
}

func (r inboxItems) Prune(before time.Time) (int, error) {
	res, err := r.t.exec("DELETE FROM inbox_items WHERE received_at < ?", micros(before))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), mapErr(err)
}
