package inbox

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/worker"
)

// TopicPrune is the daily job that forgets old inbox items.
const TopicPrune = "inbox.prune"

// Retention is how long an accepted activity's id is kept to
// recognise a second delivery. Senders retry a failed delivery for a few
// days at most (Mastodon: about a week over its backoff), so a week holds
// every retry; a body still unprocessed after that is not coming back.
const Retention = 7 * 24 * time.Hour

var inboxPruneNS = uuid.MustParse("5d0c8f3e-9a41-4b6e-8f27-3c1e9b7a2d64")

// DailyPrune is the inbox prune of t's day, with an id derived from
// the day, for the worker's periodic schedule.
func DailyPrune(t time.Time) queue.Job {
	return queue.OncePer(queue.Daily, inboxPruneNS, t, queue.NewJob(TopicPrune, []byte("{}")))
}

// RegisterJobs registers the inbox's own jobs (inbox.process is the
// processing's): the prune needs only the store.
func RegisterJobs(r *worker.Registry, st store.Store) {
	r.Handle(TopicPrune, func(ctx context.Context, _ *queue.Job) error {
		return st.Update(ctx, func(tx store.Tx) error {
			_, err := tx.InboxItems().Prune(tx.Now().Add(-Retention))
			return err
		})
	}, queue.DefaultPolicy)
}
