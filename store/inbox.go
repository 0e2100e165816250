package store

import "time"

// InboxItem is one activity the inbox accepted: its verified body, kept
// until the inbox.process job has handled it, and its id afterwards so a
// second delivery of the same activity is recognised.
type InboxItem struct {
	ID         string // inbox.ItemID of the activity id
	ActorID    string // the signer: a RemoteActor's local id, verified to be the activity's actor
	PersonaID  string // the persona whose inbox received it; "" for the shared inbox
	Body       []byte // the activity as received; nil once Done
	ReceivedAt time.Time
	Done       bool
}

// InboxItems stores accepted inbox activities by the hash of their id.
type InboxItems interface {
	// Put records an accepted activity and reports whether it is new:
	// false (and nothing written) when an item with id exists, done or
	// not — the activity was delivered before.
	Put(id, actorID, personaID string, body []byte, at time.Time) (isNew bool, err error)
	// Get returns the item with id, ENotFound when there is none (never
	// accepted, or pruned).
	Get(id string) (*InboxItem, error)
	// Done clears the item's body and keeps its id for dedupe; ENotFound
	// when there is none.
	Done(id string) error
	// Prune deletes the items received before before, done or not (an
	// activity unprocessed that long is not coming back), and says how
	// many went.
	Prune(before time.Time) (int, error)
}
