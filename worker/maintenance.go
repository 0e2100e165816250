package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/murlog/murlog/queue"
)

// Maintenance topics.
const (
	TopicCleanup = "queue.cleanup" // delete done jobs past retention, return free pages
	TopicVacuum  = "queue.vacuum"  // return free pages only
	TopicNoop    = "queue.noop"    // does nothing: health checks and tests
	// TopicSleep is a diagnostics job for operators: it sleeps, then
	// succeeds, fails or panics as its payload (SleepPayload) asks, so the
	// worker can be checked end to end on a new host — enqueue one and
	// watch it finish, retry or land in the dead letters.
	TopicSleep = "queue.sleep"
)

// SleepPayload is the payload of queue.sleep. An empty payload is {}.
type SleepPayload struct {
	MS    int  `json:"ms"`    // how long to sleep: 0 … MaxSleep in milliseconds
	Fail  bool `json:"fail"`  // then fail (retried by the default policy)
	Panic bool `json:"panic"` // then panic (the worker recovers; retried likewise)
}

// MaxSleep bounds a queue.sleep job; a longer one goes to the dead letters
// unrun.
const MaxSleep = 10 * time.Second

// runSleep runs a queue.sleep job: it waits p.MS milliseconds (or until ctx
// ends), then does what the payload asks.
func runSleep(ctx context.Context, j *queue.Job) error {
	var p SleepPayload
	if len(j.Payload) > 0 {
		if err := json.Unmarshal(j.Payload, &p); err != nil {
			return queue.Permanent(fmt.Errorf("payload of %s does not decode: %w", TopicSleep, err))
		}
	}
	if p.MS < 0 || p.MS > int(MaxSleep/time.Millisecond) {
		return queue.Permanent(fmt.Errorf("%s: ms must be 0–%d, not %d", TopicSleep, MaxSleep/time.Millisecond, p.MS))
	}
	t := time.NewTimer(time.Duration(p.MS) * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	switch {
	case p.Panic:
		panic(TopicSleep + ": panic requested by the payload")
	case p.Fail:
		return errors.New(TopicSleep + ": failure requested by the payload")
	}
	return nil
}

// cleanupNS namespaces the deterministic ids of scheduled maintenance.
var cleanupNS = uuid.MustParse("6f1d3c2e-9b1a-4c55-8f3e-4d2b7a9e0c11")

// CleanupJob returns the clean-up job for the hour of t. Its id is derived
// from the hour, so every worker that schedules it in that hour enqueues
// the same job once.
func CleanupJob(t time.Time) queue.Job {
	return queue.OncePer(queue.Hourly, cleanupNS, t, queue.NewJob(TopicCleanup, []byte("{}")))
}

// Vacuumer returns free pages to the file system.
type Vacuumer interface {
	IncrementalVacuum(ctx context.Context) error
}

// maintenancePolicy retries a failed clean-up or vacuum a few times; the
// next hour schedules a fresh one anyway.
var maintenancePolicy = queue.Policy{MaxAttempts: 3, Backoff: queue.DefaultPolicy.Backoff, Timeout: queue.DefaultTimeout}

// RegisterMaintenance registers the maintenance handlers with their
// policies: clean-up deletes done jobs older than queue.CompletedRetention
// (and vacuums), vacuum only vacuums, noop does nothing, sleep is the
// diagnostics job (see TopicSleep; retried by queue.DefaultPolicy). v is
// optional: an engine with no free pages to give back passes nil.
func RegisterMaintenance(r *Registry, in queue.Inspector, v Vacuumer, now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	r.Handle(TopicCleanup, func(ctx context.Context, _ *queue.Job) error {
		_, err := in.Cleanup(ctx, now().Add(-queue.CompletedRetention))
		return err
	}, maintenancePolicy)
	r.Handle(TopicVacuum, func(ctx context.Context, _ *queue.Job) error {
		if v == nil {
			return nil // an engine that keeps no free pages to give back
		}
		return v.IncrementalVacuum(ctx)
	}, maintenancePolicy)
	r.Handle(TopicNoop, func(context.Context, *queue.Job) error { return nil }, queue.DefaultPolicy)
	r.Handle(TopicSleep, runSleep, queue.DefaultPolicy)
}
