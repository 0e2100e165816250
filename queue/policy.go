package queue

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Policy says how a topic's jobs are retried. Each topic's policy is
// registered with its handler (worker.Registry.Handle), next to the domain
// the job serves; the queue only applies it. Zero fields take the
// defaults (see Policy.Normal).
type Policy struct {
	MaxAttempts int
	// Backoff returns the wait before the next run after the given
	// (1-based) attempt failed.
	Backoff func(attempt int) time.Duration
	// Timeout bounds one run.
	Timeout time.Duration
	// Concurrency caps how many jobs of the topic one worker runs at
	// once; 0 means no cap beyond the worker's own. Jobs bound by the
	// database's single writer (inbox processing) gain nothing from more
	// than one or two at once, and capping them leaves the CPU to the
	// requests being served and the slots to deliveries, which wait on
	// the network.
	Concurrency int
}

// Defaults.
const (
	DefaultMaxAttempts = 5
	DefaultTimeout     = 60 * time.Second
	maxBackoff         = 5 * time.Minute
)

// DeliveryPolicy is the shape for jobs that wait on remote servers (the
// federation's deliveries): 30 s → 2 m → 8 m → 32 m, five attempts over
// about 42 minutes, so a remote server's restart or a short outage is
// ridden out without hammering it.
var DeliveryPolicy = Policy{MaxAttempts: 5, Timeout: DefaultTimeout, Backoff: func(attempt int) time.Duration {
	d := 30 * time.Second
	for i := 1; i < attempt && d < 32*time.Minute; i++ {
		d *= 4
	}
	return d
}}

// DefaultPolicy retries after 1 s, doubling each time, capped at 5
// minutes. Topics registered without a policy, and topics nobody
// registered, use it.
var DefaultPolicy = Policy{MaxAttempts: DefaultMaxAttempts, Timeout: DefaultTimeout, Backoff: func(attempt int) time.Duration {
	d := time.Second
	for i := 1; i < attempt && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}}

// Normal returns p with its zero fields set from DefaultPolicy.
func (p Policy) Normal() Policy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultPolicy.MaxAttempts
	}
	if p.Backoff == nil {
		p.Backoff = DefaultPolicy.Backoff
	}
	if p.Timeout <= 0 {
		p.Timeout = DefaultPolicy.Timeout
	}
	return p
}

// Policies gives each topic's policy. worker.Registry implements it; nil
// means DefaultPolicy for every topic.
type Policies interface {
	Policy(topic string) Policy
}

// PolicyFunc adapts a function to Policies.
type PolicyFunc func(topic string) Policy

// Policy implements Policies.
func (f PolicyFunc) Policy(topic string) Policy { return f(topic).Normal() }

func policyOf(ps Policies, topic string) Policy {
	if ps == nil {
		return DefaultPolicy
	}
	return ps.Policy(topic)
}

// MaxAttemptsOf returns how many runs j gets: its own limit, or the policy's
// when it set none (0 is stored for "the topic's policy", so a changed
// policy applies to jobs already queued).
func (p Policy) MaxAttemptsOf(j *Job) int {
	if j.MaxAttempts > 0 {
		return j.MaxAttempts
	}
	if p.MaxAttempts > 0 {
		return p.MaxAttempts
	}
	return DefaultMaxAttempts
}

// Decide turns what a worker reports for a job into what the queue records:
// a failure to retry becomes a dead letter once the job has used its
// attempts, and otherwise is scheduled after the policy's backoff. Every
// queue applies this one rule (the worker uses it too, to log what will
// happen).
func Decide(j *Job, r Result, p Policy) Settlement {
	s := Settlement{Job: j, Status: r.Status, Reason: errText(r.Err)}
	if s.Status == Retry {
		if j.Attempt >= p.MaxAttemptsOf(j) {
			s.Status = Dead
		} else {
			s.Delay = p.Normal().Backoff(j.Attempt)
			var ra retryAfter
			if errors.As(r.Err, &ra) && ra.after > s.Delay {
				s.Delay = ra.after
			}
		}
	}
	return s
}

// MaxReason bounds the error text kept with a job.
const MaxReason = 2000

func errText(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	if len(s) > MaxReason {
		// Cut on a character boundary: the reason is shown as JSON text.
		s = strings.ToValidUTF8(s[:MaxReason], "")
	}
	return s
}

// staleSettlement decides what becomes of a job found running for too long
// (its worker died): runnable again with the attempt counted, or a dead
// letter when that was its last attempt.
func staleSettlement(j *Job, p Policy) Settlement {
	if j.Attempt >= p.MaxAttemptsOf(j) {
		return Settlement{Job: j, Status: Dead,
			Reason: fmt.Sprintf("abandoned: the worker stopped during its last attempt (%d)", j.Attempt)}
	}
	return Settlement{Job: j, Status: Retry, Reason: fmt.Sprintf("the worker stopped during attempt %d", j.Attempt)}
}
