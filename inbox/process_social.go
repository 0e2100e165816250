package inbox

import (
	"context"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/store"
)

// The activities between actors: follows and their answers, likes,
// blocks, and their Undos.

// follow handles a Follow of a persona. A Follow of a persona that does
// not exist is ignored; one from a blocked actor is answered with a
// Reject by the social service and acknowledged.
func (p *Processor) follow(ctx context.Context, a *activity) error {
	pe, err := p.localPersona(ctx, a.Object.Object.First().ID)
	if err != nil {
		return err
	}
	if pe == nil {
		return p.ignore(ctx, a, "the followed persona does not exist")
	}
	_, err = p.d.Social.Requested(ctx, pe.ID, a.actor.ID, a.ID)
	if murlog.ErrorCode(err) == murlog.EForbidden {
		p.log.InfoContext(ctx, "follow from a blocked actor rejected", "actor", a.actor.URI, "persona", pe.Username)
		return nil
	}
	return err
}

// answered handles an Accept or Reject of one of our Follows, named by
// its id or embedded. The Follow is found by its id; an embedded Follow
// whose id is unknown (a server that rewrote it) is matched, as Mastodon
// matches it, by the persona it names and the answering actor. Answers to
// anything but a Follow are ignored.
func (p *Processor) answered(ctx context.Context, a *activity) error {
	ref := a.Object.Object.First()
	embedded := ref.Object != nil && ref.Object.Type != ""
	if embedded && ref.Object.Type != "Follow" {
		return p.ignore(ctx, a, "answers a "+ref.Object.Type)
	}
	answer := p.d.Social.Accepted
	if a.Type == "Reject" {
		answer = p.d.Social.Rejected
	}
	if ref.ID != "" {
		if err := answer(ctx, a.actor.ID, social.FollowRef{ActivityURI: ref.ID}); !ignorable(err) {
			return err
		}
	}
	if embedded {
		pe, err := p.localPersona(ctx, ref.Object.Actor.ID)
		if err != nil {
			return err
		}
		if pe != nil {
			if err := answer(ctx, a.actor.ID, social.FollowRef{PersonaID: pe.ID}); !ignorable(err) {
				return err
			}
		}
	}
	return p.ignore(ctx, a, "answers no follow of ours")
}

// undo handles the Undo of a Follow, Like, Announce or Block. The undone
// activity is usually embedded (Mastodon, Misskey, GoToSocial do); when it
// is named only by id, it is looked up among what is stored.
func (p *Processor) undo(ctx context.Context, a *activity) error {
	ref := a.Object.Object.First()
	if ref.ID == "" {
		return murlog.Invalid("object", "missing")
	}
	inner := ref.Object
	if inner == nil || inner.Type == "" {
		kind, err := p.undoneKind(ctx, ref.ID)
		if err != nil {
			return err
		}
		inner = &activitypub.Object{ID: ref.ID, Type: kind}
	}
	if inner.Actor.ID != "" && inner.Actor.ID != a.actor.URI {
		return refuse("an Undo by %s of an activity by %s", a.actor.URI, inner.Actor.ID)
	}
	target := inner.Object.First().ID
	switch inner.Type {
	case "Follow":
		return p.undoFollow(ctx, a, inner.ID, target)
	case "Like", "EmojiReact":
		return p.undoInteraction(ctx, a, inner.ID, target, p.d.Social.Unliked)
	case "Announce":
		if target != "" {
			if post, _, err := p.localPost(ctx, target); err != nil {
				return err
			} else if post == nil {
				return p.d.Social.Unboosted(ctx, a.actor.ID, inner.ID)
			}
		}
		if err := p.undoInteraction(ctx, a, inner.ID, target, p.d.Social.Unannounced); err != nil {
			return err
		}
		return p.d.Social.Unboosted(ctx, a.actor.ID, inner.ID)
	case "Block":
		personaID := a.personaID
		if pe, err := p.localPersona(ctx, target); err != nil {
			return err
		} else if pe != nil {
			personaID = pe.ID
		}
		if personaID == "" {
			return p.ignore(ctx, a, "undoes a block of nobody here")
		}
		return p.d.Social.UnblockedBy(ctx, a.actor.ID, personaID)
	}
	return p.ignore(ctx, a, "undoes a "+inner.Type)
}

// undoneKind finds what the activity id undone by an Undo was: a Follow
// of a persona, a Like or an Announce of a local post, else an Announce
// of a remote post (Unboosted of an unknown boost changes nothing).
func (p *Processor) undoneKind(ctx context.Context, id string) (string, error) {
	kind := "Announce"
	err := p.d.Store.View(ctx, func(tx store.Tx) error {
		if _, err := tx.Followers().GetByActivity(id); err == nil {
			kind = "Follow"
			return nil
		} else if murlog.ErrorCode(err) != murlog.ENotFound {
			return err
		}
		i, err := tx.Interactions().GetByActivity(id)
		switch {
		case err == nil && i.Kind == murlog.InteractionLike:
			kind = "Like"
		case err != nil && murlog.ErrorCode(err) != murlog.ENotFound:
			return err
		}
		return nil
	})
	return kind, err
}

// undoFollow removes the actor's follow: by the Follow's id, else (a
// server that lost the id) by the persona followed.
func (p *Processor) undoFollow(ctx context.Context, a *activity, followID, target string) error {
	err := p.d.Social.Undone(ctx, a.actor.ID, followID)
	if !ignorable(err) {
		return err
	}
	pe, err := p.localPersona(ctx, target)
	if err != nil || pe == nil {
		if err == nil {
			err = p.ignore(ctx, a, "undoes an unknown follow")
		}
		return err
	}
	var f *murlog.Follower
	err = p.d.Store.View(ctx, func(tx store.Tx) (err error) { f, err = tx.Followers().GetByActor(pe.ID, a.actor.ID); return err })
	if ignorable(err) {
		return p.ignore(ctx, a, "undoes an unknown follow")
	}
	if err != nil {
		return err
	}
	return p.d.Social.Undone(ctx, a.actor.ID, f.ActivityURI)
}

// undoInteraction removes the actor's like or boost of a local post: by
// the activity's id when it is stored, else by the post.
func (p *Processor) undoInteraction(ctx context.Context, a *activity, id, target string, undo func(ctx context.Context, actorID, activityURI, postID string) error) error {
	var known bool
	if id != "" {
		err := p.d.Store.View(ctx, func(tx store.Tx) error {
			i, err := tx.Interactions().GetByActivity(id)
			known = err == nil && i.ActorID == a.actor.ID
			if ignorable(err) {
				return nil
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	if known {
		return undo(ctx, a.actor.ID, id, "")
	}
	post, _, err := p.localPost(ctx, target)
	if err != nil || post == nil {
		return err
	}
	return undo(ctx, a.actor.ID, "", post.ID)
}

// like handles a Like (or Misskey's and Pleroma's EmojiReact) of a local
// post, keeping Misskey's reaction (_misskey_reaction, or content).
// Likes of anything else are ignored: remote likes are not counted here.
func (p *Processor) like(ctx context.Context, a *activity) error {
	post, _, err := p.localPost(ctx, a.Object.Object.First().ID)
	if err != nil {
		return err
	}
	if post == nil {
		return p.ignore(ctx, a, "likes no local post")
	}
	err = p.d.Social.Liked(ctx, a.actor.ID, post.ID, a.ID, reaction(a.Object))
	if murlog.ErrorCode(err) == murlog.EForbidden {
		return p.ignore(ctx, a, "the actor is blocked")
	}
	if ignorable(err) {
		return p.ignore(ctx, a, "the post is not published")
	}
	return err
}

// reaction is a Like's emoji: one emoji or a :shortcode:, kept as text.
// Anything that could be markup, or is too long to be one emoji, is
// dropped and the like stays a plain like.
func reaction(o *activitypub.Object) string {
	r := o.MisskeyReaction
	if r == "" {
		r = o.Content
	}
	r = strings.TrimSpace(r)
	if len(r) > 128 || strings.ContainsAny(r, "<>&\"'\n") {
		return ""
	}
	return r
}

// block handles a Block of a persona: the follows both ways end and
// nothing of the persona is delivered to the actor any more.
func (p *Processor) block(ctx context.Context, a *activity) error {
	pe, err := p.localPersona(ctx, a.Object.Object.First().ID)
	if err != nil {
		return err
	}
	if pe == nil {
		return p.ignore(ctx, a, "blocks nobody here")
	}
	return p.d.Social.BlockedBy(ctx, a.actor.ID, pe.ID, a.ID)
}
