package store

import (
	"time"

	"github.com/murlog/murlog"
)

// The federation repositories. Callers hand them decoded, sanitized
// values; the repositories only persist. Person-level counters
// (followers_count, following_count) follow the accepted rows of Followers
// and Follows in the same transaction, whatever removes them (a delete,
// a state change, the remote actor's deletion).

// RemoteActors caches remote accounts.
type RemoteActors interface {
	// Upsert inserts a, or updates the row with a.URI, and sets a.ID and
	// a.CreatedAt to the stored row's: the local id never changes.
	// Followers' delivery inboxes follow a change of the actor's inboxes.
	Upsert(a *murlog.RemoteActor) error
	Get(id string) (*murlog.RemoteActor, error)
	GetByURI(uri string) (*murlog.RemoteActor, error)
	// GetByKeyID finds the actor owning keyID, its RSA or its Ed25519 key.
	GetByKeyID(keyID string) (*murlog.RemoteActor, error)
	// ListByIDs returns the actors that exist, in no particular order.
	ListByIDs(ids ...string) ([]*murlog.RemoteActor, error)
	// SetMovedTo records that the actor moved to target (an actor IRI).
	SetMovedTo(id, target string, at time.Time) error
	// Delete removes the actor and everything that hangs on it: its
	// posts, follows both ways, interactions, blocks, notifications.
	Delete(id string) error
	// Prune deletes at most limit actors fetched before before that no
	// persona follows, is followed by (in any state), blocks or is blocked
	// by, that have no cached post left, no interaction with a local post,
	// and no notification at or after before. It returns how many went.
	Prune(before time.Time, limit int) (int, error)
}

// Follows stores what the personas follow.
type Follows interface {
	// Create inserts f; EConflict when the persona already follows (or
	// asked to follow) the actor, or the activity id is taken.
	Create(f *murlog.Follow) error
	Get(id string) (*murlog.Follow, error)
	GetByActor(personaID, actorID string) (*murlog.Follow, error)
	GetByActivity(activityURI string) (*murlog.Follow, error)
	// SetState moves the follow to state; accepting sets AcceptedAt to at,
	// pending clears it.
	SetState(id string, state murlog.FollowState, at time.Time) error
	Delete(id string) error
	// List returns the persona's follows in state ("" for any), in id
	// order after the id after ("" from the start).
	List(personaID string, state murlog.FollowState, after string, limit int) ([]*murlog.Follow, error)
	Count(personaID string, state murlog.FollowState) (int, error)
	// Followed lists the personas with an accepted follow of actorID.
	Followed(actorID string) ([]string, error)
	// DeleteByDomain removes every persona's follows of actors on domain
	// and returns how many went.
	DeleteByDomain(domain string) (int, error)
}

// Followers stores who follows the personas.
type Followers interface {
	// Create inserts f; EConflict when the actor already follows (or
	// asked to follow) the persona.
	Create(f *murlog.Follower) error
	Get(id string) (*murlog.Follower, error)
	GetByActor(personaID, actorID string) (*murlog.Follower, error)
	// GetByActivity finds the follower whose latest Follow has this id.
	GetByActivity(activityURI string) (*murlog.Follower, error)
	// SetState moves the follower to state.
	SetState(id string, state murlog.FollowState) error
	// SetActivity records the id of a repeated Follow.
	SetActivity(id, activityURI string) error
	Delete(id string) error
	List(personaID string, state murlog.FollowState, after string, limit int) ([]*murlog.Follower, error)
	Count(personaID string, state murlog.FollowState) (int, error)
	// Inboxes pages the distinct delivery inboxes (shared inbox, else
	// inbox) of the persona's accepted followers, in string order after
	// after ("" from the start). It is the fan-out's recipient list.
	Inboxes(personaID, after string, limit int) ([]string, error)
	// DeleteByDomain removes the followers on domain of every persona and
	// returns how many went.
	DeleteByDomain(domain string) (int, error)
}

// RemotePosts caches remote objects.
type RemotePosts interface {
	// Upsert inserts p, or updates the row with p.URI, and sets p.ID and
	// p.ReceivedAt to the stored row's. The owner (ActorID) of a stored
	// row never changes; callers check ownership before an update.
	Upsert(p *murlog.RemotePost) error
	Get(id string) (*murlog.RemotePost, error)
	GetByURI(uri string) (*murlog.RemotePost, error)
	Delete(id string) error
	DeleteByActor(actorID string) (int, error)
	// Prune deletes at most limit posts received before before that no
	// persona liked or boosted, no local post replies to or quotes, that
	// are not the subject of a mention, reply or quote notification nor
	// of any notification at or after before. It returns how many went.
	// Replies returns up to limit cached posts replying to uri, oldest
	// first (the replies of a thread).
	Replies(uri string, limit int) ([]*murlog.RemotePost, error)
	Prune(before time.Time, limit int) (int, error)
}

// Interactions stores likes and boosts, inbound and outbound.
type Interactions interface {
	// Create inserts i; EConflict when the activity id is taken or the
	// same actor (persona) already made the same kind of interaction with
	// the same post (object).
	Create(i *murlog.Interaction) error
	GetByActivity(activityURI string) (*murlog.Interaction, error)
	// GetInbound finds a remote actor's like or boost of a local post.
	GetInbound(actorID string, kind murlog.InteractionKind, postID string) (*murlog.Interaction, error)
	// GetOutbound finds a persona's like or boost of a remote object.
	GetOutbound(personaID string, kind murlog.InteractionKind, objectURI string) (*murlog.Interaction, error)
	Delete(id string) error
	// Counts returns how many likes and boosts a local post received.
	Counts(postID string) (likes, announces int, err error)
}

// Blocks stores blocks both ways: Block/Unblock/Get/List are the
// personas' blocks of actors, the BlockedBy methods the actors' blocks of
// personas.
type Blocks interface {
	// Create records b; EConflict when the persona already blocks the actor.
	Create(b *murlog.Block) error
	Get(personaID, actorID string) (*murlog.Block, error)
	Delete(personaID, actorID string) error
	List(personaID string) ([]*murlog.Block, error)
	// Blocking reports whether any persona blocks actorID.
	Blocking(actorID string) (bool, error)
	// AddBlockedBy records that b.ActorID blocks b.PersonaID; repeating
	// it is not an error.
	AddBlockedBy(b *murlog.Block) error
	DeleteBlockedBy(personaID, actorID string) error
	IsBlockedBy(personaID, actorID string) (bool, error)
}

// DomainBlocks stores blocked remote servers.
type DomainBlocks interface {
	// Create records b; EConflict when the domain is already blocked.
	Create(b *murlog.DomainBlock) error
	Delete(domain string) error
	Has(domain string) (bool, error)
	List() ([]*murlog.DomainBlock, error)
}

// NotificationQuery selects a page of notifications, newest first.
type NotificationQuery struct {
	PersonaID string
	Kinds     []murlog.NotificationKind // nil for every kind
	Before    string                    // continue after this notification id
	Limit     int
}

// Notifications stores what the owner is told.
type Notifications interface {
	Create(n *murlog.Notification) error
	List(q NotificationQuery) ([]*murlog.Notification, error)
	CountUnread(personaID string) (int, error)
	// MarkRead marks the persona's notifications with these ids read and
	// returns how many changed.
	MarkRead(personaID string, ids ...string) (int, error)
	MarkAllRead(personaID string) (int, error)
	Delete(personaID, id string) error
}

// DeliverySummary counts a post's deliveries per state and keeps the
// most recent failures.
type DeliverySummary struct {
	Pending, Delivered, Failed, Skipped int
	LastErrors                          []*murlog.Delivery // failed rows, most recent first, at most MaxDeliveryErrors
}

// MaxDeliveryErrors bounds DeliverySummary.LastErrors.
const MaxDeliveryErrors = 5

// Deliveries records where each post went.
type Deliveries interface {
	// Add records pending deliveries of key to inboxes at at; inboxes
	// already recorded for key are left as they are.
	Add(key string, at time.Time, inboxes ...string) error
	// Set records an outcome: delivered and failed count an attempt, and
	// so does pending with an errMsg (a failed try that will be retried);
	// errMsg is kept (cut to MaxDomainError characters; "" clears it). An
	// inbox not yet recorded is added.
	Set(key, inbox string, state murlog.DeliveryState, errMsg string, at time.Time) error
	Summary(key string) (*DeliverySummary, error)
	// List pages key's deliveries in inbox order after after.
	List(key, after string, limit int) ([]*murlog.Delivery, error)
}

// Pins stores featured posts.
type Pins interface {
	// Pin features postID; EConflict when it already is.
	Pin(p *murlog.Pin) error
	Unpin(personaID, postID string) error
	// List returns the persona's pins, most recent first.
	List(personaID string) ([]*murlog.Pin, error)
}

// Tombstones remembers deleted local posts.
type Tombstones interface {
	// Put records t, replacing a tombstone with the same URI.
	Put(t *murlog.Tombstone) error
	Get(postID string) (*murlog.Tombstone, error)
	GetByURI(uri string) (*murlog.Tombstone, error)
}

// TimelineItem is one row of a home timeline: a local post (Post set) or a
// received remote post (Entry and RemotePost set). ID is the cursor.
type TimelineItem struct {
	ID         string
	At         time.Time // publication of a local post, receipt of an entry
	Post       *murlog.Post
	Entry      *murlog.TimelineEntry
	RemotePost *murlog.RemotePost
}

// Timeline stores received posts and reads the home timeline.
type Timeline interface {
	// Add records e; a post already in the persona's timeline by the same
	// way (directly, or boosted in the same Announce) is skipped.
	Add(e *murlog.TimelineEntry) error
	// DeleteByAnnounce removes the entries boostedBy's Announce brought
	// (an Undo Announce names only its own actor's boosts).
	DeleteByAnnounce(boostedBy, announceURI string) error
	// List merges the persona's own posts published at or before now
	// (every visibility) with its entries, newest first, after the item
	// with id before ("" for the first page; an unknown cursor is
	// EInvalid).
	List(personaID string, now time.Time, before string, limit int) ([]*TimelineItem, error)
}
