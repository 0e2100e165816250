package queuetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/trace"
)

// The behaviour every queue shares whatever its engine: trace headers,
// the topic's policy, metrics counted once per finished run.

// TopicSlow is the suite's topic with a policy of its own (SlowPolicy);
// every other topic takes queue.DefaultPolicy.
const TopicSlow = "test.slow_remote"

// SlowPolicy retries after 10 s, 20 s, 40 s: four attempts.
var SlowPolicy = queue.Policy{MaxAttempts: 4, Timeout: time.Second, Backoff: func(attempt int) time.Duration {
	return 10 * time.Second << (attempt - 1)
}}

// Policies are the policies the suite's queues are built with.
var Policies = queue.PolicyFunc(func(topic string) queue.Policy {
	if topic == TopicSlow {
		return SlowPolicy
	}
	return queue.DefaultPolicy
})

// Counter records the deltas a queue counts, for the suite to check.
type Counter struct {
	mu sync.Mutex
	m  map[[3]string]float64
}

// Count implements queue.Counters.
func (c *Counter) Count(_ context.Context, deltas []queue.Sample) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[[3]string]float64{}
	}
	for _, d := range deltas {
		c.m[[3]string{d.Name, d.Topic, d.Label}] += d.Value
	}
	return nil
}

// Get returns the total of one counter.
func (c *Counter) Get(name, topic, label string) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[[3]string{name, topic, label}]
}

// Sum returns the total of a counter over all topics and labels.
func (c *Counter) Sum(name string) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := 0.0
	for k, n := range c.m {
		if k[0] == name {
			v += n
		}
	}
	return v
}

// testTrace: a job enqueued under a trace context carries a child span of
// that trace; a job that brings its own traceparent keeps it.
func testTrace(t *testing.T, q Subject, c *Clock) {
	parent := trace.New()
	tctx := trace.With(ctx, parent)
	a, b := job("x"), job("x")
	own := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	b.Headers = map[string]string{trace.Header: own, "other": "kept"}
	must(t, q.Enqueue(tctx, a))
	must(t, q.EnqueueBatch(tctx, []queue.Job{b, job("x")}))
	js := claim(t, q, 10)
	if len(js) != 3 {
		t.Fatalf("claimed %d jobs; want 3", len(js))
	}
	for _, j := range js {
		got, ok := trace.Parse(j.Headers[trace.Header])
		switch {
		case j.ID == b.ID:
			if j.Headers[trace.Header] != own || j.Headers["other"] != "kept" {
				t.Errorf("a job with its own traceparent got headers %v; want its own kept", j.Headers)
			}
		case !ok || got.TraceID != parent.TraceID || got.SpanID == parent.SpanID:
			t.Errorf("job enqueued under trace %s has traceparent %q; want a child span of that trace",
				parent.TraceID, j.Headers[trace.Header])
		}
	}
	plain := job("x")
	must(t, q.Enqueue(ctx, plain))
	if js := claim(t, q, 1); len(js) != 1 || js[0].Headers[trace.Header] != "" {
		t.Errorf("a job enqueued without a trace got headers %v; want none", js[0].Headers)
	}
}

// testPolicyOfTopic: a job takes its topic's attempts unless it sets its
// own, and the inspector shows the limit that applies.
func testPolicyOfTopic(t *testing.T, q Subject, c *Clock) {
	slow, def, own := job(TopicSlow), job("x"), job(TopicSlow)
	own.MaxAttempts = 1
	must(t, q.EnqueueBatch(ctx, []queue.Job{slow, def, own}))
	for id, want := range map[string]int{slow.ID: SlowPolicy.MaxAttempts, def.ID: queue.DefaultMaxAttempts, own.ID: 1} {
		if in := state(t, q, id); in == nil || in.MaxAttempts != want {
			t.Errorf("job %s listed as %+v; want max attempts %d", id, in, want)
		}
	}
	for _, j := range claim(t, q, 10) {
		must(t, q.Ack(ctx, j, queue.Result{Status: queue.Retry, Err: errors.New("no")}))
	}
	if in := state(t, q, own.ID); in.State != queue.StateDead {
		t.Errorf("a job allowed 1 attempt after failing once: %+v; want dead", in)
	}
	if in := state(t, q, slow.ID); in.State != queue.StateScheduled || !in.RunAt.Equal(c.Now().Add(10*time.Second)) {
		t.Errorf("a %s job after failing once: %+v; want scheduled after the policy's 10 s", TopicSlow, in)
	}
	if in := state(t, q, def.ID); in.State != queue.StateScheduled || !in.RunAt.Equal(c.Now().Add(time.Second)) {
		t.Errorf("a default job after failing once: %+v; want scheduled after 1 s", in)
	}
}

// testExpiredPolicy: a job abandoned on its last attempt by its topic's
// policy (not a limit of its own) goes dead; before that it runs again.
func testExpiredPolicy(t *testing.T, q Subject, c *Clock) {
	j := job(TopicSlow)
	must(t, q.Enqueue(ctx, j))
	for attempt := 1; attempt <= SlowPolicy.MaxAttempts; attempt++ {
		js := claim(t, q, 1)
		if len(js) != 1 || js[0].Attempt != attempt {
			t.Fatalf("attempt %d: claimed %v", attempt, js)
		}
		c.Add(q.Lease() + time.Second)
		n, err := q.RecoverExpired(ctx)
		must(t, err)
		if n != 1 {
			t.Fatalf("attempt %d: RecoverExpired = %d; want 1", attempt, n)
		}
	}
	if in := state(t, q, j.ID); in.State != queue.StateDead || in.LastError == "" {
		t.Errorf("abandoned on its 4th (last by the policy) attempt: %+v; want dead with a reason", in)
	}
}

// testCounts: enqueues count the jobs stored (not duplicates), and each
// finished run counts once by result — a late ack that the fence refuses,
// a release, and recovery of an expired lease to a retry count nothing.
func testCounts(t *testing.T, e env) {
	q, c, n := e.q, e.c, e.n
	a, b, d, r := job("m.a"), job("m.a"), job("m.b"), job("m.b")
	d.MaxAttempts = 1
	must(t, q.EnqueueBatch(ctx, []queue.Job{a, b, d, r}))
	must(t, q.Enqueue(ctx, a)) // exists: not counted
	if got := n.Get(queue.MetricEnqueued, "m.a", ""); got != 2 {
		t.Errorf("enqueued m.a = %v; want 2 (the duplicate is not counted)", got)
	}
	byID := map[string]*queue.Job{}
	for _, j := range claim(t, q, 10) {
		byID[j.ID] = j
	}
	must(t, q.AckBatch(ctx, []queue.Ack{
		{Job: byID[a.ID], Result: queue.Result{Status: queue.Success, Duration: 20 * time.Millisecond}},
		{Job: byID[b.ID], Result: queue.Result{Status: queue.Retry, Err: errors.New("x"), Duration: 3 * time.Second}},
		{Job: byID[d.ID], Result: queue.Result{Status: queue.Retry, Err: errors.New("x")}}, // its last attempt: dead
		{Job: byID[r.ID], Result: queue.Result{Status: queue.Released}},
	}))
	// A duplicate ack of a finished run changes and counts nothing.
	must(t, q.Ack(ctx, byID[a.ID], queue.Result{Status: queue.Success}))
	for _, w := range []struct {
		topic, result string
		want          float64
	}{{"m.a", "success", 1}, {"m.a", "retry", 1}, {"m.b", "dead", 1}, {"m.b", "success", 0}, {"m.b", "released", 0}} {
		if got := n.Get(queue.MetricProcessed, w.topic, w.result); got != w.want {
			t.Errorf("processed{%s,%s} = %v; want %v", w.topic, w.result, got, w.want)
		}
	}
	if got := n.Get(queue.MetricDLQ, "m.b", ""); got != 1 {
		t.Errorf("dlq{m.b} = %v; want 1", got)
	}
	if got := n.Get(queue.MetricDurationBucket, "m.a", "0.025"); got != 1 {
		t.Errorf("duration bucket le=0.025 of m.a = %v; want the 20 ms run", got)
	}
	if got := n.Get(queue.MetricDurationBucket, "m.a", "5"); got != 1 {
		t.Errorf("duration bucket le=5 of m.a = %v; want the 3 s run", got)
	}
	if got := n.Sum(queue.MetricDurationBucket); got != 3 {
		t.Errorf("duration observations = %v; want 3 (released runs are not runs)", got)
	}
	if got := n.Get(queue.MetricDurationSum, "m.a", ""); got < 3.019 || got > 3.021 {
		t.Errorf("duration sum of m.a = %v; want 3.02", got)
	}
	// Recovery of an expired lease: back to pending counts nothing; dead
	// counts once.
	js := claim(t, q, 10) // the released job
	if len(js) != 1 {
		t.Fatalf("claimed %d; want the released job", len(js))
	}
	c.Add(q.Lease() + time.Second)
	if k, err := q.RecoverExpired(ctx); err != nil || k != 1 {
		t.Fatalf("RecoverExpired = %d, %v; want 1", k, err)
	}
	must(t, q.Ack(ctx, js[0], queue.Result{Status: queue.Success})) // late: fenced
	if got := n.Sum(queue.MetricProcessed); got != 3 {
		t.Errorf("processed in all = %v after a recovery and a fenced ack; want still 3", got)
	}
}
