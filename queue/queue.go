// Package queue is the job queue port. Every side effect murlog performs
// outside a request — federation deliveries, artifact rebuilds, scheduled
// publishing, clean-up — is a Job on a topic. Producers and workers use
// Queue. Adapters implement Engine, storage only: the embedded SQLite
// queue (store/sqlite, the default, in the same database file so a write
// and the jobs it causes commit together), and engines on Redis, RabbitMQ
// or NATS added later without touching producers or handlers. Managed
// turns an Engine into a Queue with what every queue does the same way:
// validation, trace headers, retries by each topic's Policy, metrics.
//
// Delivery is at least once. Job.ID (a UUIDv7 chosen by the producer) is
// the idempotency key: enqueueing an ID that exists is a no-op, and
// handlers must tolerate running twice. A claim holds its job for a lease
// (DefaultLease) that the worker renews while the job runs; a job whose
// lease runs out is recovered and claimed again, so a crashed worker's
// jobs wait about a lease, and the runs repeated after a crash are the
// jobs it held.
package queue

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/murlog/murlog"
)

// Job is one unit of work.
type Job struct {
	ID       string // UUIDv7; the idempotency key. NewJob fills it.
	Topic    string // see ValidTopic
	Payload  []byte // JSON
	Priority int    // 0 (high) … 9 (low); DefaultPriority when built by NewJob
	// RunAt is when the job becomes runnable; zero means now. Delay, when
	// set, is added to the enqueue time instead.
	RunAt time.Time
	Delay time.Duration
	// Attempt counts the runs started so far: 1 during the first run.
	Attempt int
	// MaxAttempts bounds the runs; 0 takes the topic's policy.
	MaxAttempts int
	// Headers carry metadata across the queue, notably the W3C
	// "traceparent" of the request that caused the job.
	Headers    map[string]string
	EnqueuedAt time.Time
	// LastError is why the previous attempt failed ("" for none).
	LastError string
}

// DefaultPriority is the middle of the 0–9 range.
const DefaultPriority = 5

// Limits on what a job may carry. Larger payloads belong in the database,
// with the job carrying their id.
const (
	MaxPayload = 64 << 10
	MaxTopic   = 100
	MaxBatch   = 1000 // jobs in one EnqueueBatch
)

// NewJob returns a job with a fresh id and the default priority.
func NewJob(topic string, payload []byte) Job {
	return Job{ID: murlog.NewID(), Topic: topic, Payload: payload, Priority: DefaultPriority}
}

// Status is the outcome of one run.
type Status int

const (
	Success Status = iota // done
	Retry                 // failed; run again after the topic's backoff, or dead after its last attempt
	Dead                  // failed for good; kept as a dead letter
	// Released hands a claimed job back unrun (a worker shutting down
	// before starting it): pending again, the attempt not counted.
	Released
)

func (s Status) String() string {
	switch s {
	case Success:
		return "success"
	case Retry:
		return "retry"
	case Dead:
		return "dead"
	case Released:
		return "released"
	}
	return "unknown"
}

// Result is what a worker reports for a job.
type Result struct {
	Status   Status
	Err      error         // why it failed; recorded as the job's last error
	Duration time.Duration // how long the run took, for the duration histogram
}

// Ack pairs a job with its result, for AckBatch.
type Ack struct {
	Job    *Job
	Result Result
}

// Queue is the port.
type Queue interface {
	// Enqueue adds a job. An existing ID is left as it is (no error).
	Enqueue(ctx context.Context, job Job) error
	// EnqueueBatch adds up to MaxBatch jobs atomically.
	EnqueueBatch(ctx context.Context, jobs []Job) error
	// Dequeue blocks until a runnable job on one of topics (all topics
	// when empty) is claimed, or ctx ends.
	Dequeue(ctx context.Context, topics []string) (*Job, error)
	// DequeueBatch claims up to max runnable jobs without blocking; it
	// returns none when nothing is runnable.
	DequeueBatch(ctx context.Context, topics []string, max int) ([]*Job, error)
	// Renew extends the leases of claimed jobs by the queue's Lease from
	// now. held reports, per job, whether the claim is still this one's:
	// false means its lease ran out and the job was (or may be) handed to
	// another worker — stop working on it and do not ack it.
	Renew(ctx context.Context, jobs []*Job) (held []bool, err error)
	// Lease is how long a claim holds a job unless renewed; workers renew
	// every RenewEvery(Lease()).
	Lease() time.Duration
	// Ack records the outcome of a claimed job.
	Ack(ctx context.Context, job *Job, r Result) error
	// AckBatch records many outcomes at once (one transaction where the
	// adapter can); workers batch completions for throughput.
	AckBatch(ctx context.Context, acks []Ack) error
	// HealthCheck reports whether the queue can be used.
	HealthCheck(ctx context.Context) error
	// Provider names the adapter ("sqlite", "redis", …) for logs and metrics.
	Provider() string
}

// DeadTopic is where dead letters of topic are addressed: "<topic>.dead".
func DeadTopic(topic string) string { return topic + deadSuffix }

const deadSuffix = ".dead"

// ValidTopic checks the topic naming convention: lower-case words of
// letters, digits and underscores joined by dots ("post.publish",
// "queue.cleanup"), at most MaxTopic characters, not ending in ".dead".
func ValidTopic(t string) error {
	if t == "" || len(t) > MaxTopic {
		return murlog.Invalid("topic", "must be 1–%d characters", MaxTopic)
	}
	if strings.HasSuffix(t, deadSuffix) {
		return murlog.Invalid("topic", "%q names a dead-letter topic", t)
	}
	for _, w := range strings.Split(t, ".") {
		if w == "" {
			return murlog.Invalid("topic", "%q has an empty word", t)
		}
		for _, c := range w {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
				return murlog.Invalid("topic", "%q: use lower-case letters, digits, '_' and '.'", t)
			}
		}
	}
	return nil
}

// Validate checks a job before it is enqueued. Prepare calls it, so every
// queue and every transactional enqueue refuses the same things.
func (j *Job) Validate() error {
	if !murlog.ValidID(j.ID) {
		return murlog.Invalid("id", "job id must be a UUID string")
	}
	if err := ValidTopic(j.Topic); err != nil {
		return err
	}
	if len(j.Payload) > MaxPayload {
		return murlog.Invalid("payload", "is %d bytes; the limit is %d", len(j.Payload), MaxPayload)
	}
	if j.Priority < 0 || j.Priority > 9 {
		return murlog.Invalid("priority", "must be 0–9")
	}
	if j.MaxAttempts < 0 {
		return murlog.Invalid("max_attempts", "must not be negative")
	}
	if j.Delay < 0 {
		return murlog.Invalid("delay", "must not be negative")
	}
	return nil
}

// permanent marks an error that retrying cannot fix.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// Permanent wraps err so the worker sends the job to the dead letters at
// once instead of retrying (e.g. the post it delivers was deleted).
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanent{err}
}

// retryAfter asks for a retry no sooner than after.
type retryAfter struct {
	err   error
	after time.Duration
}

func (r retryAfter) Error() string { return r.err.Error() }
func (r retryAfter) Unwrap() error { return r.err }

// MaxRetryAfter bounds the wait a RetryAfter may ask for: a remote's
// Retry-After of a week must not park a job for a week.
const MaxRetryAfter = time.Hour

// RetryAfter wraps err so that, when the job is retried, its next run
// waits at least after (a remote server's Retry-After), and never less
// than its policy's backoff; at most MaxRetryAfter. It does not add an
// attempt: a job on its last attempt still goes dead.
func RetryAfter(err error, after time.Duration) error {
	if err == nil || after <= 0 {
		return err
	}
	return retryAfter{err, min(after, MaxRetryAfter)}
}

// IsPermanent reports whether err was wrapped by Permanent.
func IsPermanent(err error) bool {
	var p permanent
	return errors.As(err, &p)
}

// PollDequeue implements a blocking Dequeue over a non-blocking claim: it
// claims one job with claim, and otherwise waits for wake (jobs enqueued
// in this process), poll (jobs from elsewhere, or coming due) or ctx.
// Adapters whose engine cannot block on a claim share it.
func PollDequeue(ctx context.Context, claim func(ctx context.Context, topics []string, max int) ([]*Job, error),
	topics []string, wake <-chan struct{}, poll time.Duration) (*Job, error) {
	if poll <= 0 {
		poll = time.Second
	}
	timer := time.NewTimer(poll)
	defer timer.Stop()
	for {
		js, err := claim(ctx, topics, 1)
		if err != nil {
			return nil, err
		}
		if len(js) == 1 {
			return js[0], nil
		}
		timer.Reset(poll)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-wake:
		case <-timer.C:
		}
	}
}
