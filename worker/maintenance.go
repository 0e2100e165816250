package worker

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/murlog/murlog/queue"
)

// Maintenance topics.
const (
	TopicCleanup = "queue.cleanup" // delete done jobs past retention, return free pages
	TopicVacuum  = "queue.vacuum"  // return free pages only
	TopicNoop    = "queue.noop"    // does nothing: health checks and tests
)

// cleanupNS namespaces the deterministic ids of scheduled maintenance.
var cleanupNS = uuid.MustParse("6f1d3c2e-9b1a-4c55-8f3e-4d2b7a9e0c11")

// CleanupJob returns the clean-up job for the hour of t. Its id is derived
// from the hour, so every worker that schedules it in that hour enqueues
// the same job once.
func CleanupJob(t time.Time) queue.Job {
	j := queue.NewJob(TopicCleanup, []byte("{}"))
	j.ID = uuid.NewSHA1(cleanupNS, []byte(TopicCleanup+"/"+t.UTC().Format("2006-01-02T15"))).String()
	j.Priority = 9
	return j
}

// Vacuumer returns free pages to the file system.
type Vacuumer interface {
	IncrementalVacuum(ctx context.Context) error
}

// RegisterMaintenance registers the maintenance handlers: clean-up deletes
// done jobs older than queue.CompletedRetention (and vacuums), vacuum only
// vacuums, noop does nothing.
func RegisterMaintenance(r *Registry, in queue.Inspector, v Vacuumer, now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	r.Handle(TopicCleanup, func(ctx context.Context, _ *queue.Job) error {
		_, err := in.Cleanup(ctx, now().Add(-queue.CompletedRetention))
		return err
	})
	r.Handle(TopicVacuum, func(ctx context.Context, _ *queue.Job) error { return v.IncrementalVacuum(ctx) })
	r.Handle(TopicNoop, func(context.Context, *queue.Job) error { return nil })
}
