package murlog

import "time"

// FollowState is where a follow stands.
type FollowState string

const (
	FollowPending  FollowState = "pending"  // sent (or received) and not yet accepted
	FollowAccepted FollowState = "accepted" // in effect
)

// Follow is a local persona following a remote actor. ActivityURI is the
// id of the Follow we sent (Site.ActivityURL(username, ID)), which the
// Accept names and the Undo carries.
type Follow struct {
	ID          string
	PersonaID   string
	ActorID     string
	ActivityURI string
	State       FollowState
	CreatedAt   time.Time
	AcceptedAt  *time.Time
}

// Follower is a remote actor following a local persona. ActivityURI is the
// id of their Follow, which our Accept or Reject names.
type Follower struct {
	ID          string
	PersonaID   string
	ActorID     string
	ActivityURI string
	State       FollowState
	CreatedAt   time.Time
}

// InteractionKind is a like or a boost.
type InteractionKind string

const (
	InteractionLike     InteractionKind = "like"
	InteractionAnnounce InteractionKind = "announce"
)

// Interaction is a like or a boost. Inbound (a remote actor on a local
// post) sets ActorID and PostID; outbound (a persona on a remote post)
// sets PersonaID, ObjectURI and, while the post is cached, RemotePostID.
// ActivityURI is the Like's or Announce's id, which its Undo names.
type Interaction struct {
	ID           string
	Kind         InteractionKind
	ActorID      string
	PostID       string
	PersonaID    string
	ObjectURI    string
	RemotePostID string
	ActivityURI  string
	Content      string // Misskey's reaction emoji, "" for a plain like
	CreatedAt    time.Time
}

// Inbound reports whether a remote actor made the interaction.
func (i *Interaction) Inbound() bool { return i.ActorID != "" }

// Block is a persona blocking a remote actor, or (as a "blocked by"
// record) a remote actor blocking a persona, after which nothing of that
// persona is delivered to it.
type Block struct {
	PersonaID   string
	ActorID     string
	ActivityURI string // our Block's id, or theirs for a blocked-by record
	CreatedAt   time.Time
}

// DomainBlock refuses a whole remote server.
type DomainBlock struct {
	Domain    string // lower-case host[:port]
	Reason    string
	CreatedAt time.Time
}

// NotificationKind says what a notification is about.
type NotificationKind string

const (
	NotifyFollow        NotificationKind = "follow"
	NotifyFollowRequest NotificationKind = "follow_request"
	NotifyMention       NotificationKind = "mention"
	NotifyReply         NotificationKind = "reply"
	NotifyFavourite     NotificationKind = "favourite"
	NotifyReblog        NotificationKind = "reblog"
	NotifyMove          NotificationKind = "move"
	NotifyQuote         NotificationKind = "quote"
)

// Valid reports whether k is one of the notification kinds.
func (k NotificationKind) Valid() bool {
	switch k {
	case NotifyFollow, NotifyFollowRequest, NotifyMention, NotifyReply, NotifyFavourite, NotifyReblog, NotifyMove, NotifyQuote:
		return true
	}
	return false
}

// Notification tells the owner what a remote actor did. PostID is the
// local post concerned (favourite, reblog), RemotePostID the remote one
// (mention, reply, quote); either may be "".
type Notification struct {
	ID           string
	PersonaID    string
	Kind         NotificationKind
	ActorID      string
	PostID       string
	RemotePostID string
	Read         bool
	CreatedAt    time.Time
}

// DeliveryState is where one inbox's delivery of a post stands.
type DeliveryState string

const (
	DeliveryPending   DeliveryState = "pending"
	DeliveryDelivered DeliveryState = "delivered"
	DeliveryFailed    DeliveryState = "failed"
	DeliverySkipped   DeliveryState = "skipped" // dead domain
)

// Delivery is one inbox's delivery of a post (Key is the post's id), so
// the owner can see whether a post really left.
type Delivery struct {
	Key       string
	Inbox     string
	State     DeliveryState
	Attempts  int
	LastError string
	UpdatedAt time.Time
}

// Pin is a post featured on a persona's profile.
type Pin struct {
	PersonaID string
	PostID    string
	PinnedAt  time.Time
}

// Tombstone remembers a deleted local post so its URI answers 410 Gone.
type Tombstone struct {
	URI       string
	PersonaID string
	PostID    string
	Type      string // Note or Article
	DeletedAt time.Time
}

// TimelineEntry is a remote post received into a persona's home timeline,
// directly or boosted by BoostedBy (an actor id) in AnnounceURI.
type TimelineEntry struct {
	ID           string // UUIDv7 of receipt
	PersonaID    string
	RemotePostID string
	BoostedBy    string
	AnnounceURI  string
	CreatedAt    time.Time
}
