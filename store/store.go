// Package store is the persistence port. Services talk to these interfaces
// only; adapters (store/sqlite today, PostgreSQL later) implement them. Nothing
// engine-specific crosses this boundary: no *sql.Tx, no SQLite error codes,
// no SQL. Adapters map "no rows" to murlog.ENotFound and uniqueness
// violations to murlog.EConflict, and busy/locked conditions to
// murlog.EUnavailable.
package store

import (
	"context"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
)

// Store runs transactions. A write is one transaction: everything a service
// changes in fn commits together or not at all.
type Store interface {
	// View runs fn in a read-only transaction on a consistent snapshot.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a write transaction. The transaction takes the write
	// lock when it begins, so it never fails half-way on lock upgrade.
	Update(ctx context.Context, fn func(Tx) error) error
	Close() error
}

// Tx is one transaction. Now is fixed when the transaction begins, so every
// row it writes carries the same time.
type Tx interface {
	Now() time.Time
	Settings() Settings
	Personas() Personas
	Posts() Posts
	Sessions() Sessions
	Tokens() Tokens
	LoginAttempts() LoginAttemptsRepo
	// Jobs enqueues jobs in this transaction: they become visible to
	// workers exactly when the write that caused them commits.
	Jobs() Jobs
}

// Jobs is transactional enqueue. With the embedded queue the jobs are
// rows of the same database; with an external broker they are an outbox
// that a relay forwards after commit.
type Jobs interface {
	// Enqueue adds jobs; ids that exist are skipped.
	Enqueue(jobs ...queue.Job) error
}

// Settings is the key/value table of application settings.
type Settings interface {
	// Get returns the value of key or an ENotFound error.
	Get(key string) (string, error)
	// GetMany returns the values of the keys that exist.
	GetMany(keys ...string) (map[string]string, error)
	Set(key, value string) error
	Delete(key string) error
}

// Personas stores the local identities.
type Personas interface {
	Create(p *murlog.Persona) error
	Get(id string) (*murlog.Persona, error)
	GetByUsername(username string) (*murlog.Persona, error)
	Primary() (*murlog.Persona, error)
	// PrimaryID returns only the primary persona's id: the hot read paths
	// need nothing more, and a persona row carries two PEM keys.
	PrimaryID() (string, error)
	List() ([]*murlog.Persona, error)
	Update(p *murlog.Persona) error
	// AddPostsCount adjusts the cached post counter by delta.
	AddPostsCount(id string, delta int) error
}

// Posts stores local posts.
type Posts interface {
	Create(p *murlog.Post) error
	Get(id string) (*murlog.Post, error)
	Update(p *murlog.Post) error
	Delete(id string) error
	// List returns posts in the order the query's audience implies, newest
	// first. Limit must be positive.
	List(q PostQuery) ([]*murlog.Post, error)
}

// PostQuery selects a page of posts.
//
// For AudiencePublic the adapter applies the publication predicate at Now
// and orders by (published_at, id) descending; for AudienceOwner it returns
// drafts and scheduled posts too, ordered by id (creation) descending.
type PostQuery struct {
	PersonaID string // "" for all personas
	Audience  murlog.Audience
	Now       time.Time
	// Before continues after the post with this ID (exclusive). The adapter
	// resolves its sort key; an unknown or, for the public audience,
	// unpublished cursor is an EInvalid error.
	Before string
	Limit  int
}

// Sessions stores logged-in browser sessions by token hash.
type Sessions interface {
	Create(s *murlog.Session) error
	Get(tokenHash string) (*murlog.Session, error)
	// Touch records activity and slides the expiry.
	Touch(tokenHash string, lastSeen, expires time.Time) error
	Delete(tokenHash string) error
	// DeleteAllExcept ends every session but keep ("" ends all).
	DeleteAllExcept(keep string) error
	DeleteExpired(now time.Time) (int, error)
}

// Tokens stores bearer API tokens.
type Tokens interface {
	Create(t *murlog.APIToken) error
	GetByHash(tokenHash string) (*murlog.APIToken, error)
	List() ([]*murlog.APIToken, error)
	Delete(id string) error
	Touch(id string, at time.Time) error
}

// LoginAttemptsRepo stores the login rate limiter's state, so the limit
// holds across CGI processes.
type LoginAttemptsRepo interface {
	// Get returns the attempts for key, or a zero value with the key set
	// when there are none.
	Get(key string) (*murlog.LoginAttempts, error)
	Put(a *murlog.LoginAttempts) error
	Delete(key string) error
	DeleteBefore(t time.Time) (int, error)
}
