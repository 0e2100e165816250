package social

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/worker"
)

// TopicPrune is the maintenance job that forgets remote actors and posts
// nobody local cares about.
const TopicPrune = "social.prune"

// DefaultPruneAge is how long an untouched remote post or actor is kept.
const DefaultPruneAge = 30 * 24 * time.Hour

// PruneBatch is how many rows one prune transaction deletes, so a run
// never holds the write lock for long.
const PruneBatch = 500

// PrunePayload is the payload of social.prune.
type PrunePayload struct {
	// AgeSeconds overrides DefaultPruneAge when positive.
	AgeSeconds int64 `json:"age_seconds,omitempty"`
}

// PruneJob is a social.prune job for age (0 for the default).
func PruneJob(age time.Duration) queue.Job {
	b, _ := json.Marshal(PrunePayload{AgeSeconds: int64(age / time.Second)}) // cannot fail: one integer
	return queue.NewJob(TopicPrune, b)
}

// pruneNS namespaces the ids of the daily prune.
var pruneNS = uuid.MustParse("c2a7e9d4-1f3b-4e8a-9c6d-0b5e7f2a4d13")

// DailyPrune is the prune of the day of t at the default age, with an id
// derived from the day: the worker's periodic schedule (worker.Options.
// Periodic) enqueues it every hour and the queue keeps one per day.
func DailyPrune(t time.Time) queue.Job {
	return queue.OncePer(queue.Daily, pruneNS, t, PruneJob(0))
}

// RegisterJobs registers the social jobs. Pruning needs only the store.
func RegisterJobs(r *worker.Registry, st store.Store) {
	worker.Register(r, TopicPrune, queue.DefaultPolicy, func(ctx context.Context, p PrunePayload, _ *queue.Job) error {
		_, _, err := Prune(ctx, st, time.Duration(p.AgeSeconds)*time.Second)
		return err
	})
}

// Prune deletes remote posts received more than age ago (DefaultPruneAge
// when 0) that nobody local interacted with — liked, boosted, replied to,
// quoted, was mentioned in — then the remote actors left with nothing
// that ties them to a persona (follows either way, blocks, interactions
// with local posts, recent notifications, cached posts). Each batch of
// PruneBatch rows is its own transaction. It returns how many went.
func Prune(ctx context.Context, st store.Store, age time.Duration) (actors, posts int, err error) {
	if age < 0 {
		return 0, 0, murlog.Invalid("age", "must not be negative")
	}
	if age == 0 {
		age = DefaultPruneAge
	}
	var before time.Time
	for {
		var n int
		err := st.Update(ctx, func(tx store.Tx) (err error) {
			if before.IsZero() {
				before = tx.Now().Add(-age)
			}
			n, err = tx.RemotePosts().Prune(before, PruneBatch)
			return err
		})
		if err != nil {
			return actors, posts, err
		}
		posts += n
		if n < PruneBatch {
			break
		}
	}
	for {
		var n int
		err := st.Update(ctx, func(tx store.Tx) (err error) { n, err = tx.RemoteActors().Prune(before, PruneBatch); return err })
		if err != nil {
			return actors, posts, err
		}
		actors += n
		if n < PruneBatch {
			return actors, posts, nil
		}
	}
}

// Prune runs Prune on the service's store.
func (s *Service) Prune(ctx context.Context, age time.Duration) (actors, posts int, err error) {
	return Prune(ctx, s.store, age)
}
