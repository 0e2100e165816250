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
	//
	// Update is serialisable for read-modify-write: whatever fn reads
	// through tx, no other Update changes before this one commits, so a
	// Get followed by a Set or Update of the same row never loses another
	// writer's change. SQLite has one writer and gets this for free; an
	// engine with concurrent writers (PostgreSQL under READ COMMITTED) must
	// lock what it reads or run SERIALIZABLE and retry serialisation
	// failures itself. Because of that retry, fn may run more than once: it
	// must have no effects outside tx (no sends, no writes to state shared
	// with the caller that a second run would not overwrite) and must not
	// depend on what an earlier, rolled-back run left behind.
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
	// TwoFactor is the owner's TOTP state and recovery codes.
	TwoFactor() TwoFactor
	// Jobs enqueues jobs in this transaction: they become visible to
	// workers exactly when the write that caused them commits.
	Jobs() Jobs
	// DomainFailures is the delivery circuit breaker's state.
	DomainFailures() DomainFailures
	// SignatureSchemes is which HTTP signature scheme each remote domain
	// accepted, so every process of the site knocks once per domain.
	SignatureSchemes() SignatureSchemes
	// FanoutProgress records how far each fan-out has got.
	FanoutProgress() FanoutProgress

	// The federation repositories (social.go).
	RemoteActors() RemoteActors
	Follows() Follows
	Followers() Followers
	RemotePosts() RemotePosts
	Interactions() Interactions
	Blocks() Blocks
	DomainBlocks() DomainBlocks
	Notifications() Notifications
	Deliveries() Deliveries
	Pins() Pins
	Tombstones() Tombstones
	Timeline() Timeline
	// InboxItems holds accepted inbox activities (inbox.go).
	InboxItems() InboxItems
	// QuoteAuthorizations are the quote consents personas granted.
	QuoteAuthorizations() QuoteAuthorizations

	// The public blog (public.go).
	PubConfigs() PubConfigs
	PublicPosts() PublicPosts

	// DirtyKeys are the artifact keys waiting to be rebuilt (artifacts.go).
	DirtyKeys() DirtyKeys
	// ShieldCounters are the shields' request counts per address block
	// (shield.go).
	ShieldCounters() ShieldCounters
}

// FanoutProgress stores each fan-out's position, written in the same
// transaction as the page of jobs it covers.
type FanoutProgress interface {
	// Get returns the last recipient done and whether the fan-out
	// finished; "" and false for one never started.
	Get(key string) (after string, done bool, err error)
	// Advance moves key's position from from (the position this run read:
	// "" for a fan-out never started) to to, and marks it done when done
	// is set. It is a compare-and-set: when the stored position is no
	// longer from, or the fan-out is already done, it changes nothing and
	// returns false — another run of the same fan-out got there first.
	Advance(key, from, to string, done bool, at time.Time) (bool, error)
}

// Jobs is transactional enqueue. With the embedded queue the jobs are
// rows of the same database; with an external broker they are an outbox
// that a relay forwards after commit. Adapters prepare the jobs with
// queue.Prepare (validation, and the trace of the transaction's context),
// as every queue does.
type Jobs interface {
	// Enqueue adds jobs; ids that exist are skipped.
	Enqueue(jobs ...queue.Job) error
	// Cancel deletes the jobs with these ids that have not started
	// (pending or scheduled), so a write that undoes what caused a job
	// takes the job back in the same transaction. Ids that are unknown,
	// running or finished are left alone: a job already running must
	// check for itself that it is still wanted. With an external broker
	// a job the relay has already forwarded cannot be taken back, which is
	// another reason handlers check.
	Cancel(ids ...string) error
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
	// AddPostsCount adjusts the cached post counter by delta in one
	// statement (no read in Go), so concurrent writers never lose a step.
	// The counter does not go below 0.
	AddPostsCount(id string, delta int) error
	// RecountPosts sets the cached post counter to the number of the
	// persona's posts published at or before now (any visibility; drafts
	// and scheduled posts are not counted) and returns it. Running it
	// twice gives the same count, so a job that may run twice can use it
	// where +1 could double-count.
	RecountPosts(id string, now time.Time) (int, error)
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
	// CountPublic returns, by persona id, how many posts List with
	// AudiencePublic lists at now (published public and unlisted posts,
	// pages left out); a persona with none is absent. The outbox's and
	// NodeInfo's totals: every publish changes them, so they are counted,
	// not listed.
	CountPublic(now time.Time) (map[string]int, error)
	// Replies returns up to limit local posts (any state) replying to
	// uri, oldest first.
	Replies(uri string, limit int) ([]*murlog.Post, error)

	// Slugs: an article's slug is unique among its persona's posts (the
	// adapter refuses a second with EConflict), and the slugs it had
	// before are kept as old slugs, each leading to it.

	// SlugOwner returns the id of the persona's post whose slug is slug
	// (old false) or that had it before (old true); ENotFound for none.
	SlugOwner(personaID, slug string) (id string, old bool, err error)
	// TakenSlugs returns the persona's slugs and old slugs that are base
	// or begin with base + "-", to pick a free one among base-2, base-3 ….
	TakenSlugs(personaID, base string) (map[string]bool, error)
	// KeepOldSlug records slug as an old slug of post id, taking it from
	// any other post that had it, and forgets the post's oldest ones past
	// keep.
	KeepOldSlug(personaID, slug, id string, at time.Time, keep int) error
	// DropOldSlug forgets slug as anyone's old slug (a post takes it as
	// its own); no error when it was none.
	DropOldSlug(personaID, slug string) error
}

// PostQuery selects a page of posts.
//
// For AudiencePublic the adapter applies the publication predicate at Now,
// leaves pages out (they are in no list: murlog.Post.Page) and orders by
// (published_at, id) descending; for AudienceOwner it returns drafts,
// scheduled posts and pages too, ordered by id (creation) descending.
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
	// DeletePrefix ends the sessions whose token hash starts with prefix
	// (the API names sessions by their hash's first 16 hex digits) and
	// says how many. An empty prefix ends none.
	DeletePrefix(prefix string) (int, error)
	// DeleteAllExcept ends every session but keep ("" ends all) and says
	// how many.
	DeleteAllExcept(keep string) (int, error)
	DeleteExpired(now time.Time) (int, error)
	// List returns up to limit sessions live at now (expiring after it),
	// the most recently seen first. Limit must be positive.
	List(now time.Time, limit int) ([]*murlog.Session, error)
}

// TwoFactor stores the owner's TOTP state and recovery codes. Recovery
// codes are stored by hash only; each is used at most once.
type TwoFactor interface {
	// Get returns the state: a zero TOTP (off, nothing pending) when
	// two-factor login was never set up.
	Get() (*murlog.TOTP, error)
	// Put overwrites the state.
	Put(t *murlog.TOTP) error
	// UseStep records step as the step of the last code accepted, as ONE
	// atomic compare-and-set: it succeeds only while two-factor login is on
	// and the stored step is earlier than step, so two logins racing with
	// the same code cannot both pass, on any engine. False when it did not.
	UseStep(step int64) (bool, error)
	// ReplaceRecoveryCodes deletes every recovery code and stores hashes
	// as the new unused set (none: the set is left empty).
	ReplaceRecoveryCodes(hashes []string, at time.Time) error
	// UseRecoveryCode marks the unused code with this hash used at at, in
	// one atomic statement; false when there is no such unused code.
	UseRecoveryCode(hash string, at time.Time) (bool, error)
	// RecoveryCodesLeft counts the unused codes.
	RecoveryCodesLeft() (int, error)
}

// Tokens stores bearer API tokens.
type Tokens interface {
	Create(t *murlog.APIToken) error
	GetByHash(tokenHash string) (*murlog.APIToken, error)
	List() ([]*murlog.APIToken, error)
	Delete(id string) error
	// DeleteAll revokes every token (a password reset) and says how many.
	DeleteAll() (int, error)
	Touch(id string, at time.Time) error
}

// LoginAttemptsRepo stores the password rate limiter's state (login,
// password change, reset), so the limit holds across CGI processes.
type LoginAttemptsRepo interface {
	// Get returns the attempts for key, or a zero value with the key set
	// when there are none.
	Get(key string) (*murlog.LoginAttempts, error)
	// Put overwrites the state of a.Key. The limiter itself uses Hit;
	// Put is for tests and migrations.
	Put(a *murlog.LoginAttempts) error
	// Hit counts one attempt for key at now and applies p, as ONE atomic
	// statement: a read followed by a write would lose attempts between
	// concurrent writers under PostgreSQL's READ COMMITTED. locked is true
	// when key was already locked at now; the caller must then refuse the
	// attempt without checking anything. The Max-th attempt in a window is
	// still allowed and engages the lock. While locked, Failures keeps
	// counting past Max (the refused attempts) and LockedUntil does not move.
	Hit(key string, now time.Time, p AttemptPolicy) (a *murlog.LoginAttempts, locked bool, err error)
	Delete(key string) error
	DeleteBefore(t time.Time) (int, error)
}

// AttemptPolicy is the rate limiter's rule, applied by the adapter inside
// the statement that counts an attempt.
type AttemptPolicy struct {
	Max     int           // attempts allowed per window; the Max-th engages the lock
	Window  time.Duration // a key whose last attempt is older than this starts again at zero
	Lockout time.Duration // how long the lock holds
}

// DomainFailure is the circuit breaker's record of one remote domain whose
// deliveries have been failing. A domain with no failures since its last
// success has no record.
type DomainFailure struct {
	Domain         string // lower-case ASCII host[:port]
	FailureCount   int    // consecutive failures since the last success
	FirstFailureAt time.Time
	LastFailureAt  time.Time
	LastError      string // why the last delivery failed, at most MaxDomainError characters
}

// MaxDomainError bounds DomainFailure.LastError, in characters: enough to
// tell a TLS error from a 410, too little for a remote error page to bloat
// the table.
const MaxDomainError = 500

// SignatureSchemes stores, per remote domain, the HTTP signature scheme it
// accepted ("rfc9421", "cavage"): the outbound client's double-knock
// memory, kept in the database because under CGI every worker is a new
// process, and an in-memory one would knock twice in each. Domains are
// taken as given (lower-case host[:port]).
type SignatureSchemes interface {
	// Get returns domain's scheme or an ENotFound error.
	Get(domain string) (string, error)
	// Put records domain's scheme at the given time, replacing any.
	Put(domain, scheme string, at time.Time) error
}

// DomainFailures stores delivery failures per remote domain. Domains are
// taken as given: the caller normalises them.
type DomainFailures interface {
	// RecordFailure counts one more failure for domain at the given time,
	// creating the record (first failure at that time) when there is none.
	// The reason is cut to MaxDomainError characters.
	RecordFailure(domain string, at time.Time, reason string) error
	// RecordSuccess forgets domain's failures: a delivery that succeeds
	// means the server is back. A domain with no record is not an error.
	RecordSuccess(domain string) error
	// Get returns domain's record or an ENotFound error.
	Get(domain string) (*DomainFailure, error)
	// Dead returns the domains, in name order, with at least threshold
	// failures whose last failure is after now-window.
	Dead(now time.Time, threshold int, window time.Duration) ([]string, error)
	// List returns every record, worst first: most failures, then the
	// most recent failure.
	List() ([]*DomainFailure, error)
	// Reset forgets domain's failures; ENotFound when it has none.
	Reset(domain string) error
}
