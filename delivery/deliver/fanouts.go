package deliver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/fanout"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

// The fan-outs. Each walks the distinct delivery inboxes of the persona's
// accepted followers (a shared inbox stands for all its server's
// followers) merged with the payload's or the post's own recipients, in
// string order, so a recipient that is both is one job. Recipients are
// keyed by inbox URL: fanout.JobID(parent job id, inbox) makes a second
// run of a fan-out enqueue nothing new.

// deliverPost is deliver_post: the Create (or Update) of a post to its
// audience. Public, unlisted and followers-only posts go to the followers,
// the mentioned actors and the parent's author; a direct post only to the
// mentioned actors' own inboxes. Each page's pending Deliveries rows (and
// skipped ones, for dead domains) commit with its jobs.
func (h *handlers) deliverPost(ctx context.Context, pl delivery.PostPayload, job *queue.Job) error {
	var (
		post   *murlog.Post
		extras []string
	)
	err := h.view(ctx, func(tx store.Tx) error {
		var err error
		if post, err = livePost(tx, pl.PostID, pl.Activity, pl.Version); err != nil {
			return err
		}
		extras, err = h.postRecipients(tx, post)
		return err
	})
	if err != nil {
		return done(err)
	}
	var followers pager
	if post.Visibility != murlog.VisibilityDirect {
		followers = h.followerInboxes(post.PersonaID)
	}
	return h.fan(ctx, job, merged(followers, extras), func(inbox string) queue.Job {
		return child(delivery.TopicDeliverNote, delivery.NotePayload{PostID: pl.PostID, Activity: pl.Activity, Version: pl.Version, Inbox: inbox})
	}, func(tx store.Tx, sent, skipped []fanout.Recipient) error {
		now := tx.Now()
		if err := tx.Deliveries().Add(post.ID, now, inboxes(sent)...); err != nil {
			return err
		}
		for _, r := range skipped {
			if err := tx.Deliveries().Set(post.ID, r.Inbox, murlog.DeliverySkipped, "", now); err != nil {
				return err
			}
		}
		return nil
	})
}

// livePost reads the post a post delivery is about and reports errGone
// when there is nothing to deliver any more: the post was deleted, is no
// longer published or is a page now, or (for an Update) was edited
// again, whose own job carries the newer version.
func livePost(tx store.Tx, id, activity, version string) (*murlog.Post, error) {
	if !murlog.ValidID(id) {
		return nil, queue.Permanent(fmt.Errorf("post_id %q is not a valid id", id))
	}
	if activity != delivery.ActivityCreate && activity != delivery.ActivityUpdate {
		return nil, queue.Permanent(fmt.Errorf("activity %q is neither %s nor %s", activity, delivery.ActivityCreate, delivery.ActivityUpdate))
	}
	post, err := tx.Posts().Get(id)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil, errGone
	}
	if err != nil {
		return nil, err
	}
	if post.PublishedAt == nil || post.PublishedAt.After(tx.Now()) || post.Page {
		return nil, errGone // unpublished, or made a page (never federated)
	}
	if activity == delivery.ActivityUpdate && version != delivery.Version(post.UpdatedAt) {
		return nil, errGone
	}
	return post, nil
}

// postRecipients are the inboxes a post goes to beyond the followers:
// each mentioned actor's (its own inbox for a direct post, else its
// server's shared inbox when it has one, so it merges with the
// followers'), and the parent's author for a reply that is not direct.
func (h *handlers) postRecipients(tx store.Tx, post *murlog.Post) ([]string, error) {
	direct := post.Visibility == murlog.VisibilityDirect
	var out []string
	for _, m := range post.Mentions {
		a, err := tx.RemoteActors().GetByURI(m.URI)
		switch {
		case err == nil && direct:
			out = append(out, a.Inbox)
		case err == nil:
			out = append(out, a.DeliveryInbox())
		case murlog.ErrorCode(err) == murlog.ENotFound:
			out = append(out, m.Inbox)
		default:
			return nil, err
		}
	}
	if post.InReplyTo != "" && !direct {
		rp, err := tx.RemotePosts().GetByURI(post.InReplyTo)
		if err == nil {
			var a *murlog.RemoteActor
			if a, err = tx.RemoteActors().Get(rp.ActorID); err == nil {
				out = append(out, a.DeliveryInbox())
			}
		}
		if err != nil && murlog.ErrorCode(err) != murlog.ENotFound {
			return nil, err
		}
	}
	return out, nil
}

// deliverDelete is deliver_delete: the Delete of a post to the followers
// and the payload's inboxes (everyone else it went to), or to those
// inboxes alone for a direct post.
func (h *handlers) deliverDelete(ctx context.Context, pl delivery.DeletePayload, job *queue.Job) error {
	if err := h.view(ctx, func(tx store.Tx) error { _, err := persona(tx, pl.PersonaID); return err }); err != nil {
		return done(err)
	}
	var followers pager
	if !pl.OnlyInboxes {
		followers = h.followerInboxes(pl.PersonaID)
	}
	return h.fan(ctx, job, merged(followers, pl.Inboxes), func(inbox string) queue.Job {
		return child(delivery.TopicDeliverDeleteNote, delivery.DeleteNotePayload{PostID: pl.PostID, PersonaID: pl.PersonaID, Inbox: inbox})
	}, nil)
}

// updateActor is update_actor: the Update of the persona's profile to
// every follower's inbox. A payload older than the persona's profile is
// left to the newer edit's own job.
func (h *handlers) updateActor(ctx context.Context, pl delivery.ActorPayload, job *queue.Job) error {
	err := h.view(ctx, func(tx store.Tx) error {
		p, err := persona(tx, pl.PersonaID)
		if err == nil && delivery.Version(p.UpdatedAt) != pl.Version {
			err = errGone
		}
		return err
	})
	if err != nil {
		return done(err)
	}
	return h.fan(ctx, job, merged(h.followerInboxes(pl.PersonaID), nil), func(inbox string) queue.Job {
		return child(delivery.TopicDeliverUpdate, delivery.ActorUpdatePayload{PersonaID: pl.PersonaID, Version: pl.Version, Inbox: inbox})
	}, nil)
}

// sendAnnounce is send_announce and send_undo_announce: the boost (or
// its Undo) to the followers and the boosted post's author. A boost
// withdrawn before its fan-out ran is not sent (its Undo is).
func (h *handlers) sendAnnounce(ctx context.Context, pl delivery.AnnouncePayload, job *queue.Job) error {
	err := h.view(ctx, func(tx store.Tx) error {
		if _, err := persona(tx, pl.PersonaID); err != nil {
			return err
		}
		if pl.UndoID == "" {
			return boostExists(tx, pl.ActivityID)
		}
		return nil
	})
	if err != nil {
		return done(err)
	}
	var extras []string
	if pl.ObjectTo != "" {
		extras = []string{pl.ObjectTo}
	}
	return h.fan(ctx, job, merged(h.followerInboxes(pl.PersonaID), extras), func(inbox string) queue.Job {
		return child(delivery.TopicDeliverAnnounce, delivery.AnnounceDeliveryPayload{AnnouncePayload: pl, Inbox: inbox})
	}, nil)
}

// fan runs job's fan-out over pages: child makes each recipient's job
// from its inbox (fanout gives it its deterministic id), and onPage, when
// not nil, runs in each page's transaction.
func (h *handlers) fan(ctx context.Context, job *queue.Job, pages fanout.Pager, child func(inbox string) queue.Job,
	onPage func(tx store.Tx, sent, skipped []fanout.Recipient) error) error {
	st, err := fanout.Run(ctx, h.d.Store, pages, fanout.Options{Key: job.ID, PageSize: h.d.PageSize, Dead: h.dom.DeadSet,
		Build: func(r fanout.Recipient) (queue.Job, error) { return child(r.Inbox), nil }, OnPage: onPage})
	h.log.Info("fan-out", "topic", job.Topic, "key", job.ID, "recipients", st.Recipients, "enqueued", st.Enqueued,
		"skipped_dead", st.SkippedDead, "pages", st.Pages, "finished_before", st.Finished, "err", err)
	return err
}

// pager pages a sorted list of distinct inbox URLs.
type pager func(ctx context.Context, after string, limit int) ([]string, error)

// followerInboxes pages the persona's followers' delivery inboxes.
func (h *handlers) followerInboxes(personaID string) pager {
	return func(ctx context.Context, after string, limit int) ([]string, error) {
		var out []string
		err := h.view(ctx, func(tx store.Tx) error {
			var err error
			out, err = tx.Followers().Inboxes(personaID, after, limit)
			return err
		})
		return out, err
	}
}

// merged is the fan-out's recipients: the pages of base (nil for none)
// and extras merged in string order without duplicates. Both sides are
// sorted, so the first limit recipients after a cursor are among the
// first limit of each side.
func merged(base pager, extras []string) fanout.Pager {
	ex := make([]string, 0, len(extras))
	for _, e := range extras {
		if e != "" {
			ex = append(ex, e)
		}
	}
	sort.Strings(ex)
	ex = dedupe(ex)
	return func(ctx context.Context, after string, limit int) ([]fanout.Recipient, error) {
		var bs []string
		if base != nil {
			var err error
			if bs, err = base(ctx, after, limit); err != nil {
				return nil, err
			}
		}
		i := sort.SearchStrings(ex, after)
		if i < len(ex) && ex[i] == after {
			i++
		}
		es := ex[i:min(len(ex), i+limit)]
		out := make([]fanout.Recipient, 0, min(limit, len(bs)+len(es)))
		last := after
		for len(out) < limit && (len(bs) > 0 || len(es) > 0) {
			var next string
			switch {
			case len(es) == 0 || (len(bs) > 0 && bs[0] <= es[0]):
				next, bs = bs[0], bs[1:]
			default:
				next, es = es[0], es[1:]
			}
			if next == last || next == "" {
				continue
			}
			out = append(out, fanout.Recipient{ID: next, Inbox: next})
			last = next
		}
		return out, nil
	}
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func inboxes(rs []fanout.Recipient) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Inbox
	}
	return out
}

// boostExists reports errGone when the persona's Announce activityID was
// withdrawn.
func boostExists(tx store.Tx, activityID string) error {
	_, err := tx.Interactions().GetByActivity(activityID)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return errGone
	}
	return err
}

// child is a fan-out's job of topic for one recipient (fanout gives it
// its deterministic id).
func child(topic string, p any) queue.Job {
	b, err := json.Marshal(p)
	if err != nil {
		panic("deliver: payload of " + topic + " does not marshal: " + err.Error()) // strings only
	}
	return queue.NewJob(topic, b)
}
