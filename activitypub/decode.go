package activitypub

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"time"

	"github.com/murlog/murlog"
)

// Decode parses one remote ActivityStreams document. It is tolerant of the
// shapes servers send (an IRI, an embedded object or an array where one
// value was expected; unknown fields and extension contexts ignored) and
// strict on size: a body over MaxBody, nested deeper than MaxDepth, or with
// any field over its cap (see limits.go) is refused with an EInvalid
// *murlog.Error naming the field and the cap, as is malformed JSON and an
// id, actor or object that is not an absolute http(s) URL.
func Decode(body []byte) (*Object, error) {
	if len(body) > MaxBody {
		return nil, murlog.Invalid("body", "larger than %d bytes (MaxBody)", MaxBody)
	}
	if err := checkDepth(body); err != nil {
		return nil, err
	}
	var w wireObject
	if err := json.Unmarshal(body, &w); err != nil {
		var ie *murlog.Error
		if errors.As(err, &ie) {
			return nil, ie
		}
		return nil, &murlog.Error{Code: murlog.EInvalid, Field: "body", Message: "malformed JSON", Err: err}
	}
	o := w.object()
	if o.ID == "" {
		return nil, murlog.Invalid("id", "missing")
	}
	if err := check(o, ""); err != nil {
		return nil, err
	}
	return o, nil
}

// checkDepth refuses documents whose arrays and objects nest deeper than
// MaxDepth. It runs before the JSON decoder so that the decoder's recursion
// (one level per embedded object) stays bounded; it only counts brackets
// outside strings and leaves validation to the decoder.
func checkDepth(b []byte) error {
	depth := 0
	inString, escaped := false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > MaxDepth {
				return murlog.Invalid("body", "nested deeper than %d levels (MaxDepth)", MaxDepth)
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}

// wireObject is the JSON shape of an Object with the loose types remote
// servers need; object() flattens it.
type wireObject struct {
	ID                string               `json:"id"`
	Type              oneString            `json:"type"`
	Actor             Ref                  `json:"actor"`
	Object            Refs                 `json:"object"`
	Target            Ref                  `json:"target"`
	AttributedTo      Refs                 `json:"attributedTo"`
	To                iris                 `json:"to"`
	Cc                iris                 `json:"cc"`
	Bto               iris                 `json:"bto"`
	Bcc               iris                 `json:"bcc"`
	Audience          iris                 `json:"audience"`
	InReplyTo         Ref                  `json:"inReplyTo"`
	Published         looseTime            `json:"published"`
	Updated           looseTime            `json:"updated"`
	Name              oneString            `json:"name"`
	Summary           oneString            `json:"summary"`
	Content           oneString            `json:"content"`
	ContentMap        map[string]oneString `json:"contentMap"`
	NameMap           map[string]oneString `json:"nameMap"`
	MediaType         oneString            `json:"mediaType"`
	Sensitive         looseBool            `json:"sensitive"`
	URL               link                 `json:"url"`
	Tag               many[wireTag]        `json:"tag"`
	Attachment        many[wireAttach]     `json:"attachment"`
	Replies           Ref                  `json:"replies"`
	Quote             Ref                  `json:"quote"`
	QuoteURL          Ref                  `json:"quoteUrl"`
	QuoteURI          Ref                  `json:"quoteUri"`
	MisskeyQuote      Ref                  `json:"_misskey_quote"`
	InteractionPolicy *wirePolicy          `json:"interactionPolicy"`
	MisskeyReaction   oneString            `json:"_misskey_reaction"`

	TotalItems   looseInt `json:"totalItems"`
	First        Ref      `json:"first"`
	Next         Ref      `json:"next"`
	PartOf       Ref      `json:"partOf"`
	Items        Refs     `json:"items"`
	OrderedItems Refs     `json:"orderedItems"`

	PreferredUsername         oneString       `json:"preferredUsername"`
	Inbox                     Ref             `json:"inbox"`
	Outbox                    Ref             `json:"outbox"`
	Followers                 Ref             `json:"followers"`
	Following                 Ref             `json:"following"`
	Featured                  Ref             `json:"featured"`
	Endpoints                 *wireEndpoints  `json:"endpoints"`
	PublicKey                 many[PublicKey] `json:"publicKey"`
	AssertionMethod           many[Multikey]  `json:"assertionMethod"`
	ManuallyApprovesFollowers looseBool       `json:"manuallyApprovesFollowers"`
	Discoverable              looseBool       `json:"discoverable"`
	Icon                      many[wireImage] `json:"icon"`
	Image                     many[wireImage] `json:"image"`
	MovedTo                   Ref             `json:"movedTo"`
	AlsoKnownAs               iris            `json:"alsoKnownAs"`
}

type wireTag struct {
	Type oneString       `json:"type"`
	Name oneString       `json:"name"`
	Href oneString       `json:"href"`
	Icon many[wireImage] `json:"icon"`
}

type wireAttach struct {
	Type      oneString `json:"type"`
	MediaType oneString `json:"mediaType"`
	URL       link      `json:"url"`
	Name      oneString `json:"name"`
	Summary   oneString `json:"summary"`
	Blurhash  oneString `json:"blurhash"`
	Width     looseInt  `json:"width"`
	Height    looseInt  `json:"height"`
	Value     oneString `json:"value"`
}

type wireImage struct {
	URL       link      `json:"url"`
	MediaType oneString `json:"mediaType"`
}

type wireEndpoints struct {
	SharedInbox Ref `json:"sharedInbox"`
}

type wirePolicy struct {
	CanQuote *struct {
		AutomaticApproval iris `json:"automaticApproval"`
		ManualApproval    iris `json:"manualApproval"`
	} `json:"canQuote"`
}

func (w *wireObject) object() *Object {
	o := &Object{
		ID: w.ID, Type: string(w.Type),
		Actor: w.Actor, Object: w.Object, Target: w.Target,
		AttributedTo: w.AttributedTo,
		To:           w.To, Cc: w.Cc, Bto: w.Bto, Bcc: w.Bcc, Audience: w.Audience,
		InReplyTo: w.InReplyTo.ID,
		Published: time.Time(w.Published), Updated: time.Time(w.Updated),
		Name: string(w.Name), Summary: string(w.Summary), Content: string(w.Content),
		MediaType: string(w.MediaType), Sensitive: bool(w.Sensitive),
		URL:             string(w.URL),
		Replies:         w.Replies,
		MisskeyReaction: string(w.MisskeyReaction),

		TotalItems: int(w.TotalItems), First: w.First, Next: w.Next, PartOf: w.PartOf.ID,
		Items: w.OrderedItems,

		PreferredUsername: string(w.PreferredUsername),
		Inbox:             w.Inbox.ID, Outbox: w.Outbox.ID,
		Followers: w.Followers.ID, Following: w.Following.ID, Featured: w.Featured.ID,
		PublicKey: w.PublicKey, AssertionMethod: w.AssertionMethod,
		ManuallyApprovesFollowers: bool(w.ManuallyApprovesFollowers),
		Discoverable:              bool(w.Discoverable),
		MovedTo:                   w.MovedTo.ID,
		AlsoKnownAs:               w.AlsoKnownAs,
	}
	for _, q := range []Ref{w.Quote, w.QuoteURL, w.QuoteURI, w.MisskeyQuote} {
		if q.ID != "" {
			o.QuoteOf = q.ID
			break
		}
	}
	if len(o.Items) == 0 {
		o.Items = w.Items
	}
	if w.Endpoints != nil {
		o.Endpoints.SharedInbox = w.Endpoints.SharedInbox.ID
	}
	if w.InteractionPolicy != nil {
		o.InteractionPolicy = &InteractionPolicy{}
		if cq := w.InteractionPolicy.CanQuote; cq != nil {
			o.InteractionPolicy.CanQuote = Approval{AutomaticApproval: cq.AutomaticApproval, ManualApproval: cq.ManualApproval}
		}
	}
	if o.Name == "" && len(w.NameMap) > 0 {
		// The language-tagged title alone (murlog's Articles send it so,
		// see federation.PostObject): the first language's.
		langs := make([]string, 0, len(w.NameMap))
		for lang := range w.NameMap {
			langs = append(langs, lang)
		}
		sort.Strings(langs)
		o.Name = string(w.NameMap[langs[0]])
	}
	if len(w.ContentMap) > 0 {
		o.ContentMap = make(map[string]string, len(w.ContentMap))
		for lang, v := range w.ContentMap {
			o.ContentMap[lang] = string(v)
		}
	}
	if len(w.Tag) > 0 {
		o.Tag = make([]Tag, len(w.Tag))
		for i, t := range w.Tag {
			o.Tag[i] = Tag{Type: string(t.Type), Name: string(t.Name), Href: string(t.Href), Icon: firstImage(t.Icon)}
		}
	}
	if len(w.Attachment) > 0 {
		o.Attachment = make([]Attachment, len(w.Attachment))
		for i, a := range w.Attachment {
			o.Attachment[i] = Attachment{
				Type: string(a.Type), MediaType: string(a.MediaType), URL: string(a.URL),
				Name: string(a.Name), Summary: string(a.Summary), Blurhash: string(a.Blurhash),
				Width: int(a.Width), Height: int(a.Height), Value: string(a.Value),
			}
		}
	}
	o.Icon, o.Image = firstImage(w.Icon), firstImage(w.Image)
	return o
}

func firstImage(imgs many[wireImage]) *Image {
	if len(imgs) == 0 {
		return nil
	}
	return &Image{URL: string(imgs[0].URL), MediaType: string(imgs[0].MediaType)}
}

// UnmarshalJSON accepts an IRI, an embedded object (a Link counts by its
// href), an array (its first entry) or null.
func (r *Ref) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		return unquote(b, &r.ID)
	case '{':
		var w struct {
			wireObject
			Href oneString `json:"href"`
		}
		if err := json.Unmarshal(b, &w); err != nil {
			return err
		}
		r.Object = w.wireObject.object()
		r.ID = r.Object.ID
		if r.ID == "" {
			r.ID = string(w.Href)
		}
		return nil
	case '[':
		var rs Refs
		if err := json.Unmarshal(b, &rs); err != nil {
			return err
		}
		*r = rs.First()
		return nil
	}
	// null, numbers and booleans name nothing.
	*r = Ref{}
	return nil
}

// UnmarshalJSON accepts one value or an array of values of any Ref form.
func (rs *Refs) UnmarshalJSON(b []byte) error {
	var m many[Ref]
	if err := m.UnmarshalJSON(b); err != nil {
		return err
	}
	*rs = Refs(m)
	return nil
}

// many is a property that may hold one T or an array of T.
type many[T any] []T

func (m *many[T]) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return nil
	}
	if b[0] == '[' {
		var s []T
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*m = s
		return nil
	}
	var v T
	if u, ok := any(&v).(json.Unmarshaler); ok {
		// The document was validated once already: a Ref is decoded by
		// its own method, not validated again on the way in.
		if err := u.UnmarshalJSON(b); err != nil {
			return err
		}
	} else if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = many[T]{v}
	return nil
}

// iris is a list of IRIs given as one IRI, an array of IRIs, or objects
// with an id (a collection, an actor) in either.
type iris []string

func (s *iris) UnmarshalJSON(b []byte) error {
	var rs Refs
	if err := rs.UnmarshalJSON(b); err != nil {
		return err
	}
	if len(rs) == 0 {
		return nil
	}
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		if r.ID != "" {
			out = append(out, r.ID)
		}
	}
	*s = out
	return nil
}

// oneString is a string that may arrive as an array (its first string) or
// as null; other values read as "".
type oneString string

func (s *oneString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		return unquote(b, (*string)(s))
	case '[':
		var vs []json.RawMessage
		if err := json.Unmarshal(b, &vs); err != nil {
			return err
		}
		for _, v := range vs {
			if len(v) > 0 && v[0] == '"' {
				return unquote(v, (*string)(s))
			}
		}
	}
	*s = ""
	return nil
}

// link is a url property: an IRI, a Link object, or an array of either,
// of which the text/html Link wins (PeerTube lists the video files next to
// the page), else the first.
type link string

func (l *link) UnmarshalJSON(b []byte) error {
	type wireLink struct {
		Href      oneString `json:"href"`
		MediaType oneString `json:"mediaType"`
	}
	if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '"' {
		return unquote(b, (*string)(l))
	}
	var entries many[json.RawMessage]
	if err := entries.UnmarshalJSON(b); err != nil {
		return err
	}
	var first string
	for _, e := range entries {
		var href, mediaType string
		switch {
		case len(e) > 0 && e[0] == '"':
			if err := json.Unmarshal(e, &href); err != nil {
				return err
			}
		case len(e) > 0 && e[0] == '{':
			var w wireLink
			if err := json.Unmarshal(e, &w); err != nil {
				return err
			}
			href, mediaType = string(w.Href), string(w.MediaType)
		}
		if href == "" {
			continue
		}
		if mediaType == "text/html" {
			*l = link(href)
			return nil
		}
		if first == "" {
			first = href
		}
	}
	*l = link(first)
	return nil
}

// looseTime is an xsd:dateTime; a value that does not parse reads as the
// zero time rather than failing the document (some servers send dates
// without a zone).
type looseTime time.Time

func (t *looseTime) UnmarshalJSON(b []byte) error {
	var s string
	if len(b) == 0 || b[0] != '"' || unquote(b, &s) != nil {
		return nil
	}
	if v, err := time.Parse(time.RFC3339Nano, s); err == nil {
		*t = looseTime(v.UTC())
	} else if v, err := time.Parse("2006-01-02T15:04:05", s); err == nil {
		*t = looseTime(v)
	}
	return nil
}

// looseBool is a boolean that also accepts "true"/"false" strings and null.
type looseBool bool

func (v *looseBool) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(bytes.TrimSpace(b), `"`))
	*v = s == "true"
	return nil
}

// looseInt is an integer dimension; anything else reads as 0.
type looseInt int

func (v *looseInt) UnmarshalJSON(b []byte) error {
	var f float64
	if json.Unmarshal(b, &f) == nil && f >= 0 && f < 1<<31 {
		*v = looseInt(f)
	}
	return nil
}

// unquote decodes the JSON string b into s. Most strings in ActivityPub
// documents (IRIs, types, dates) have no escapes: those are sliced
// directly, sparing a decoder per field; the rest go through encoding/json.
func unquote(b []byte, s *string) error {
	if n := len(b); n >= 2 && b[0] == '"' && b[n-1] == '"' {
		plain := true
		for _, c := range b[1 : n-1] {
			if c == '\\' || c == '"' || c < 0x20 || c >= 0x80 {
				plain = false
				break
			}
		}
		if plain {
			*s = string(b[1 : n-1])
			return nil
		}
	}
	return json.Unmarshal(b, s)
}
