package federation

import (
	"context"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/store"
)

// Actors: Update of a Person, Move, and turning a decoded actor into the
// cached record.

// ActorRecord turns a decoded remote actor into the record murlog caches:
// the resolver's sanitized form (actorOf), held to what an actor may say
// about itself — a user name, an inbox on its own server, collections and
// keys on its own server, links only as absolute http(s) URLs — and with
// the names reduced to text (tags dropped). fetched is when the document
// was read.
func ActorRecord(o *activitypub.Object, fetched time.Time) (*murlog.RemoteActor, error) {
	if !o.IsActor() {
		return nil, murlog.Invalid("type", "%q is not an actor type", o.Type)
	}
	if activitypub.HostOf(o.ID) == "" {
		return nil, murlog.Invalid("id", "is not an http(s) URL")
	}
	if !activitypub.SameOrigin(o.Inbox, o.ID) {
		return nil, murlog.Invalid("inbox", "missing or not on the actor's server")
	}
	a := actorOf(o)
	if a.Username = plainText(a.Username, MaxDisplayName); a.Username == "" || strings.ContainsAny(a.Username, "@/ ") {
		return nil, murlog.Invalid("preferredUsername", "missing or not a user name")
	}
	a.DisplayName = plainText(a.DisplayName, MaxDisplayName)
	for i := range a.Fields {
		a.Fields[i].Name = plainText(a.Fields[i].Name, MaxDisplayName)
	}
	a.URL, a.SharedInbox, a.MovedTo = httpURL(a.URL), httpURL(a.SharedInbox), httpURL(a.MovedTo)
	a.AvatarURL, a.HeaderURL = httpURL(a.AvatarURL), httpURL(a.HeaderURL)
	a.Outbox, a.Followers = sameOrigin(a.Outbox, o.ID), sameOrigin(a.Followers, o.ID)
	a.Following, a.Featured = sameOrigin(a.Following, o.ID), sameOrigin(a.Featured, o.ID)
	if !activitypub.SameOrigin(a.KeyID, o.ID) {
		a.KeyID, a.PublicKeyPEM = "", ""
	}
	if !activitypub.SameOrigin(a.Ed25519KeyID, o.ID) {
		a.Ed25519KeyID, a.Ed25519Key = "", ""
	}
	a.FetchedAt, a.CreatedAt, a.UpdatedAt = fetched, fetched, fetched
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
	return p.d.Store.Update(ctx, func(tx store.Tx) error {
		a.FetchedAt, a.UpdatedAt = tx.Now(), tx.Now()
		return tx.RemoteActors().Upsert(a)
	})
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
