package murlog

import "time"

// MaxPersonaFields is how many custom profile fields (name/value pairs shown
// on the profile and federated as PropertyValue attachments) a persona has.
const MaxPersonaFields = 4

// Persona is one identity the owner posts as. Exactly one persona is the
// primary; setup creates it.
type Persona struct {
	ID           string
	Username     string // the local part of @username@domain; fixed after creation
	DisplayName  string
	Summary      string // plain text bio
	Fields       []Field
	AvatarPath   string // media reference, "" for none
	HeaderPath   string
	Locked       bool // follow requests need approval
	ShowFollows  bool // follow lists are public
	Discoverable bool // may be listed in directories and search
	Primary      bool

	PublicKeyPEM  string
	PrivateKeyPEM string // never leaves the server

	// Cached counters, maintained in the same transaction as the change.
	PostsCount     int
	FollowersCount int
	FollowingCount int

	CreatedAt time.Time
	UpdatedAt time.Time
}

// Field is a custom profile field.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}
