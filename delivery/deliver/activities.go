package deliver

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

// The one-recipient jobs: each reads what it is about, returns nil when
// that is gone (nothing to send), builds the activity with the federation
// builders and sends it.

// deliverNote is deliver_note: a post's Create or Update to one inbox,
// recorded in the post's Deliveries.
func (h *handlers) deliverNote(ctx context.Context, pl delivery.NotePayload, j *queue.Job) error {
	var (
		post *murlog.Post
		p    *murlog.Persona
	)
	err := h.view(ctx, func(tx store.Tx) error {
		var err error
		if post, err = livePost(tx, pl.PostID, pl.Activity, pl.Version); err != nil {
			return err
		}
		p, err = persona(tx, post.PersonaID)
		return err
	})
	if err != nil {
		return done(err)
	}
	site, err := h.settings.Get(ctx)
	if err != nil {
		return err
	}
	o := federation.OptionsOf(post, site.AllowQuotes)
	key := post.ID + "\n" + pl.Activity + "\n" + strconv.FormatInt(post.UpdatedAt.UnixNano(), 10) + "\n" +
		p.UpdatedAt.String() + "\n" + strconv.FormatBool(o.NoQuotes)
	body, err := h.docs.get(key, func() ([]byte, error) {
		if pl.Activity == delivery.ActivityUpdate {
			return activitypub.Marshal(federation.UpdateActivity(h.d.Site, p, post, o))
		}
		return activitypub.Marshal(federation.CreateActivity(h.d.Site, p, post, o))
	})
	if err != nil {
		return err
	}
	return h.send(ctx, p, pl.Inbox, body, record{key: post.ID, last: j.Attempt >= queue.DeliveryPolicy.MaxAttemptsOf(j)})
}

// deliverDeleteNote is deliver_delete_note: a post's Delete to one inbox.
func (h *handlers) deliverDeleteNote(ctx context.Context, pl delivery.DeleteNotePayload, _ *queue.Job) error {
	var (
		p  *murlog.Persona
		ts *murlog.Tombstone
	)
	err := h.view(ctx, func(tx store.Tx) error {
		var err error
		if p, err = persona(tx, pl.PersonaID); err != nil {
			return err
		}
		ts, err = tx.Tombstones().Get(pl.PostID)
		if murlog.ErrorCode(err) == murlog.ENotFound {
			ts, err = &murlog.Tombstone{}, nil
		}
		return err
	})
	if err != nil {
		return done(err)
	}
	body, err := h.docs.get("delete\n"+pl.PostID+"\n"+p.ID, func() ([]byte, error) {
		return activitypub.Marshal(federation.DeleteActivity(h.d.Site, p, pl.PostID, ts.DeletedAt))
	})
	if err != nil {
		return err
	}
	return h.send(ctx, p, pl.Inbox, body, record{})
}

// deliverUpdate is deliver_update: the Update of the persona's profile
// to one inbox; skipped when the profile changed again since.
func (h *handlers) deliverUpdate(ctx context.Context, pl delivery.ActorUpdatePayload, _ *queue.Job) error {
	var p *murlog.Persona
	err := h.view(ctx, func(tx store.Tx) error {
		var err error
		if p, err = persona(tx, pl.PersonaID); err == nil && delivery.Version(p.UpdatedAt) != pl.Version {
			err = errGone
		}
		return err
	})
	if err != nil {
		return done(err)
	}
	body, err := h.docs.get("actor\n"+p.ID+"\n"+pl.Version, func() ([]byte, error) {
		return activitypub.Marshal(federation.UpdateActorActivity(h.d.Site, p))
	})
	if err != nil {
		return err
	}
	return h.send(ctx, p, pl.Inbox, body, record{})
}

// deliverAnnounce is deliver_announce: a boost, or its Undo, to one inbox.
func (h *handlers) deliverAnnounce(ctx context.Context, pl delivery.AnnounceDeliveryPayload, _ *queue.Job) error {
	var (
		p      *murlog.Persona
		author string
		// Zero for an Announce embedded in its Undo: its row is gone,
		// and servers match it by id.
		published time.Time
	)
	err := h.view(ctx, func(tx store.Tx) error {
		var err error
		if p, err = persona(tx, pl.PersonaID); err != nil {
			return err
		}
		if pl.UndoID == "" {
			i, err := tx.Interactions().GetByActivity(pl.ActivityID)
			if murlog.ErrorCode(err) == murlog.ENotFound {
				return errGone
			}
			if err != nil {
				return err
			}
			published = i.CreatedAt
		}
		author, err = authorOf(tx, pl.Object)
		return err
	})
	if err != nil {
		return done(err)
	}
	body, err := h.docs.get("announce\n"+pl.ActivityID+"\n"+pl.UndoID, func() ([]byte, error) {
		a := federation.AnnounceActivity(h.d.Site, p, pl.ActivityID, pl.Object, author, published)
		if pl.UndoID != "" {
			a = federation.UndoActivity(h.d.Site, p, pl.UndoID, a)
		}
		return activitypub.Marshal(a)
	})
	if err != nil {
		return err
	}
	return h.send(ctx, p, pl.Inbox, body, record{})
}

// authorOf is the cached author's id of the remote object uri, "" when
// it is not cached.
func authorOf(tx store.Tx, uri string) (string, error) {
	rp, err := tx.RemotePosts().GetByURI(uri)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	a, err := tx.RemoteActors().Get(rp.ActorID)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return a.URI, nil
}

// activity returns the handler of one of the one-recipient delivery.ActivityPayload
// topics. Undo activities embed the original activity with its own id.
func (h *handlers) activity(topic string) func(context.Context, delivery.ActivityPayload, *queue.Job) error {
	return func(ctx context.Context, pl delivery.ActivityPayload, _ *queue.Job) error {
		if pl.Inbox == "" {
			return queue.Permanent(fmt.Errorf("%s: no inbox", topic))
		}
		var p *murlog.Persona
		err := h.view(ctx, func(tx store.Tx) error {
			var err error
			if p, err = persona(tx, pl.PersonaID); err != nil {
				return err
			}
			return stillWanted(tx, topic, p, pl)
		})
		if err != nil {
			return done(err)
		}
		a, err := h.build(topic, p, pl)
		if err != nil {
			return err
		}
		body, err := activitypub.Marshal(a)
		if err != nil {
			return err
		}
		return h.send(ctx, p, pl.Inbox, body, record{})
	}
}

// build makes the activity of topic for pl.
func (h *handlers) build(topic string, p *murlog.Persona, pl delivery.ActivityPayload) (*activitypub.Activity, error) {
	site := h.d.Site
	switch topic {
	case delivery.TopicAcceptFollow:
		return federation.AcceptActivity(site, p, pl.UndoID, pl.ActivityID, pl.Actor), nil
	case delivery.TopicRejectFollow:
		return federation.RejectActivity(site, p, pl.UndoID, pl.ActivityID, pl.Actor), nil
	case delivery.TopicSendFollow:
		return federation.FollowActivity(site, p, pl.ActivityID, pl.Object), nil
	case delivery.TopicSendUndoFollow:
		return federation.UndoActivity(site, p, pl.UndoID, federation.FollowActivity(site, p, pl.ActivityID, pl.Object)), nil
	case delivery.TopicSendLike, delivery.TopicSendUndoLike:
		like := federation.LikeActivity(site, p, pl.ActivityID, pl.Object, pl.Actor)
		like.Content = pl.Content
		if topic == delivery.TopicSendUndoLike {
			return federation.UndoActivity(site, p, pl.UndoID, like), nil
		}
		return like, nil
	case delivery.TopicSendBlock:
		return federation.BlockActivity(site, p, pl.ActivityID, pl.Object), nil
	case delivery.TopicSendUndoBlock:
		return federation.UndoActivity(site, p, pl.UndoID, federation.BlockActivity(site, p, pl.ActivityID, pl.Object)), nil
	}
	return nil, queue.Permanent(fmt.Errorf("delivery: no activity for topic %s", topic))
}

// stillWanted reports errGone when what an activity announces was undone
// before it was sent: a follow withdrawn, a follower removed before its
// Accept went out, a like withdrawn, a block lifted. Their own Undo or
// Reject follows, and sending both would only confuse the remote side.
// Undo, Reject and the rest are always sent.
func stillWanted(tx store.Tx, topic string, p *murlog.Persona, pl delivery.ActivityPayload) error {
	var err error
	switch topic {
	case delivery.TopicSendFollow:
		_, err = tx.Follows().GetByActivity(pl.ActivityID)
	case delivery.TopicAcceptFollow:
		var f *murlog.Follower
		if f, err = tx.Followers().GetByActivity(pl.ActivityID); err == nil && f.State != murlog.FollowAccepted {
			return errGone
		}
	case delivery.TopicSendLike:
		_, err = tx.Interactions().GetByActivity(pl.ActivityID)
	case delivery.TopicSendBlock:
		var a *murlog.RemoteActor
		if a, err = tx.RemoteActors().GetByURI(pl.Actor); err == nil {
			var b *murlog.Block
			if b, err = tx.Blocks().Get(p.ID, a.ID); err == nil && b.ActivityURI != pl.ActivityID {
				return errGone
			}
		}
	}
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return errGone
	}
	return err
}
