// Package activitypub is murlog's ActivityPub vocabulary, for both
// directions: tolerant but capped decoding of remote ActivityStreams JSON
// (actors, objects, activities: Object), the documents murlog writes
// (Actor, Post, Activity, Collection: document.go), the addressing of
// posts (visibility ⇄ to/cc), content negotiation and the small helpers on
// IRIs that federation checks rely on. The types both directions share
// (PublicKey, Endpoints, Image, Tag, InteractionPolicy) carry their JSON
// names. It fills no document: package federation's builders turn
// personas and posts into them.
package activitypub

import (
	"strings"
	"time"
)

// Public is the special collection that addresses a post to everyone.
const Public = "https://www.w3.org/ns/activitystreams#Public"

// IsPublic reports whether iri names the public collection, in any of the
// spellings servers send: the full IRI and the compacted "as:Public" and
// "Public" that JSON-LD processors are allowed to produce.
func IsPublic(iri string) bool {
	return iri == Public || iri == "as:Public" || iri == "Public"
}

// Ref is a property that may hold an IRI or an embedded object. ID is set
// in both cases (the embedded object's id, or a Link's href); Object only
// when the sender embedded one.
type Ref struct {
	ID     string
	Object *Object
}

// Refs is a property that may hold one Ref or an array of them.
type Refs []Ref

// First returns the first ref, or the zero Ref.
func (rs Refs) First() Ref {
	if len(rs) == 0 {
		return Ref{}
	}
	return rs[0]
}

// Tag is an entry of an object's tag: a Mention (Href = the actor), a
// Hashtag (Name "#tag", Href = the tag page) or a custom Emoji (Name
// ":code:", Icon = the image).
type Tag struct {
	Type string `json:"type"`
	Href string `json:"href"`
	Name string `json:"name"`
	Icon *Image `json:"icon,omitempty"`
}

// Attachment is a media attachment of a post, or a profile field of an
// actor (Type "PropertyValue", Name and Value).
type Attachment struct {
	Type, MediaType, URL, Name, Blurhash string
	Width, Height                        int
	Value                                string // PropertyValue: the field's HTML
}

// Image is an actor's icon (avatar) or image (header), or an emoji's icon.
// Type ("Image") is written, not read.
type Image struct {
	Type      string `json:"type"`
	MediaType string `json:"mediaType,omitempty"`
	URL       string `json:"url"`
}

// PublicKey is a draft-cavage era key: an RSA key in PKIX PEM
// (security/v1).
type PublicKey struct {
	ID           string `json:"id"`
	Owner        string `json:"owner"`
	PublicKeyPem string `json:"publicKeyPem"`
}

// Multikey is a FEP-521a assertionMethod entry (Ed25519 keys on Mastodon
// 4.5+): the key in multibase ("z…" base58btc of the multicodec bytes).
type Multikey struct {
	ID, Type, Controller, PublicKeyMultibase string
}

// Endpoints is an actor's endpoints; only the shared inbox is read or
// written.
type Endpoints struct {
	SharedInbox string `json:"sharedInbox"`
}

// Key is the material KeyByID finds: exactly one of PEM and Multibase is set.
type Key struct {
	ID, Owner      string
	PEM, Multibase string
}

// InteractionPolicy is GoToSocial's and FEP-044f's interactionPolicy; only
// canQuote is read and written, which Mastodon 4.5 needs to decide whether
// a post may be quoted.
type InteractionPolicy struct {
	CanQuote Approval `json:"canQuote"`
}

// Approval lists who is approved automatically and who needs the author's
// manual approval (IRIs: Public, a followers collection, actors).
// automaticApproval is always written: an empty list says "nobody".
type Approval struct {
	AutomaticApproval []string `json:"automaticApproval"`
	ManualApproval    []string `json:"manualApproval,omitempty"`
}

// Object is any ActivityStreams object murlog reads: actors, notes,
// articles, tombstones and activities share one struct holding the union of
// the fields used, so a document is decoded once whatever its type.
type Object struct {
	ID, Type string
	Actor    Ref
	Object   Refs // activities: the object(s), as IRIs or embedded
	Target   Ref

	AttributedTo               Refs
	To, Cc, Bto, Bcc, Audience []string
	InReplyTo                  string
	Published, Updated         time.Time
	Name, Summary, Content     string
	ContentMap                 map[string]string
	MediaType                  string
	Sensitive                  bool
	URL                        string // the text/html link, else the first
	Tag                        []Tag
	Attachment                 []Attachment
	Replies                    Ref
	// QuoteOf is the quoted post, from quote (FEP-044f, Mastodon 4.5),
	// quoteUrl, quoteUri (Fedibird) or _misskey_quote, in that order.
	QuoteOf           string
	InteractionPolicy *InteractionPolicy

	// Misskey reactions: a Like's emoji, from _misskey_reaction (Content
	// holds the same value on recent versions).
	MisskeyReaction string

	// Collections and their pages (outbox, followers, featured):
	// orderedItems and items both land in Items.
	TotalItems  int
	First, Next Ref
	PartOf      string
	Items       Refs

	// Actors.
	PreferredUsername                             string
	Inbox, Outbox, Followers, Following, Featured string
	Endpoints                                     Endpoints
	PublicKey                                     []PublicKey
	AssertionMethod                               []Multikey
	ManuallyApprovesFollowers, Discoverable       bool
	Icon, Image                                   *Image
	MovedTo                                       string
	AlsoKnownAs                                   []string
}

// IsActor reports whether o is an actor.
func (o *Object) IsActor() bool {
	switch o.Type {
	case "Person", "Service", "Application", "Group", "Organization":
		return true
	}
	return false
}

// Fields returns an actor's profile fields: the PropertyValue attachments.
func (o *Object) Fields() []Attachment {
	var fs []Attachment
	for _, a := range o.Attachment {
		if a.Type == "PropertyValue" {
			fs = append(fs, a)
		}
	}
	return fs
}

// KeyByID returns the key of o named keyID. A keyId in the "#main-key"
// form matches a key listed in the "/main-key" form and the other way
// round, since servers disagree on which they publish (GoToSocial lists
// /main-key, Mastodon #main-key) and some sign with the other. A keyId equal
// to the actor's own id selects its key when it lists exactly one.
func (o *Object) KeyByID(keyID string) (Key, bool) {
	if keyID == "" {
		return Key{}, false
	}
	want := keyForm(keyID)
	for _, k := range o.PublicKey {
		if k.PublicKeyPem != "" && keyForm(k.ID) == want {
			return Key{ID: k.ID, Owner: k.Owner, PEM: k.PublicKeyPem}, true
		}
	}
	for _, k := range o.AssertionMethod {
		if k.PublicKeyMultibase != "" && keyForm(k.ID) == want {
			return Key{ID: k.ID, Owner: k.Controller, Multibase: k.PublicKeyMultibase}, true
		}
	}
	if keyID == o.ID && len(o.PublicKey) == 1 && o.PublicKey[0].PublicKeyPem != "" {
		k := o.PublicKey[0]
		return Key{ID: k.ID, Owner: k.Owner, PEM: k.PublicKeyPem}, true
	}
	return Key{}, false
}

// keyForm maps the "#name" and "/name" spellings of a key id to one form.
func keyForm(id string) string {
	if i := strings.LastIndexByte(id, '#'); i >= 0 {
		return id[:i] + "/" + id[i+1:]
	}
	return id
}
