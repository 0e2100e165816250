package queue

import (
	"context"
	"time"
)

// State is where a job is in its life.
type State string

const (
	StatePending   State = "pending"   // runnable now
	StateScheduled State = "scheduled" // waiting for RunAt (a delay or a retry's backoff)
	StateRunning   State = "running"   // claimed by a worker
	StateDone      State = "done"      // succeeded; kept CompletedRetention, then deleted
	StateDead      State = "dead"      // failed for good; kept until retried or dismissed
)

// Valid reports whether s is a known state.
func (s State) Valid() bool {
	switch s {
	case StatePending, StateScheduled, StateRunning, StateDone, StateDead:
		return true
	}
	return false
}

// CompletedRetention is how long done jobs are kept for inspection.
const CompletedRetention = 7 * 24 * time.Hour

// DefaultLease is how long a claim holds a job unless the worker renews
// it: a job whose worker died (killed by the host, out of memory) is
// claimable again about a minute later. Workers renew every RenewEvery of
// the lease, so a live worker keeps a job however long its handler runs.
const DefaultLease = time.Minute

// RenewEvery returns how often a worker renews the leases it holds: twice
// per lease, so one renewal may fail (a busy database) without the lease
// running out.
func RenewEvery(lease time.Duration) time.Duration { return lease / 2 }

// Info is a job as the owner inspects it.
type Info struct {
	Job
	State      State
	StartedAt  *time.Time
	FinishedAt *time.Time
	// LeaseUntil is when a running job's claim runs out unless renewed
	// (nil for a job that is not running).
	LeaseUntil *time.Time
}

// Count is the number of jobs of one topic in one state.
type Count struct {
	Topic string
	State State
	N     int
}

// ListQuery selects jobs for inspection, newest first.
type ListQuery struct {
	State  State  // "" for all
	Topic  string // "" for all
	Before string // cursor: the last id of the previous page
	Limit  int
}

// Inspector is what the owner's tools, metrics and the worker need beyond
// the queue itself. Managed implements it over an engine's EngineInspector;
// an engine without one answers every call with an unavailable error.
type Inspector interface {
	// Counts returns job counts by topic and state.
	Counts(ctx context.Context) ([]Count, error)
	// Runnable counts pending jobs whose time has come (the adaptive
	// concurrency signal, and what makes a CGI request spawn a worker).
	Runnable(ctx context.Context) (int, error)
	List(ctx context.Context, q ListQuery) ([]*Info, error)
	// Retry makes a dead job pending again with a fresh attempt count.
	Retry(ctx context.Context, id string) error
	// Dismiss deletes a dead job.
	Dismiss(ctx context.Context, id string) error
	// RecoverExpired makes running jobs whose lease ran out runnable
	// again (their attempt stays counted; past MaxAttempts they go dead):
	// their worker died or lost touch with the queue.
	RecoverExpired(ctx context.Context) (int, error)
	// Cleanup deletes done jobs finished before the cutoff.
	Cleanup(ctx context.Context, before time.Time) (int, error)
}

// Sample is one stored metric: a counter, a histogram bucket (Label is its
// upper bound "le"), a histogram sum, or a gauge.
type Sample struct {
	Name, Topic, Label string
	Value              float64
}

// DurationBuckets are the upper bounds (seconds) of the job duration
// histogram, queue_duration_seconds.
var DurationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}
