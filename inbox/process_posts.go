package inbox

import (
	"context"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/store"
)

// Posts: Create, Update and Delete of remote objects, and Announces.

// isPost reports whether objects of type t are stored as posts: Notes in
// full, the others (long-form and polls) as their title and a link to
// the original, as Mastodon shows them.
func isPost(t string) bool {
	switch t {
	case "Note", "Article", "Page", "Question":
		return true
	}
	return false
}

// create stores a received post. Replies to local posts, quotes of them
// and mentions of personas notify; the post enters the timelines of the
// personas following its author or mentioned (the social service decides
// both). A quoted remote post not cached yet is fetched first, so the
// quote can be shown with it.
func (p *Processor) create(ctx context.Context, a *activity) error {
	o, err := p.object(ctx, a)
	if err != nil {
		return err
	}
	if !isPost(o.Type) {
		return p.ignore(ctx, a, "creates a "+o.Type)
	}
	post, err := p.remotePost(a.actor, o)
	if err != nil {
		return err
	}
	if post.QuoteOf != "" {
		if err := p.cacheQuoted(ctx, post.QuoteOf); err != nil {
			return err
		}
	}
	return p.d.Social.Store(ctx, post)
}

// update handles an Update of a post or of an actor, each only by its
// owner: a Note by its author (attributedTo, and the stored post's owner),
// an actor by itself. Anything else is refused and writes nothing.
func (p *Processor) update(ctx context.Context, a *activity) error {
	ref := a.Object.Object.First()
	if ref.Object == nil || ref.Object.Type == "" {
		return p.ignore(ctx, a, "updates nothing embedded")
	}
	o := ref.Object
	if o.IsActor() {
		if o.ID != a.actor.URI {
			return refuse("%s may not update the actor %s", a.actor.URI, o.ID)
		}
		return p.refreshActor(ctx, a.actor, o)
	}
	if !isPost(o.Type) {
		return p.ignore(ctx, a, "updates a "+o.Type)
	}
	post, err := p.remotePost(a.actor, o)
	if err != nil {
		return err
	}
	err = p.d.Social.Update(ctx, a.actor.ID, post)
	if ignorable(err) {
		return p.ignore(ctx, a, "updates a post never received")
	}
	return err
}

// delete handles a Delete of a post (by its owner) or of an actor (by
// itself); the object is an IRI or a Tombstone.
func (p *Processor) delete(ctx context.Context, a *activity) error {
	id := a.Object.Object.First().ID
	if id == "" {
		return murlog.Invalid("object", "missing")
	}
	if id == a.actor.URI {
		return p.d.Social.DeleteActor(ctx, a.actor.ID)
	}
	err := p.d.Social.Delete(ctx, a.actor.ID, id)
	if !ignorable(err) {
		return err
	}
	var other bool
	err = p.d.Store.View(ctx, func(tx store.Tx) (err error) {
		other, err = murlog.Found(tx.RemoteActors().GetByURI(id))
		return err
	})
	if err != nil {
		return err
	}
	if other {
		return refuse("%s may not delete the actor %s", a.actor.URI, id)
	}
	return p.ignore(ctx, a, "deletes nothing stored")
}

// announce handles a boost. Of a local post: the reblog is counted and
// notified. Of a remote post, when a persona follows the booster: the
// original is fetched by a signed GET (an embedded copy is not trusted),
// refused unless it is public or unlisted, stored, and enters those
// personas' timelines as a boost.
func (p *Processor) announce(ctx context.Context, a *activity) error {
	target := a.Object.Object.First().ID
	if target == "" {
		return murlog.Invalid("object", "missing")
	}
	post, _, err := p.localPost(ctx, target)
	if err != nil {
		return err
	}
	if post != nil {
		err := p.d.Social.Announced(ctx, a.actor.ID, post.ID, a.ID)
		if ignorable(err) {
			return p.ignore(ctx, a, "boosts a post not published")
		}
		return err
	}
	if strings.HasPrefix(target, p.d.Site.ActorURL("")) {
		return p.ignore(ctx, a, "boosts a local post that does not exist")
	}
	var (
		followed bool
		cached   *murlog.RemotePost
	)
	err = p.d.Store.View(ctx, func(tx store.Tx) error {
		ids, err := tx.Follows().Followed(a.actor.ID)
		if err != nil {
			return err
		}
		followed = len(ids) > 0
		cached, err = tx.RemotePosts().GetByURI(target)
		if ignorable(err) {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	if !followed {
		return p.ignore(ctx, a, "boost by an actor nobody here follows")
	}
	if cached == nil {
		if cached, err = p.fetchPost(ctx, target); err != nil {
			return err
		}
	}
	if cached.Visibility != murlog.VisibilityPublic && cached.Visibility != murlog.VisibilityUnlisted {
		return refuse("an Announce of %s, which is not public", target)
	}
	return p.d.Social.Boosted(ctx, a.actor.ID, a.ID, cached.ID)
}

// fetchPost fetches the remote post uri and its author, refuses it
// unless it is public or unlisted (nothing is stored then), and stores
// it through the social service.
func (p *Processor) fetchPost(ctx context.Context, uri string) (*murlog.RemotePost, error) {
	o, err := p.fetch(ctx, uri)
	if err != nil {
		return nil, err
	}
	if !isPost(o.Type) {
		return nil, murlog.Invalid("object", "%s is a %s, not a post", uri, o.Type)
	}
	owner := o.AttributedTo.First().ID
	if owner == "" || !activitypub.SameOrigin(owner, o.ID) {
		return nil, refuse("%s is not attributed to an actor of its server", uri)
	}
	author, err := p.actor(ctx, owner)
	if err != nil {
		return nil, err
	}
	post, err := p.remotePost(author, o)
	if err != nil {
		return nil, err
	}
	if post.Visibility != murlog.VisibilityPublic && post.Visibility != murlog.VisibilityUnlisted {
		return nil, refuse("%s is not public", uri)
	}
	if err := p.d.Social.Store(ctx, post); err != nil {
		return nil, err
	}
	return post, nil
}

// cacheQuoted makes sure the post a quote quotes is cached, fetching it
// when it is neither local nor cached. A quoted post that is gone or not
// public is not shown; the quote is stored all the same.
func (p *Processor) cacheQuoted(ctx context.Context, uri string) error {
	if strings.HasPrefix(uri, p.d.Site.ActorURL("")) {
		return nil // ours: the social service notifies its persona
	}
	var cached bool
	err := p.d.Store.View(ctx, func(tx store.Tx) (err error) {
		cached, err = murlog.Found(tx.RemotePosts().GetByURI(uri))
		return err
	})
	if err != nil || cached {
		return err
	}
	if _, err := p.fetchPost(ctx, uri); err != nil {
		if !permanent(err) {
			return err
		}
		p.log.InfoContext(ctx, "quoted post not shown", "quoted", uri, "reason", err.Error())
	}
	return nil
}

// remotePost turns a decoded object by actor into the post stored: its
// HTML through the remote sanitizer, its visibility from its addressing.
// The object must be attributed to the actor.
func (p *Processor) remotePost(actor *murlog.RemoteActor, o *activitypub.Object) (*murlog.RemotePost, error) {
	return federation.RemotePostOf(p.d.Site, actor, o, p.d.Now())
}

// now is the processor's clock in UTC.
func (p *Processor) now() time.Time { return p.d.Now().UTC() }
