// Package queuetest is the contract every queue meets. An engine adapter's
// tests call RunEngine with a function that opens a fresh, empty engine on
// a settable clock: the suite runs it inside queue.Managed, so it proves
// the engine's storage (claims, fencing, delays, inspection) together with
// the behaviour every queue shares (trace headers, the retry→dead decision
// by the topic's policy, metrics counted once per finished run). Broker
// adapters added later run the same suite against their real engine.
// Run does the same for a queue built from such queues (a migration
// Switch), handing the opener the options to build its queues with.
package queuetest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
)

// Clock is a settable time source shared by the test and the adapter
// (and a worker: its After fires when Add moves the clock past it).
type Clock struct {
	mu      sync.Mutex
	t       time.Time
	waiters []waiter
}

type waiter struct {
	at time.Time
	c  chan time.Time
}

// NewClock starts at a fixed instant.
func NewClock() *Clock { return &Clock{t: time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)} }

// Now returns the current test time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Add moves the clock forward, firing the After channels it passes.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.t) {
			kept = append(kept, w)
			continue
		}
		w.c <- c.t
	}
	c.waiters = kept
}

// After returns a channel that receives once the clock reaches now+d.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.t
		return ch
	}
	c.waiters = append(c.waiters, waiter{at: c.t.Add(d), c: ch})
	return ch
}

// Waiting returns how many After channels have not fired yet: a test
// advances the clock once the code under test waits on it.
func (c *Clock) Waiting() int { c.mu.Lock(); defer c.mu.Unlock(); return len(c.waiters) }

// Subject is what an adapter hands the suite.
type Subject interface {
	queue.Queue
	queue.Inspector
}

// Opener returns a new empty queue whose clock is c, built with o (the
// suite's policies, its counters and a short poll).
type Opener func(t *testing.T, c *Clock, o queue.Options) Subject

// EngineOpener returns a new empty engine whose clock is c.
type EngineOpener func(t *testing.T, c *Clock) queue.Engine

// RunEngine runs the contract on an engine inside queue.Managed.
func RunEngine(t *testing.T, open EngineOpener) {
	Run(t, func(t *testing.T, c *Clock, o queue.Options) Subject { return queue.New(open(t, c), o) })
}

type env struct {
	q Subject
	c *Clock
	n *Counter
}

// Run runs the contract.
func Run(t *testing.T, open Opener) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Subject, *Clock)
		// fnc is a test that also checks what was counted.
		fnc func(*testing.T, env)
	}{
		{"EnqueueIsIdempotent", testIdempotent, nil},
		{"RefusesBadJobs", testRefusesBadJobs, nil},
		{"PriorityThenAge", testPriority, nil},
		{"DelayedJobs", testDelayed, nil},
		{"TopicFilter", testTopics, nil},
		{"AckSuccess", testAckSuccess, nil},
		{"RetryBacksOffThenDies", testRetry, nil},
		{"DeadLettersRetryAndDismiss", testDeadLetters, nil},
		{"ReleasedIsNotCounted", testReleased, nil},
		{"LateAckIsFenced", testFencing, nil},
		{"LeaseRunsOut", testLeaseRunsOut, nil},
		{"RenewedLeaseHolds", testRenewedLease, nil},
		{"ClaimsAreExclusive", testExclusive, nil},
		{"DequeueBlocksUntilEnqueue", testBlocking, nil},
		{"CleanupKeepsRecent", testCleanup, nil},
		{"ListAndCounts", testList, nil},
		{"TraceFromContext", testTrace, nil},
		{"PolicyOfTheTopic", testPolicyOfTopic, nil},
		{"ExpiredFollowsThePolicy", testExpiredPolicy, nil},
		{"CountsEachRunOnce", nil, testCounts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, n := NewClock(), &Counter{}
			poll := 20 * time.Millisecond
			if tc.name == "DequeueBlocksUntilEnqueue" {
				// Only the wake-up can explain a prompt return.
				poll = time.Minute
			}
			q := open(t, c, queue.Options{Policies: Policies, Counters: n, Poll: poll})
			if tc.fnc != nil {
				tc.fnc(t, env{q: q, c: c, n: n})
				return
			}
			tc.fn(t, q, c)
		})
	}
}

var ctx = context.Background()

func job(topic string) queue.Job { return queue.NewJob(topic, []byte(`{"n":1}`)) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func claim(t *testing.T, q Subject, max int, topics ...string) []*queue.Job {
	t.Helper()
	js, err := q.DequeueBatch(ctx, topics, max)
	must(t, err)
	return js
}

func state(t *testing.T, q Subject, id string) *queue.Info {
	t.Helper()
	for _, st := range []queue.State{queue.StatePending, queue.StateScheduled, queue.StateRunning, queue.StateDone, queue.StateDead} {
		infos, err := q.List(ctx, queue.ListQuery{State: st, Limit: 100})
		must(t, err)
		for _, in := range infos {
			if in.ID == id {
				return in
			}
		}
	}
	return nil
}

func testIdempotent(t *testing.T, q Subject, c *Clock) {
	j := job("test.echo")
	j.Headers = map[string]string{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
	must(t, q.Enqueue(ctx, j))
	dup := j
	dup.Payload = []byte(`{"n":2}`)
	must(t, q.Enqueue(ctx, dup))
	must(t, q.EnqueueBatch(ctx, []queue.Job{dup, dup}))
	js := claim(t, q, 10)
	if len(js) != 1 || string(js[0].Payload) != `{"n":1}` {
		t.Fatalf("after enqueueing one id four times, claimed %d jobs (payload %q); want 1 with the first payload", len(js), payloadOf(js))
	}
	if js[0].Attempt != 1 || js[0].Headers["traceparent"] != j.Headers["traceparent"] || !js[0].EnqueuedAt.Equal(c.Now()) {
		t.Errorf("claimed %+v; want attempt 1, the traceparent header, enqueued_at now", js[0])
	}
}

func payloadOf(js []*queue.Job) string {
	if len(js) == 0 {
		return ""
	}
	return string(js[0].Payload)
}

func testRefusesBadJobs(t *testing.T, q Subject, c *Clock) {
	big := job("test.big")
	big.Payload = make([]byte, queue.MaxPayload+1)
	for _, tc := range []struct {
		name string
		j    queue.Job
	}{
		{"no id", queue.Job{Topic: "x", Payload: []byte("{}")}},
		{"bad topic", job("Bad Topic")},
		{"dead topic", job("x.dead")},
		{"oversized payload", big},
		{"priority", func() queue.Job { j := job("x"); j.Priority = 10; return j }()},
	} {
		err := q.Enqueue(ctx, tc.j)
		if murlog.ErrorCode(err) != murlog.EInvalid {
			t.Errorf("%s: Enqueue = %v; want an invalid error", tc.name, err)
		}
	}
	good := job("x")
	err := q.EnqueueBatch(ctx, []queue.Job{good, job("Bad Topic")})
	if murlog.ErrorCode(err) != murlog.EInvalid {
		t.Errorf("batch with one bad job = %v; want invalid", err)
	}
	if js := claim(t, q, 10); len(js) != 0 {
		t.Errorf("a refused batch left %d jobs; want none (all or nothing)", len(js))
	}
}

func testPriority(t *testing.T, q Subject, c *Clock) {
	var want []string
	var all []queue.Job
	for _, p := range []int{9, 0, 5, 0, 5} {
		j := job("x")
		j.Priority = p
		all = append(all, j)
	}
	must(t, q.EnqueueBatch(ctx, all))
	order := append([]queue.Job(nil), all...)
	sort.SliceStable(order, func(a, b int) bool { return order[a].Priority < order[b].Priority })
	for _, j := range order {
		want = append(want, j.ID)
	}
	var got []string
	for _, j := range claim(t, q, 3) {
		got = append(got, j.ID)
	}
	for _, j := range claim(t, q, 3) {
		got = append(got, j.ID)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("claim order %v; want priority then age %v", got, want)
	}
}

func testDelayed(t *testing.T, q Subject, c *Clock) {
	d := job("x")
	d.Delay = time.Minute
	at := job("x")
	at.RunAt = c.Now().Add(2 * time.Minute)
	must(t, q.EnqueueBatch(ctx, []queue.Job{d, at}))
	if js := claim(t, q, 10); len(js) != 0 {
		t.Fatalf("claimed %d delayed jobs before their time", len(js))
	}
	if n, _ := q.Runnable(ctx); n != 0 {
		t.Errorf("Runnable = %d with only future jobs; want 0", n)
	}
	c.Add(time.Minute)
	if n, _ := q.Runnable(ctx); n != 1 {
		t.Errorf("Runnable = %d after one came due; want 1", n)
	}
	if js := claim(t, q, 10); len(js) != 1 || js[0].ID != d.ID {
		t.Errorf("after 1 minute claimed %d; want the delayed job", len(js))
	}
	c.Add(time.Minute)
	if js := claim(t, q, 10); len(js) != 1 || js[0].ID != at.ID {
		t.Errorf("after 2 minutes claimed %d; want the RunAt job", len(js))
	}
}

func testTopics(t *testing.T, q Subject, c *Clock) {
	must(t, q.EnqueueBatch(ctx, []queue.Job{job("a.one"), job("b.two"), job("a.one")}))
	if js := claim(t, q, 10, "b.two"); len(js) != 1 || js[0].Topic != "b.two" {
		t.Errorf("claim(b.two) = %d jobs", len(js))
	}
	if js := claim(t, q, 10); len(js) != 2 {
		t.Errorf("claim(all) = %d; want the 2 a.one jobs", len(js))
	}
}

func testAckSuccess(t *testing.T, q Subject, c *Clock) {
	must(t, q.Enqueue(ctx, job("x")))
	j := claim(t, q, 1)[0]
	if in := state(t, q, j.ID); in == nil || in.State != queue.StateRunning || in.StartedAt == nil {
		t.Fatalf("claimed job state = %+v; want running with started_at", in)
	}
	c.Add(time.Second)
	must(t, q.Ack(ctx, j, queue.Result{Status: queue.Success, Duration: 20 * time.Millisecond}))
	if in := state(t, q, j.ID); in == nil || in.State != queue.StateDone || in.FinishedAt == nil {
		t.Errorf("after success: %+v; want done", in)
	}
	if js := claim(t, q, 1); len(js) != 0 {
		t.Error("a done job was claimed again")
	}
}

// testRetry: a failed run is retried after its topic's backoff and dies
// after its topic's attempts (SlowPolicy: 10 s, 20 s, 40 s; four runs).
func testRetry(t *testing.T, q Subject, c *Clock) {
	j := job(TopicSlow)
	must(t, q.Enqueue(ctx, j))
	waits := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second}
	for attempt := 1; attempt <= 4; attempt++ {
		js := claim(t, q, 1)
		if len(js) != 1 || js[0].Attempt != attempt {
			t.Fatalf("attempt %d: claimed %d jobs (attempt %v)", attempt, len(js), js)
		}
		must(t, q.Ack(ctx, js[0], queue.Result{Status: queue.Retry, Err: fmt.Errorf("remote said 502 (try %d)", attempt)}))
		if attempt == 4 {
			break
		}
		w := waits[attempt-1]
		c.Add(w - time.Second)
		if js := claim(t, q, 1); len(js) != 0 {
			t.Fatalf("attempt %d: retried before its %v backoff", attempt, w)
		}
		c.Add(time.Second)
	}
	in := state(t, q, j.ID)
	if in == nil || in.State != queue.StateDead || in.LastError != "remote said 502 (try 4)" || in.MaxAttempts != 4 {
		t.Errorf("after 4 failed runs: %+v; want dead with the last error and the policy's 4 attempts", in)
	}
	// The default policy: 1 s doubling.
	o := job("other.task")
	must(t, q.Enqueue(ctx, o))
	js := claim(t, q, 1)
	must(t, q.Ack(ctx, js[0], queue.Result{Status: queue.Retry, Err: errors.New("x")}))
	c.Add(time.Second)
	if js := claim(t, q, 1); len(js) != 1 {
		t.Errorf("default policy: not retried after 1 s")
	}
}

func testDeadLetters(t *testing.T, q Subject, c *Clock) {
	a, b := job("x"), job("x")
	must(t, q.EnqueueBatch(ctx, []queue.Job{a, b}))
	for _, j := range claim(t, q, 2) {
		must(t, q.Ack(ctx, j, queue.Result{Status: queue.Dead, Err: errors.New("post was deleted")}))
	}
	dead, err := q.List(ctx, queue.ListQuery{State: queue.StateDead, Limit: 10})
	must(t, err)
	if len(dead) != 2 || dead[0].LastError != "post was deleted" {
		t.Fatalf("dead letters = %d; want 2 with their reason", len(dead))
	}
	must(t, q.Retry(ctx, a.ID))
	js := claim(t, q, 10)
	if len(js) != 1 || js[0].ID != a.ID || js[0].Attempt != 1 {
		t.Errorf("after Retry claimed %v; want the job again with a fresh attempt count", js)
	}
	must(t, q.Dismiss(ctx, b.ID))
	if in := state(t, q, b.ID); in != nil {
		t.Errorf("dismissed job still listed: %+v", in)
	}
	if err := q.Retry(ctx, b.ID); murlog.ErrorCode(err) != murlog.ENotFound {
		t.Errorf("Retry of a dismissed job = %v; want not_found", err)
	}
	if err := q.Dismiss(ctx, a.ID); murlog.ErrorCode(err) != murlog.ENotFound {
		t.Errorf("Dismiss of a running job = %v; want not_found (only dead jobs)", err)
	}
}

func testReleased(t *testing.T, q Subject, c *Clock) {
	must(t, q.Enqueue(ctx, job("x")))
	j := claim(t, q, 1)[0]
	must(t, q.Ack(ctx, j, queue.Result{Status: queue.Released}))
	js := claim(t, q, 1)
	if len(js) != 1 || js[0].Attempt != 1 {
		t.Errorf("after release: %v; want the job runnable at once with attempt 1 again", js)
	}
}

func testFencing(t *testing.T, q Subject, c *Clock) {
	must(t, q.Enqueue(ctx, job("x")))
	slow := claim(t, q, 1)[0]
	c.Add(q.Lease() + time.Second)
	n, err := q.RecoverExpired(ctx)
	must(t, err)
	if n != 1 {
		t.Fatalf("RecoverExpired = %d; want 1", n)
	}
	again := claim(t, q, 1)[0]
	// The first worker wakes up late and acks: nothing changes.
	must(t, q.Ack(ctx, slow, queue.Result{Status: queue.Dead, Err: errors.New("late")}))
	if in := state(t, q, again.ID); in.State != queue.StateRunning || in.Attempt != 2 {
		t.Errorf("a late ack from attempt 1 changed attempt 2's job: %+v", in)
	}
	must(t, q.Ack(ctx, again, queue.Result{Status: queue.Success}))
	if in := state(t, q, again.ID); in.State != queue.StateDone {
		t.Errorf("ack of the live attempt: %+v; want done", in)
	}
}

// testLeaseRunsOut: a claimed job whose lease is not renewed stays its
// worker's until the lease runs out, then is claimable again with its
// attempt counted; on its last attempt it goes dead instead.
func testLeaseRunsOut(t *testing.T, q Subject, c *Clock) {
	if q.Lease() != queue.DefaultLease {
		t.Errorf("Lease = %v; want the default %v", q.Lease(), queue.DefaultLease)
	}
	j := job("x")
	j.MaxAttempts = 2
	must(t, q.Enqueue(ctx, j))
	claim(t, q, 1)
	if in := state(t, q, j.ID); in == nil || in.LeaseUntil == nil || !in.LeaseUntil.Equal(c.Now().Add(q.Lease())) {
		t.Errorf("claimed job listed as %+v; want its lease until now + %v", in, q.Lease())
	}
	c.Add(q.Lease() - time.Second)
	if n, _ := q.RecoverExpired(ctx); n != 0 {
		t.Errorf("RecoverExpired a second before the lease runs out = %d; want 0", n)
	}
	if js := claim(t, q, 1); len(js) != 0 {
		t.Errorf("a job under its lease was claimed again: %v", js)
	}
	c.Add(2 * time.Second)
	if n, _ := q.RecoverExpired(ctx); n != 1 {
		t.Errorf("RecoverExpired a second after the lease ran out = %d; want 1", n)
	}
	js := claim(t, q, 1)
	if len(js) != 1 || js[0].Attempt != 2 || js[0].LastError == "" {
		t.Fatalf("after its lease ran out claimed %v; want the job again with attempt 2 and a reason", js)
	}
	c.Add(q.Lease() + time.Second)
	q.RecoverExpired(ctx)
	if in := state(t, q, j.ID); in.State != queue.StateDead {
		t.Errorf("lease ran out on its last attempt: %+v; want dead", in)
	}
}

// testRenewedLease: a renewed lease holds the job past its first lease;
// a claim whose lease ran out and whose job was claimed again is lost —
// its renewal says so and its ack changes nothing — while the new claim's
// outcome stands.
func testRenewedLease(t *testing.T, q Subject, c *Clock) {
	a, b := job("x"), job("x")
	must(t, q.EnqueueBatch(ctx, []queue.Job{a, b}))
	byID := map[string]*queue.Job{}
	for _, j := range claim(t, q, 2) {
		byID[j.ID] = j
	}
	ja, jb := byID[a.ID], byID[b.ID]
	if ja == nil || jb == nil {
		t.Fatalf("claimed %v; want both jobs", byID)
	}
	step := q.Lease() * 3 / 4
	c.Add(step)
	held, err := q.Renew(ctx, []*queue.Job{ja})
	must(t, err)
	if len(held) != 1 || !held[0] {
		t.Fatalf("Renew of a job under its lease = %v; want [true]", held)
	}
	if in := state(t, q, a.ID); in.LeaseUntil == nil || !in.LeaseUntil.Equal(c.Now().Add(q.Lease())) {
		t.Errorf("renewed job listed as %+v; want its lease until now + %v", in, q.Lease())
	}
	c.Add(step) // 1.5 leases after the claim: b's ran out, a's holds
	n, err := q.RecoverExpired(ctx)
	must(t, err)
	if n != 1 {
		t.Errorf("RecoverExpired = %d; want 1 (the job that was not renewed)", n)
	}
	again := claim(t, q, 10)
	if len(again) != 1 || again[0].ID != b.ID || again[0].Attempt != 2 {
		t.Fatalf("claimed %v; want only the job whose lease ran out, attempt 2", again)
	}
	held, err = q.Renew(ctx, []*queue.Job{ja, jb, again[0]})
	must(t, err)
	if len(held) != 3 || !held[0] || held[1] || !held[2] {
		t.Errorf("Renew(renewed, lost, claimed again) = %v; want [true false true]", held)
	}
	// The worker that lost b finishes late: its outcome must not replace
	// the new claim's.
	must(t, q.Ack(ctx, jb, queue.Result{Status: queue.Dead, Err: errors.New("late")}))
	if in := state(t, q, b.ID); in.State != queue.StateRunning || in.Attempt != 2 {
		t.Errorf("the lost claim's ack changed the new claim's job: %+v", in)
	}
	must(t, q.Ack(ctx, again[0], queue.Result{Status: queue.Success}))
	must(t, q.Ack(ctx, ja, queue.Result{Status: queue.Success}))
	for _, id := range []string{a.ID, b.ID} {
		if in := state(t, q, id); in.State != queue.StateDone {
			t.Errorf("job %s after its live claim's ack: %+v; want done", id, in)
		}
	}
	held, err = q.Renew(ctx, []*queue.Job{ja})
	must(t, err)
	if len(held) != 1 || held[0] {
		t.Errorf("Renew of a finished job = %v; want [false]", held)
	}
	if held, err := q.Renew(ctx, nil); err != nil || len(held) != 0 {
		t.Errorf("Renew(nil) = %v, %v; want nothing", held, err)
	}
}

func testExclusive(t *testing.T, q Subject, c *Clock) {
	const n = 300
	var all []queue.Job
	for i := 0; i < n; i++ {
		all = append(all, job("x"))
	}
	must(t, q.EnqueueBatch(ctx, all))
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				js, err := q.DequeueBatch(ctx, nil, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(js) == 0 {
					return
				}
				var acks []queue.Ack
				mu.Lock()
				for _, j := range js {
					seen[j.ID]++
					acks = append(acks, queue.Ack{Job: j, Result: queue.Result{Status: queue.Success}})
				}
				mu.Unlock()
				if err := q.AckBatch(ctx, acks); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if len(seen) != n {
		t.Errorf("%d distinct jobs claimed; want %d", len(seen), n)
	}
	for id, k := range seen {
		if k != 1 {
			t.Errorf("job %s claimed %d times by concurrent workers", id, k)
		}
	}
}

func testBlocking(t *testing.T, q Subject, c *Clock) {
	got := make(chan *queue.Job, 1)
	go func() {
		j, err := q.Dequeue(ctx, nil)
		if err != nil {
			t.Error(err)
		}
		got <- j
	}()
	time.Sleep(50 * time.Millisecond)
	j := job("x")
	start := time.Now()
	must(t, q.Enqueue(ctx, j))
	select {
	case d := <-got:
		if d.ID != j.ID {
			t.Errorf("Dequeue returned %s; want %s", d.ID, j.ID)
		}
		if w := time.Since(start); w > 500*time.Millisecond {
			t.Errorf("Dequeue woke %v after the enqueue; want at once (its poll is a minute)", w)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Dequeue did not return after an enqueue")
	}
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := q.Dequeue(cctx, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Dequeue on an empty queue with a deadline = %v; want the context's error", err)
	}
}

func testCleanup(t *testing.T, q Subject, c *Clock) {
	old, recent := job("x"), job("x")
	must(t, q.Enqueue(ctx, old))
	must(t, q.Ack(ctx, claim(t, q, 1)[0], queue.Result{Status: queue.Success}))
	c.Add(queue.CompletedRetention)
	must(t, q.Enqueue(ctx, recent))
	must(t, q.Ack(ctx, claim(t, q, 1)[0], queue.Result{Status: queue.Success}))
	c.Add(time.Hour)
	n, err := q.Cleanup(ctx, c.Now().Add(-queue.CompletedRetention))
	must(t, err)
	if n != 1 || state(t, q, old.ID) != nil || state(t, q, recent.ID) == nil {
		t.Errorf("Cleanup deleted %d; want only the job done more than 7 days ago", n)
	}
}

func testList(t *testing.T, q Subject, c *Clock) {
	var js []queue.Job
	for i := 0; i < 25; i++ {
		js = append(js, job("list.me"))
	}
	must(t, q.EnqueueBatch(ctx, js))
	seen := 0
	cursor := ""
	for {
		page, err := q.List(ctx, queue.ListQuery{State: queue.StatePending, Topic: "list.me", Before: cursor, Limit: 10})
		must(t, err)
		seen += len(page)
		if len(page) < 10 {
			break
		}
		cursor = page[len(page)-1].ID
	}
	if seen != 25 {
		t.Errorf("paged %d jobs; want 25", seen)
	}
	counts, err := q.Counts(ctx)
	must(t, err)
	if len(counts) != 1 || counts[0] != (queue.Count{Topic: "list.me", State: queue.StatePending, N: 25}) {
		t.Errorf("Counts = %v", counts)
	}
	if _, err := q.List(ctx, queue.ListQuery{State: "bogus", Limit: 10}); murlog.ErrorCode(err) != murlog.EInvalid {
		t.Errorf("List(state=bogus) = %v; want invalid", err)
	}
}
