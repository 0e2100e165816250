package queue

import (
	"context"
	"time"
)

// Engine is what a queue adapter implements: storage only. It stores
// prepared jobs, claims them and records outcomes it is told; it decides
// nothing. Validation, trace headers, the retry→dead decision, backoff and
// metrics are the same for every engine and live in Managed, which turns
// an Engine into a Queue. queuetest.RunEngine proves an engine against
// that shared behaviour.
type Engine interface {
	// Insert stores prepared jobs atomically, skipping ids that exist, and
	// returns how many it inserted per topic.
	Insert(ctx context.Context, jobs []Job) (map[string]int, error)
	// Claim marks up to max runnable jobs (on topics, all when empty)
	// running with their attempt incremented and a lease of lease from
	// now, and returns them in claim order (priority, then age); none when
	// nothing is runnable. It never blocks, and two claims never return
	// the same job.
	Claim(ctx context.Context, topics []string, max int, lease time.Duration) ([]*Job, error)
	// Extend renews the leases of claimed jobs to lease from now. Like a
	// settlement it is fenced by Job.ID and Job.Attempt: held reports, per
	// job, whether it was still running under that attempt (false: it was
	// recovered, claimed again or finished). A lease that ran out may be
	// renewed while nobody recovered its job, or not; the caller treats
	// false as lost either way.
	Extend(ctx context.Context, jobs []*Job, lease time.Duration) (held []bool, err error)
	// Settle records outcomes. A settlement applies only while its job is
	// still running under the same attempt (Job.ID and Job.Attempt fence
	// out a late worker whose job was recovered and claimed again);
	// applied reports, per settlement, whether it did.
	Settle(ctx context.Context, ss []Settlement) (applied []bool, err error)
	// Woken receives after jobs were inserted in this process (nil when
	// the engine cannot tell): a blocked Dequeue then claims at once.
	Woken() <-chan struct{}
	// HealthCheck reports whether the engine can be used.
	HealthCheck(ctx context.Context) error
	// Provider names the adapter ("sqlite", "redis", …).
	Provider() string
}

// Settlement is an outcome for an Engine to record, already decided.
type Settlement struct {
	Job *Job // ID and Attempt fence the write
	// Status is what to record: Success (done), Retry (runnable again
	// after Delay, the attempt counted), Dead (a dead letter) or Released
	// (runnable at once, the attempt not counted).
	Status Status
	Delay  time.Duration
	Reason string // the job's last error ("" for none)
}

// EngineInspector is the inspection an engine answers: Inspector without
// RecoverExpired, which Managed builds from Expired and Settle so that
// abandoned jobs follow their topic's policy like any failure.
type EngineInspector interface {
	Counts(ctx context.Context) ([]Count, error)
	Runnable(ctx context.Context) (int, error)
	List(ctx context.Context, q ListQuery) ([]*Info, error)
	Retry(ctx context.Context, id string) error
	Dismiss(ctx context.Context, id string) error
	Cleanup(ctx context.Context, before time.Time) (int, error)
	// Expired returns up to limit running jobs whose lease ran out before
	// now (ID, Topic, Attempt and MaxAttempts are enough; payloads may be
	// left out).
	Expired(ctx context.Context, limit int) ([]*Job, error)
}

// Counters stores metric deltas (Sample values added to the stored
// totals). Managed counts through it; an engine that keeps its own
// counters implements it.
type Counters interface {
	Count(ctx context.Context, deltas []Sample) error
}
