package murlog

import "time"

// RemoteActor is a cached remote account (an ActivityPub actor). ID is
// local and stable across refetches; URI is the actor's id IRI. Text is
// stored as the federation layer decoded and sanitized it.
type RemoteActor struct {
	ID           string
	URI          string // the actor's id; unique
	Username     string // preferredUsername
	Domain       string // host[:port] of URI, lower case
	DisplayName  string
	Summary      string // sanitized HTML
	URL          string // profile page
	Inbox        string
	SharedInbox  string // endpoints.sharedInbox, "" if none
	Outbox       string
	Followers    string
	Following    string
	Featured     string
	AvatarURL    string
	HeaderURL    string
	Type         string // Person, Service, Group, Application, Organization
	Locked       bool   // manuallyApprovesFollowers
	Discoverable bool
	Fields       []Field
	KeyID        string // the RSA key's id
	PublicKeyPEM string
	Ed25519KeyID string // FEP-521a assertionMethod id, "" if none
	Ed25519Key   string // multibase public key
	MovedTo      string // the Move target's actor id, "" if not moved
	FetchedAt    time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// DeliveryInbox is where activities for this actor go: the shared inbox
// when the server offers one (one delivery per server), else its own.
func (a *RemoteActor) DeliveryInbox() string {
	if a.SharedInbox != "" {
		return a.SharedInbox
	}
	return a.Inbox
}

// Handle returns "user@domain".
func (a *RemoteActor) Handle() string { return a.Username + "@" + a.Domain }

// RemotePost is a cached remote object (Note, Article, Page, Question…).
// ActorID is the local id of its owner: only that actor may update or
// delete it.
type RemotePost struct {
	ID          string
	URI         string // the object's id; unique
	ActorID     string
	Type        string
	URL         string
	Name        string // title (Article, Page, Question)
	Content     string // sanitized HTML
	Summary     string // content warning
	Sensitive   bool
	Visibility  Visibility
	InReplyTo   string // the parent's id IRI, "" if none
	QuoteOf     string // the quoted post's id IRI, "" if none
	Language    string
	Attachments []RemoteAttachment
	Tags        []string // hashtags without '#'
	Mentions    []string // mentioned actors' id IRIs
	PublishedAt time.Time
	UpdatedAt   *time.Time // nil if never edited
	ReceivedAt  time.Time
}

// RemoteAttachment is one media attachment of a remote post; the media
// stays on the remote server.
type RemoteAttachment struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	URL       string `json:"url"`
	Name      string `json:"name,omitempty"` // alt text
	Blurhash  string `json:"blurhash,omitempty"`
}
