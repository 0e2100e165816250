package post

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/worker"
)

// TopicPublish is the job that makes a scheduled post count as published
// when its time comes. It is where what a publication causes attaches:
// the federation delivery (deliver_post) is enqueued from its handler, in
// its transaction, and artifact rebuilds will be too.
const TopicPublish = "post.publish"

// PublishPayload is the payload of post.publish.
type PublishPayload struct {
	PostID string `json:"post_id"`
	// PublishedAt is the publication time the job was made for. A post
	// rescheduled since has another job; this one finds the time changed
	// and does nothing.
	PublishedAt time.Time `json:"published_at"`
}

// publishNS namespaces the ids of post.publish jobs.
var publishNS = uuid.MustParse("3b8e6f0a-2d4c-4e71-9a5b-c6d7e8f90a12")

// PublishJobID is the id of the publish job of post id at time at: the
// same schedule always gives the same id, so scheduling twice enqueues one
// job, and moving the post to another time gives a new one. Its first 48
// bits are at's milliseconds, as in a UUIDv7, so publish jobs sort with
// the queue's other jobs by when they are due.
func PublishJobID(id string, at time.Time) string {
	at = at.UTC().Truncate(time.Microsecond) // what the store keeps
	u := uuid.NewSHA1(publishNS, []byte(id+"\n"+at.Format(time.RFC3339Nano)))
	ms := uint64(at.UnixMilli())
	for i := 5; i >= 0; i-- {
		u[i], ms = byte(ms), ms>>8
	}
	return u.String()
}

// publishJob returns the job that publishes p at its published_at.
func publishJob(p *murlog.Post) queue.Job {
	// Cannot fail: an id and a time within 1970–9999 (validSchedule).
	b, _ := json.Marshal(PublishPayload{PostID: p.ID, PublishedAt: *p.PublishedAt})
	j := queue.NewJob(TopicPublish, b)
	j.ID, j.RunAt = PublishJobID(p.ID, *p.PublishedAt), *p.PublishedAt
	return j
}

// RegisterJobs registers the post jobs with the worker's registry. They
// need only the store.
func RegisterJobs(r *worker.Registry, st store.Store) {
	// Publishing is one local transaction: the default policy's quick
	// retries (1 s doubling) ride out a busy database or a worker whose
	// clock runs ahead.
	worker.Register(r, TopicPublish, queue.DefaultPolicy, func(ctx context.Context, p PublishPayload, _ *queue.Job) error {
		return publish(ctx, st, p)
	})
}

// publish runs post.publish. It checks for itself that the job is still
// wanted — the post exists and is still scheduled for the payload's time —
// because a job may run after the edit that cancelled it began, or twice,
// and it counts by recounting, so running twice cannot count twice.
func publish(ctx context.Context, st store.Store, p PublishPayload) error {
	if !murlog.ValidID(p.PostID) {
		return queue.Permanent(fmt.Errorf("%s: post_id %q is not a valid id", TopicPublish, p.PostID))
	}
	return st.Update(ctx, func(tx store.Tx) error {
		post, err := tx.Posts().Get(p.PostID)
		if murlog.ErrorCode(err) == murlog.ENotFound {
			return nil // deleted meanwhile
		}
		if err != nil {
			return err
		}
		if post.PublishedAt == nil || !post.PublishedAt.Equal(p.PublishedAt) {
			return nil // unscheduled or moved: another job, or none, is due
		}
		if post.PublishedAt.After(tx.Now()) {
			// Claimed early by a worker whose clock runs ahead of this
			// one's: try again shortly rather than count it too soon.
			return fmt.Errorf("%s: post %s is due at %s, not yet (now %s)", TopicPublish, post.ID,
				post.PublishedAt.Format(time.RFC3339), tx.Now().Format(time.RFC3339))
		}
		if _, err = tx.Personas().RecountPosts(post.PersonaID, tx.Now()); err != nil {
			return err
		}
		// Out now, with no write to the post itself: its pages and its
		// tags' are marked here, as a write would have marked them.
		marks := []string{"post/" + post.ID, "persona/" + post.PersonaID}
		for _, tag := range post.Tags {
			marks = append(marks, "tag/"+tag)
		}
		if err := tx.DirtyKeys().Mark(marks...); err != nil {
			return err
		}
		if post.Page {
			return nil // a page is never federated (see federate)
		}
		// Out now: deliver it. The job's id is the post's, so a second
		// run of this job enqueues nothing new.
		return tx.Jobs().Enqueue(delivery.PostJob(delivery.PostPayload{PostID: post.ID, Activity: delivery.ActivityCreate}))
	})
}
