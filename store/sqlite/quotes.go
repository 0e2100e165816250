package sqlite

import "github.com/murlog/murlog/store"

// quoteAuthorizations implements store.QuoteAuthorizations.
type quoteAuthorizations struct{ t *tx }

func (r quoteAuthorizations) Put(q *store.QuoteAuthorization) error {
	_, err := r.t.exec(`INSERT INTO quote_authorizations (id, persona_id, post_id, quoting, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`, q.ID, q.PersonaID, q.PostID, q.Quoting, micros(q.CreatedAt))
	return err
}

func (r quoteAuthorizations) Get(id string) (*store.QuoteAuthorization, error) {
	return one(r.t, "quote authorization", "SELECT id, persona_id, post_id, quoting, created_at FROM quote_authorizations WHERE id = ?",
		func(sc interface{ Scan(...any) error }) (*store.QuoteAuthorization, error) {
			var q store.QuoteAuthorization
			var at int64
			if err := sc.Scan(&q.ID, &q.PersonaID, &q.PostID, &q.Quoting, &at); err != nil {
				return nil, err
			}
			q.CreatedAt = fromMicros(at)
			return &q, nil
		}, id)
}
