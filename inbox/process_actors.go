package inbox

import (
	"context"
	"slices"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/store"
)

// Actors: Update of a Person and Move (federation.ActorRecord turns the
// decoded actor into the cached record).

// refreshActor replaces the cached actor with the one its own Update
// embeds. A document without a key keeps the cached key: an Update is no
// way to lose the key its later activities are verified with.
func (p *Processor) refreshActor(ctx context.Context, old *murlog.RemoteActor, o *activitypub.Object) error {
	a, err := federation.ActorRecord(o, p.now())
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
	if activitypub.HostOf(target) == "" || target == a.actor.URI {
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
