package federation

import (
	"context"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/markup"
	"github.com/murlog/murlog/store"
)

// Actors: Update of a Person, Move, and turning a decoded actor into the
// cached record.

// ActorRecord turns a decoded remote actor into the record murlog caches,
// every text field made safe: the display name and field names as plain
// text, the bio and field values through the remote sanitizer, links and
// inboxes only as absolute http(s) URLs, the inbox on the actor's own
// server. Its RSA key is the publicKey the actor owns; its Ed25519 key the
// first Multikey it controls. fetched is when the document was read.
func ActorRecord(o *activitypub.Object, fetched time.Time) (*murlog.RemoteActor, error) {
	if !o.IsActor() {
		return nil, murlog.Invalid("type", "%q is not an actor type", o.Type)
	}
	domain := activitypub.HostOf(o.ID)
	if domain == "" {
		return nil, murlog.Invalid("id", "is not an http(s) URL")
	}
	username := plainText(o.PreferredUsername, 200)
	if username == "" || strings.ContainsAny(username, "@/ ") {
		return nil, murlog.Invalid("preferredUsername", "missing or not a user name")
	}
	if !activitypub.SameOrigin(o.Inbox, o.ID) {
		return nil, murlog.Invalid("inbox", "missing or not on the actor's server")
	}
	policy := markup.RemotePolicy()
	a := &murlog.RemoteActor{
		URI: o.ID, Username: username, Domain: domain, Type: o.Type,
		DisplayName:  plainText(o.Name, 500),
		Summary:      markup.Sanitize(o.Summary, policy),
		URL:          httpURL(o.URL),
		Inbox:        o.Inbox,
		Outbox:       sameOrigin(o.Outbox, o.ID),
		Followers:    sameOrigin(o.Followers, o.ID),
		Following:    sameOrigin(o.Following, o.ID),
		Featured:     sameOrigin(o.Featured, o.ID),
		Locked:       o.ManuallyApprovesFollowers,
		Discoverable: o.Discoverable,
		MovedTo:      httpURL(o.MovedTo),
		FetchedAt:    fetched, CreatedAt: fetched, UpdatedAt: fetched,
	}
	// A shared inbox may live on another host of the same operator, but
	// it must be a real URL.
	a.SharedInbox = httpURL(o.Endpoints.SharedInbox)
	if o.Icon != nil {
		a.AvatarURL = httpURL(o.Icon.URL)
	}
	if o.Image != nil {
		a.HeaderURL = httpURL(o.Image.URL)
	}
	for _, f := range o.Fields() {
		a.Fields = append(a.Fields, murlog.Field{Name: plainText(f.Name, 500), Value: markup.Sanitize(f.Value, policy)})
	}
	for _, k := range o.PublicKey {
		if k.PublicKeyPem != "" && (k.Owner == "" || k.Owner == o.ID) && activitypub.SameOrigin(k.ID, o.ID) {
			a.KeyID, a.PublicKeyPEM = k.ID, k.PublicKeyPem
			break
		}
	}
	for _, k := range o.AssertionMethod {
		if k.PublicKeyMultibase != "" && k.Controller == o.ID && activitypub.SameOrigin(k.ID, o.ID) {
			a.Ed25519KeyID, a.Ed25519Key = k.ID, k.PublicKeyMultibase
			break
		}
	}
	return a, nil
}

// sameOrigin returns iri when it is on base's server, else "".
func sameOrigin(iri, base string) string {
	if activitypub.SameOrigin(iri, base) {
		return iri
	}
	return ""
}

// textOf is the text of an HTML fragment, entities decoded.
func textOf(s string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			b.WriteByte(' ')
		}
	}
}

// refreshActor replaces the cached actor with the one its own Update
// embeds. A document without a key keeps the cached key: an Update is no
// way to lose the key its later activities are verified with.
func (p *Processor) refreshActor(ctx context.Context, old *murlog.RemoteActor, o *activitypub.Object) error {
	a, err := ActorRecord(o, p.now())
	if err != nil {
		return err
	}
	if a.PublicKeyPEM == "" {
		a.KeyID, a.PublicKeyPEM = old.KeyID, old.PublicKeyPEM
	}
	if a.Ed25519Key == "" {
		a.Ed25519KeyID, a.Ed25519Key = old.Ed25519KeyID, old.Ed25519Key
	}
	if a.MovedTo == "" {
		a.MovedTo = old.MovedTo // recorded by a Move, which the Update may not repeat
	}
	return p.d.Store.Update(ctx, func(tx store.Tx) error { return tx.RemoteActors().Upsert(a) })
}

// move handles an actor's Move to another account. As Mastodon, it is
// believed only when the target names the actor in alsoKnownAs (fetched,
// never taken from the activity); it is recorded on the actor and the
// personas following it are told ("move"). Follows are not migrated: the
// owner decides.
func (p *Processor) move(ctx context.Context, a *activity) error {
	if from := a.Object.Object.First().ID; from != "" && from != a.actor.URI {
		return refuse("%s may not move %s", a.actor.URI, from)
	}
	target := a.Target.ID
	if httpURL(target) == "" || target == a.actor.URI {
		return murlog.Invalid("target", "missing or not another actor")
	}
	o, err := p.fetch(ctx, target)
	if err != nil {
		return err
	}
	if !o.IsActor() || !slices.Contains(o.AlsoKnownAs, a.actor.URI) {
		return refuse("the Move target %s does not list %s in alsoKnownAs", target, a.actor.URI)
	}
	return p.d.Social.Moved(ctx, a.actor.ID, target)
}
