package queue

import (
	"context"
	"strconv"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/trace"
)

// Options configure Managed. The zero value is ready to use.
type Options struct {
	// Policies gives each topic's retries, backoff and timeout; nil means
	// DefaultPolicy for all. Pass the worker's registry.
	Policies Policies
	// Counters receives metric deltas; the engine itself when nil and it
	// implements Counters, else nothing is counted.
	Counters Counters
	// Poll is how often a blocked Dequeue looks for work it was not woken
	// for (jobs enqueued by another process, or coming due); 1 s when 0.
	Poll time.Duration
	// Lease is how long a claim holds a job unless renewed; DefaultLease
	// when 0.
	Lease time.Duration
}

// Managed is a Queue (and an Inspector) over an Engine: what every queue
// does whatever stores its jobs. It validates jobs and adds the caller's
// trace context to their headers before they are stored; turns each
// reported result into a settlement by the topic's policy (Decide); and
// counts enqueues, finished runs, dead letters and durations once each,
// for the runs whose settlement applied. It is safe for concurrent use.
type Managed struct {
	e     Engine
	in    EngineInspector // nil when the engine cannot inspect
	c     Counters        // nil: not counted
	ps    Policies
	poll  time.Duration
	lease time.Duration
}

var (
	_ Queue     = (*Managed)(nil)
	_ Inspector = (*Managed)(nil)
)

// New returns the queue over e.
func New(e Engine, o Options) *Managed {
	m := &Managed{e: e, c: o.Counters, ps: o.Policies, poll: o.Poll, lease: o.Lease}
	if m.lease <= 0 {
		m.lease = DefaultLease
	}
	m.in, _ = e.(EngineInspector)
	if m.c == nil {
		m.c, _ = e.(Counters)
	}
	return m
}

// Engine returns the engine underneath, for engine-specific maintenance.
func (m *Managed) Engine() Engine { return m.e }

// Policy returns topic's policy.
func (m *Managed) Policy(topic string) Policy { return policyOf(m.ps, topic) }

// Prepare readies jobs for storing, in place: it checks the batch and
// each job (Validate), and gives a job without a traceparent header a
// child span of the trace in ctx, so the job continues the trace of the
// request (or job) that caused it. Managed and every transactional
// enqueue (store.Tx.Jobs) call it, so both paths store the same thing.
func Prepare(ctx context.Context, js []Job) error {
	if len(js) > MaxBatch {
		return murlog.Invalid("jobs", "a batch holds at most %d jobs, not %d", MaxBatch, len(js))
	}
	tc, traced := trace.From(ctx)
	for i := range js {
		j := &js[i]
		if err := j.Validate(); err != nil {
			return err
		}
		if traced && j.Headers[trace.Header] == "" {
			h := make(map[string]string, len(j.Headers)+1)
			for k, v := range j.Headers {
				h[k] = v
			}
			h[trace.Header] = tc.Child().String()
			j.Headers = h
		}
	}
	return nil
}

// Enqueue implements Queue.
func (m *Managed) Enqueue(ctx context.Context, j Job) error {
	return m.EnqueueBatch(ctx, []Job{j})
}

// EnqueueBatch implements Queue: all jobs or none.
func (m *Managed) EnqueueBatch(ctx context.Context, js []Job) error {
	if len(js) == 0 {
		return nil
	}
	if err := Prepare(ctx, js); err != nil {
		return err
	}
	n, err := m.e.Insert(ctx, js)
	if err != nil {
		return err
	}
	m.count(ctx, Enqueued(n))
	return nil
}

// DequeueBatch implements Queue.
func (m *Managed) DequeueBatch(ctx context.Context, topics []string, max int) ([]*Job, error) {
	if max <= 0 {
		return nil, nil
	}
	return m.e.Claim(ctx, topics, max, m.lease)
}

// Dequeue implements Queue: it claims one job, waiting for the engine's
// wake-up or Poll.
func (m *Managed) Dequeue(ctx context.Context, topics []string) (*Job, error) {
	return PollDequeue(ctx, m.DequeueBatch, topics, m.e.Woken(), m.poll)
}

// Renew implements Queue.
func (m *Managed) Renew(ctx context.Context, js []*Job) ([]bool, error) {
	if len(js) == 0 {
		return nil, nil
	}
	return m.e.Extend(ctx, js, m.lease)
}

// Lease implements Queue.
func (m *Managed) Lease() time.Duration { return m.lease }

// Ack implements Queue.
func (m *Managed) Ack(ctx context.Context, j *Job, r Result) error {
	return m.AckBatch(ctx, []Ack{{Job: j, Result: r}})
}

// AckBatch implements Queue: every result is decided by its topic's
// policy and settled in one engine call; runs whose settlement applied
// are counted.
func (m *Managed) AckBatch(ctx context.Context, acks []Ack) error {
	if len(acks) == 0 {
		return nil
	}
	ss := make([]Settlement, len(acks))
	for i, a := range acks {
		switch a.Result.Status {
		case Success, Retry, Dead, Released:
		default:
			return murlog.Invalid("status", "unknown ack status %d", a.Result.Status)
		}
		ss[i] = Decide(a.Job, a.Result, m.Policy(a.Job.Topic))
	}
	applied, err := m.e.Settle(ctx, ss)
	if err != nil {
		return err
	}
	var t Tally
	for i, s := range ss {
		if applied[i] {
			t.Processed(s.Job.Topic, s.Status, acks[i].Result.Duration)
		}
	}
	m.count(ctx, t.Samples())
	return nil
}

// count records metric deltas, best effort. It runs after the outcome it
// counts is stored, so its failure must not fail the call: a producer told
// that an enqueue failed may enqueue again under a fresh id, and a worker
// would retry an ack that already applied. A lost count is the lesser
// harm; the job states themselves (queue_depth) stay exact.
func (m *Managed) count(ctx context.Context, deltas []Sample) {
	if m.c == nil || len(deltas) == 0 {
		return
	}
	_ = m.c.Count(ctx, deltas)
}

// HealthCheck implements Queue.
func (m *Managed) HealthCheck(ctx context.Context) error { return m.e.HealthCheck(ctx) }

// Provider implements Queue.
func (m *Managed) Provider() string { return m.e.Provider() }

// Inspects reports whether the engine answers inspection; without it
// every Inspector method fails as unavailable.
func (m *Managed) Inspects() bool { return m.in != nil }

func (m *Managed) inspector() (EngineInspector, error) {
	if m.in == nil {
		return nil, murlog.Errorf(murlog.EUnavailable, "the %s queue cannot be inspected", m.e.Provider())
	}
	return m.in, nil
}

// Counts implements Inspector.
func (m *Managed) Counts(ctx context.Context) ([]Count, error) {
	in, err := m.inspector()
	if err != nil {
		return nil, err
	}
	return in.Counts(ctx)
}

// Runnable implements Inspector.
func (m *Managed) Runnable(ctx context.Context) (int, error) {
	in, err := m.inspector()
	if err != nil {
		return 0, err
	}
	return in.Runnable(ctx)
}

// List implements Inspector. Jobs that take their topic's limit show it.
func (m *Managed) List(ctx context.Context, q ListQuery) ([]*Info, error) {
	in, err := m.inspector()
	if err != nil {
		return nil, err
	}
	infos, err := in.List(ctx, q)
	for _, i := range infos {
		i.MaxAttempts = m.Policy(i.Topic).MaxAttemptsOf(&i.Job)
	}
	return infos, err
}

// Retry implements Inspector.
func (m *Managed) Retry(ctx context.Context, id string) error {
	in, err := m.inspector()
	if err != nil {
		return err
	}
	return in.Retry(ctx, id)
}

// Dismiss implements Inspector.
func (m *Managed) Dismiss(ctx context.Context, id string) error {
	in, err := m.inspector()
	if err != nil {
		return err
	}
	return in.Dismiss(ctx, id)
}

// Cleanup implements Inspector.
func (m *Managed) Cleanup(ctx context.Context, before time.Time) (int, error) {
	in, err := m.inspector()
	if err != nil {
		return 0, err
	}
	return in.Cleanup(ctx, before)
}

// staleChunk bounds the abandoned jobs settled at once.
const staleChunk = 500

// RecoverExpired implements Inspector: each running job whose lease ran
// out is runnable again with its attempt counted, or — when that was its
// last attempt by its topic's policy — a dead letter. The settlements are
// fenced like acks, so a worker that was only slow and acks meanwhile
// wins; once recovered, the slow worker's ack and renewal are refused.
func (m *Managed) RecoverExpired(ctx context.Context) (int, error) {
	in, err := m.inspector()
	if err != nil {
		return 0, err
	}
	total := 0
	for {
		js, err := in.Expired(ctx, staleChunk)
		if err != nil || len(js) == 0 {
			return total, err
		}
		ss := make([]Settlement, len(js))
		for i, j := range js {
			ss[i] = staleSettlement(j, m.Policy(j.Topic))
		}
		applied, err := m.e.Settle(ctx, ss)
		if err != nil {
			return total, err
		}
		var t Tally
		settled := 0
		for i, s := range ss {
			if !applied[i] {
				continue
			}
			settled++
			if s.Status == Dead {
				t.Processed(s.Job.Topic, Dead, 0)
			}
		}
		total += settled
		m.count(ctx, t.Samples())
		if len(js) < staleChunk || settled == 0 {
			return total, nil
		}
	}
}

// Metric names the queue counts (see metrics for their exposition).
const (
	MetricEnqueued       = "queue_enqueued_total"
	MetricProcessed      = "queue_processed_total" // Label: the result
	MetricDLQ            = "queue_dlq_total"
	MetricDurationBucket = "queue_duration_seconds_bucket" // Label: the bucket's upper bound, not cumulative
	MetricDurationSum    = "queue_duration_seconds_sum"
)

// Enqueued returns the counter deltas of jobs inserted, by topic.
func Enqueued(byTopic map[string]int) []Sample {
	var out []Sample
	for topic, n := range byTopic {
		if n > 0 {
			out = append(out, Sample{Name: MetricEnqueued, Topic: topic, Value: float64(n)})
		}
	}
	return out
}

// Tally accumulates the counter deltas of finished runs. The zero value
// is empty and ready.
type Tally struct{ m map[[3]string]float64 }

func (t *Tally) add(name, topic, label string, v float64) {
	if t.m == nil {
		t.m = map[[3]string]float64{}
	}
	t.m[[3]string{name, topic, label}] += v
}

// Processed counts one finished run: its result, a dead letter, and its
// duration. The histogram is kept per bucket (not cumulative), so one
// observation touches one bucket; the exposition adds them up.
func (t *Tally) Processed(topic string, status Status, d time.Duration) {
	if status == Released {
		return // not a run
	}
	t.add(MetricProcessed, topic, status.String(), 1)
	if status == Dead {
		t.add(MetricDLQ, topic, "", 1)
	}
	s := d.Seconds()
	t.add(MetricDurationBucket, topic, BucketOf(s), 1)
	t.add(MetricDurationSum, topic, "", s)
}

// Samples returns the deltas.
func (t *Tally) Samples() []Sample {
	out := make([]Sample, 0, len(t.m))
	for k, v := range t.m {
		out = append(out, Sample{Name: k[0], Topic: k[1], Label: k[2], Value: v})
	}
	return out
}

// BucketOf returns the "le" label of the DurationBuckets bucket holding s
// seconds ("+Inf" past the last).
func BucketOf(s float64) string {
	for _, b := range DurationBuckets {
		if s <= b {
			return strconv.FormatFloat(b, 'g', -1, 64)
		}
	}
	return "+Inf"
}
