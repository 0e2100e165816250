package store

import "time"

// QuoteAuthorization is a persona's consent (FEP-044f) to the quote of its
// post PostID by the remote post Quoting, granted when it accepted the
// QuoteRequest. ID is the last segment of the authorization's URL.
type QuoteAuthorization struct {
	ID        string
	PersonaID string
	PostID    string
	Quoting   string
	CreatedAt time.Time
}

// QuoteAuthorizations stores the quote consents granted.
type QuoteAuthorizations interface {
	// Put records q; one with q.ID already kept is left as it is.
	Put(q *QuoteAuthorization) error
	// Get returns the authorization with id, ENotFound when there is none
	// (never granted, or its post is gone).
	Get(id string) (*QuoteAuthorization, error)
}
