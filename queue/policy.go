package queue

import (
	"strings"
	"time"
)

// Policy says how a topic's jobs are retried.
type Policy struct {
	MaxAttempts int
	// Backoff returns the wait before the next run after the given
	// (1-based) attempt failed.
	Backoff func(attempt int) time.Duration
	// Timeout bounds one run.
	Timeout time.Duration
}

// Defaults.
const (
	DefaultMaxAttempts = 5
	DefaultTimeout     = 60 * time.Second
	maxBackoff         = 5 * time.Minute
)

// DeliveryPolicy retries federation deliveries 30 s → 2 m → 8 m → 32 m:
// five attempts over about 42 minutes, so a remote server's restart or a
// short outage is ridden out without hammering it.
var DeliveryPolicy = Policy{MaxAttempts: 5, Timeout: DefaultTimeout, Backoff: func(attempt int) time.Duration {
	d := 30 * time.Second
	for i := 1; i < attempt && d < 32*time.Minute; i++ {
		d *= 4
	}
	return d
}}

// DefaultPolicy retries after 1 s, doubling each time, capped at 5 minutes.
var DefaultPolicy = Policy{MaxAttempts: DefaultMaxAttempts, Timeout: DefaultTimeout, Backoff: func(attempt int) time.Duration {
	d := time.Second
	for i := 1; i < attempt && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}}

// PolicyFor returns the policy of a topic: deliveries (deliver_*, send_*,
// accept_follow, reject_follow) use DeliveryPolicy, everything else
// DefaultPolicy.
func PolicyFor(topic string) Policy {
	if strings.HasPrefix(topic, "deliver_") || strings.HasPrefix(topic, "send_") ||
		topic == "accept_follow" || topic == "reject_follow" {
		return DeliveryPolicy
	}
	return DefaultPolicy
}

// MaxAttemptsOf returns the job's own limit or its topic's.
func MaxAttemptsOf(j *Job) int {
	if j.MaxAttempts > 0 {
		return j.MaxAttempts
	}
	return PolicyFor(j.Topic).MaxAttempts
}
