package activitypub

import (
	"bytes"
	"encoding/json"
	"time"
)

// The documents murlog writes: the actor, a post's object, activities,
// collections and the FEP-044f quote documents, with the JSON-LD contexts
// they carry. They share the small types (PublicKey, Endpoints, Image,
// Tag, InteractionPolicy) with the decoded Object, so both directions
// spell a term the same way. Package federation's builders fill them from
// personas and posts.

// The JSON-LD contexts murlog sends. They name only the extension terms
// murlog uses, spelled as Mastodon spells them (its ContextHelper), so
// Mastodon, Misskey and GoToSocial read the same terms they emit
// themselves. They are constants so no request pays for building them.
const (
	ASContext = `"https://www.w3.org/ns/activitystreams"`

	// ActorContext: Person documents (security/v1 for publicKey).
	ActorContext = `["https://www.w3.org/ns/activitystreams","https://w3id.org/security/v1",{` +
		`"manuallyApprovesFollowers":"as:manuallyApprovesFollowers",` +
		`"toot":"http://joinmastodon.org/ns#",` +
		`"featured":{"@id":"toot:featured","@type":"@id"},` +
		`"discoverable":"toot:discoverable",` +
		`"schema":"http://schema.org#",` +
		`"PropertyValue":"schema:PropertyValue",` +
		`"value":"schema:value"}]`

	// ObjectContext: notes, articles, activities and collections that
	// embed them (sensitive, Hashtag, and FEP-044f's interaction policy
	// in the GoToSocial namespace that Mastodon also uses).
	ObjectContext = `["https://www.w3.org/ns/activitystreams",{` +
		`"sensitive":"as:sensitive",` +
		`"Hashtag":"as:Hashtag",` +
		`"toot":"http://joinmastodon.org/ns#",` +
		`"gts":"https://gotosocial.org/ns#",` +
		`"interactionPolicy":{"@id":"gts:interactionPolicy","@type":"@id"},` +
		`"canQuote":{"@id":"gts:canQuote","@type":"@id"},` +
		`"automaticApproval":{"@id":"gts:automaticApproval","@type":"@id"},` +
		`"manualApproval":{"@id":"gts:manualApproval","@type":"@id"}}]`
)

// Actor is a Person document: the full actor, or (KeyActor) only its
// technical attributes.
type Actor struct {
	Context                   json.RawMessage `json:"@context,omitempty"`
	ID                        string          `json:"id"`
	Type                      string          `json:"type"`
	PreferredUsername         string          `json:"preferredUsername"`
	Name                      string          `json:"name,omitempty"`
	Summary                   string          `json:"summary,omitempty"`
	URL                       string          `json:"url,omitempty"`
	Inbox                     string          `json:"inbox"`
	Outbox                    string          `json:"outbox"`
	Followers                 string          `json:"followers"`
	Following                 string          `json:"following"`
	Featured                  string          `json:"featured,omitempty"`
	Endpoints                 Endpoints       `json:"endpoints"`
	ManuallyApprovesFollowers *bool           `json:"manuallyApprovesFollowers,omitempty"`
	Discoverable              *bool           `json:"discoverable,omitempty"`
	Published                 string          `json:"published,omitempty"`
	PublicKey                 PublicKey       `json:"publicKey"`
	Attachment                []PropertyValue `json:"attachment,omitempty"`
	Icon                      *Image          `json:"icon,omitempty"`
	Image                     *Image          `json:"image,omitempty"`
}

// PropertyValue is a profile field (schema.org, as Mastodon sends it).
type PropertyValue struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Post is a local post's object: a Note, an Article, or its Tombstone
// once deleted.
type Post struct {
	Context           json.RawMessage    `json:"@context,omitempty"`
	ID                string             `json:"id"`
	Type              string             `json:"type"`
	FormerType        string             `json:"formerType,omitempty"` // Tombstone
	Deleted           string             `json:"deleted,omitempty"`    // Tombstone
	AttributedTo      string             `json:"attributedTo,omitempty"`
	InReplyTo         string             `json:"inReplyTo,omitempty"`
	Name              string             `json:"name,omitempty"`    // Article title
	Summary           string             `json:"summary,omitempty"` // a content warning, nothing else
	Content           string             `json:"content,omitempty"`
	ContentMap        map[string]string  `json:"contentMap,omitempty"`
	Published         string             `json:"published,omitempty"`
	Updated           string             `json:"updated,omitempty"`
	URL               string             `json:"url,omitempty"`
	To                []string           `json:"to,omitempty"`
	Cc                []string           `json:"cc,omitempty"`
	Sensitive         *bool              `json:"sensitive,omitempty"`
	Tag               []Tag              `json:"tag,omitempty"`
	Replies           *Collection        `json:"replies,omitempty"`
	InteractionPolicy *InteractionPolicy `json:"interactionPolicy,omitempty"`
}

// Activity is any activity murlog sends. Object is an IRI (string) or an
// embedded *Post, *Actor or *Activity.
type Activity struct {
	Context   json.RawMessage `json:"@context,omitempty"`
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Actor     string          `json:"actor"`
	Published string          `json:"published,omitempty"`
	Updated   string          `json:"updated,omitempty"`
	To        []string        `json:"to,omitempty"`
	Cc        []string        `json:"cc,omitempty"`
	Object    any             `json:"object"`
	Content   string          `json:"content,omitempty"` // a Like's reaction (Misskey)
}

// Collection is an OrderedCollection or an OrderedCollectionPage. First
// is an IRI or an embedded page; OrderedItems, when set, is always sent
// (an empty page says "[]").
type Collection struct {
	Context      json.RawMessage `json:"@context,omitempty"`
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	TotalItems   *int            `json:"totalItems,omitempty"`
	First        any             `json:"first,omitempty"`
	Next         string          `json:"next,omitempty"`
	Prev         string          `json:"prev,omitempty"`
	PartOf       string          `json:"partOf,omitempty"`
	OrderedItems any             `json:"orderedItems,omitempty"`
}

// FormatTime writes a time as Mastodon's serializers do: UTC, whole
// seconds; "" for the zero time.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

// Marshal encodes a document as the fediverse writes JSON: without
// escaping <, > and & in strings (content is HTML; escaping it is valid
// but makes every note a third longer).
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// QuoteContext names the FEP-044f terms of the quote documents.
const QuoteContext = `["https://www.w3.org/ns/activitystreams",{` +
	`"QuoteRequest":"https://w3id.org/fep/044f#QuoteRequest",` +
	`"QuoteAuthorization":"https://w3id.org/fep/044f#QuoteAuthorization",` +
	`"gts":"https://gotosocial.org/ns#",` +
	`"interactingObject":{"@id":"gts:interactingObject","@type":"@id"},` +
	`"interactionTarget":{"@id":"gts:interactionTarget","@type":"@id"}}]`

// QuoteDocument is a FEP-044f document: a QuoteRequest, its Accept or
// Reject, and the QuoteAuthorization an Accept carries as its result.
type QuoteDocument struct {
	Context           json.RawMessage `json:"@context,omitempty"`
	ID                string          `json:"id"`
	Type              string          `json:"type"`
	Actor             string          `json:"actor,omitempty"`
	AttributedTo      string          `json:"attributedTo,omitempty"`
	To                []string        `json:"to,omitempty"`
	Object            any             `json:"object,omitempty"`
	Instrument        string          `json:"instrument,omitempty"`
	Result            *QuoteDocument  `json:"result,omitempty"`
	InteractingObject string          `json:"interactingObject,omitempty"`
	InteractionTarget string          `json:"interactionTarget,omitempty"`
}
