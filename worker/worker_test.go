package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/google/uuid"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/queue/queuetest"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
)

var ctx = context.Background()

type env struct {
	db    *sqlite.DB
	q     *queue.Managed
	clock *queuetest.Clock
	reg   *Registry
	logs  *syncBuf
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func newEnv(t testing.TB) *env {
	t.Helper()
	c := queuetest.NewClock()
	db, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), "murlog.db"), sqlite.Options{Now: c.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	reg := NewRegistry()
	q := queue.New(db.Queue(), queue.Options{Policies: reg, Poll: 20 * time.Millisecond})
	return &env{db: db, q: q, clock: c, reg: reg, logs: &syncBuf{}}
}

func (e *env) worker(o Options) *Worker {
	o.Queue, o.Inspector, o.Registry = e.q, e.q, e.reg
	if o.Logger == nil {
		o.Logger = NewJobLogger(e.logs, slog.LevelDebug)
	}
	return New(o)
}

func (e *env) enqueue(t testing.TB, topic string, payload string, n int) []queue.Job {
	t.Helper()
	var js []queue.Job
	for i := 0; i < n; i++ {
		js = append(js, queue.NewJob(topic, []byte(payload)))
	}
	for len(js) > 0 {
		k := min(len(js), queue.MaxBatch)
		if err := e.q.EnqueueBatch(ctx, js[:k]); err != nil {
			t.Fatal(err)
		}
		js = js[k:]
	}
	return js
}

func (e *env) count(t *testing.T, st queue.State) int {
	t.Helper()
	cs, err := e.q.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cs {
		if c.State == st {
			n += c.N
		}
	}
	return n
}

func (e *env) dead(t *testing.T) []*queue.Info {
	t.Helper()
	in, err := e.q.List(ctx, queue.ListQuery{State: queue.StateDead, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestConcurrencyRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ runnable, min, max, want int }{
		{0, 8, 32, 8}, {99, 8, 32, 8}, {100, 8, 32, 20}, {499, 8, 32, 20}, {500, 8, 32, 32}, {10000, 8, 32, 32},
		{200, 2, 4, 4}, {200, 25, 40, 25}, {50, 1, 1, 1},
	} {
		if got := Concurrency(tc.runnable, tc.min, tc.max); got != tc.want {
			t.Errorf("Concurrency(%d, %d, %d) = %d; want %d", tc.runnable, tc.min, tc.max, got, tc.want)
		}
	}
}

func TestTypedHandlersAndBadPayloads(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	type greet struct{ Name string }
	var got []string
	var mu sync.Mutex
	Register(e.reg, "test.greet", queue.Policy{}, func(ctx context.Context, p greet, j *queue.Job) error {
		mu.Lock()
		got = append(got, p.Name)
		mu.Unlock()
		return nil
	})
	e.enqueue(t, "test.greet", `{"Name":"alice"}`, 1)
	e.enqueue(t, "test.greet", `{not json`, 1)
	e.enqueue(t, "test.unknown", `{}`, 1)
	n, err := e.worker(Options{}).RunBatch(ctx, 20, 5*time.Second)
	if err != nil || n != 3 {
		t.Fatalf("RunBatch = %d, %v; want 3 jobs finished", n, err)
	}
	if len(got) != 1 || got[0] != "alice" {
		t.Errorf("handler saw %v; want [alice]", got)
	}
	dead := e.dead(t)
	reasons := map[string]string{}
	for _, d := range dead {
		reasons[d.Topic] = d.LastError
	}
	if !strings.Contains(reasons["test.greet"], "does not decode") || !strings.Contains(reasons["test.unknown"], `no handler is registered for topic "test.unknown"`) {
		t.Errorf("dead letters = %v; want the bad payload and the unknown topic with their reasons", reasons)
	}
	for _, d := range dead {
		if d.Attempt != 1 {
			t.Errorf("%s died after %d attempts; want 1 (retrying cannot help)", d.Topic, d.Attempt)
		}
	}
}

func TestPanickingHandlerDiesAloneAfterItsAttempts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.reg.Handle("test.panic", func(context.Context, *queue.Job) error { panic("kaboom") }, queue.Policy{})
	var ok atomic.Int32
	e.reg.Handle("test.ok", func(context.Context, *queue.Job) error { ok.Add(1); return nil }, queue.Policy{})
	e.enqueue(t, "test.panic", `{}`, 1)
	e.enqueue(t, "test.ok", `{}`, 10)
	w := e.worker(Options{})
	for i := 0; i < 6; i++ {
		if _, err := w.RunBatch(ctx, 20, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(10 * time.Minute) // past any backoff
	}
	dead := e.dead(t)
	if len(dead) != 1 || dead[0].Attempt != queue.DefaultMaxAttempts || !strings.Contains(dead[0].LastError, "panic: kaboom") {
		t.Fatalf("dead letters = %+v; want the panicking job after %d attempts with the panic text", dead, queue.DefaultMaxAttempts)
	}
	if ok.Load() != 10 || e.count(t, queue.StateDone) != 10 {
		t.Errorf("other jobs: %d ran, %d done; want 10 and 10", ok.Load(), e.count(t, queue.StateDone))
	}
	if !strings.Contains(e.logs.String(), `"event":"job.panic"`) {
		t.Error("the panic was not logged")
	}
}

func TestPermanentErrorGoesDeadAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.reg.Handle("test.permanent", func(context.Context, *queue.Job) error {
		return queue.Permanent(errors.New("the post was deleted"))
	}, queue.Policy{})
	e.enqueue(t, "test.permanent", `{}`, 1)
	e.worker(Options{}).RunBatch(ctx, 20, time.Second)
	if d := e.dead(t); len(d) != 1 || d[0].Attempt != 1 || d[0].LastError != "the post was deleted" {
		t.Errorf("dead = %+v; want one dead letter after 1 attempt", d)
	}
}

// TestAdaptiveConcurrency holds every job at a barrier until as many run
// at once as the queue depth calls for, so the peak is what the worker
// allowed, not what timing let through: a deep queue scales up to the
// maximum, and a run that never reaches the wanted concurrency fails
// rather than passing by luck.
func TestAdaptiveConcurrency(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		jobs, want int
	}{{50, 8}, {300, 20}, {700, 32}} {
		e := newEnv(t)
		var cur, peak atomic.Int32
		release, expired := make(chan struct{}), make(chan struct{})
		var once sync.Once
		timer := time.AfterFunc(10*time.Second, func() { close(expired) })
		e.reg.Handle("test.hold", func(context.Context, *queue.Job) error {
			n := cur.Add(1)
			defer cur.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			if int(n) >= tc.want {
				once.Do(func() { close(release) })
			}
			select {
			case <-release:
				return nil
			case <-expired:
				return queue.Permanent(errors.New("the wanted concurrency was never reached"))
			}
		}, queue.Policy{})
		defer timer.Stop()
		e.enqueue(t, "test.hold", `{}`, tc.jobs)
		var reported []int
		var mu sync.Mutex
		w := e.worker(Options{OnConcurrency: func(n int) { mu.Lock(); reported = append(reported, n); mu.Unlock() }})
		n, err := w.RunBatch(ctx, 32, time.Minute)
		if err != nil || n != tc.jobs {
			t.Fatalf("%d jobs: RunBatch = %d, %v", tc.jobs, n, err)
		}
		if int(peak.Load()) != tc.want {
			t.Errorf("%d jobs queued: peak concurrency %d; want %d", tc.jobs, peak.Load(), tc.want)
		}
		if d := e.count(t, queue.StateDead); d != 0 {
			t.Errorf("%d jobs queued: %d gave up at the barrier; want all to run with %d at once", tc.jobs, d, tc.want)
		}
		if len(reported) == 0 || reported[0] != tc.want || reported[len(reported)-1] != 0 {
			t.Errorf("%d jobs: concurrency gauge %v; want to start at %d and end at 0", tc.jobs, reported, tc.want)
		}
	}
}

// TestBurstScalesUp starts with a short queue, then a fan-out lands: the
// worker re-evaluates every 10 jobs and scales up within the same run.
// Barriers, not sleeps, order it: the first jobs hold until the burst is
// queued, so the next look at the depth must see it, and the burst's jobs
// hold until the maximum of them run at once.
func TestBurstScalesUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	started := make(chan struct{}, 20)
	burstIn, full, expired := make(chan struct{}), make(chan struct{}), make(chan struct{})
	timer := time.AfterFunc(10*time.Second, func() { close(expired) })
	defer timer.Stop()
	var cur, peak atomic.Int32
	var once sync.Once
	e.reg.Handle("test.burst", func(_ context.Context, j *queue.Job) error {
		if string(j.Payload) != `{"burst":true}` {
			started <- struct{}{}
			<-burstIn
			return nil
		}
		n := cur.Add(1)
		defer cur.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		if n >= DefaultMaxConcurrency {
			once.Do(func() { close(full) })
		}
		select {
		case <-full:
			return nil
		case <-expired:
			return queue.Permanent(errors.New("the burst never ran at full concurrency"))
		}
	}, queue.Policy{})
	e.enqueue(t, "test.burst", `{}`, 20)
	var gauge atomic.Int32
	w := e.worker(Options{OnConcurrency: func(n int) {
		if int32(n) > gauge.Load() {
			gauge.Store(int32(n))
		}
	}})
	done := make(chan int)
	go func() { n, _ := w.RunBatch(ctx, 32, time.Minute); done <- n }()
	for i := 0; i < DefaultMinConcurrency; i++ {
		<-started // the short queue runs at the minimum
	}
	e.enqueue(t, "test.burst", `{"burst":true}`, 800)
	close(burstIn)
	if n := <-done; n != 820 {
		t.Fatalf("finished %d; want 820", n)
	}
	if gauge.Load() != DefaultMaxConcurrency || peak.Load() != DefaultMaxConcurrency || e.count(t, queue.StateDead) != 0 {
		t.Errorf("after a burst of 800: concurrency raised to %d, %d burst jobs at once, %d gave up; want %d, %d and 0",
			gauge.Load(), peak.Load(), e.count(t, queue.StateDead), DefaultMaxConcurrency, DefaultMaxConcurrency)
	}
}

// claimSpy is the real queue, reporting each claim that found nothing:
// after one, the resident loop goes idle without claiming again.
type claimSpy struct {
	queue.Queue
	empty chan struct{}
}

func (s claimSpy) DequeueBatch(ctx context.Context, topics []string, max int) ([]*queue.Job, error) {
	js, err := s.Queue.DequeueBatch(ctx, topics, max)
	if err == nil && len(js) == 0 {
		select {
		case s.empty <- struct{}{}:
		default:
		}
	}
	return js, err
}

// TestResidentWakesOnEnqueue enqueues only once the idle loop has found
// nothing to claim, and polls once an hour: only the wake-up of the
// committed transaction can explain the job running.
func TestResidentWakesOnEnqueue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ran := make(chan time.Time, 1)
	e.reg.Handle("test.wake", func(context.Context, *queue.Job) error { ran <- time.Now(); return nil }, queue.Policy{})
	spy := claimSpy{Queue: e.q, empty: make(chan struct{}, 1)}
	w := New(Options{Queue: spy, Inspector: e.q, Registry: e.reg, Wake: e.db.Woken(), Poll: time.Hour, Logger: discard()})
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- w.Run(rctx) }()
	select {
	case <-spy.empty: // the loop is idle, waiting
	case <-time.After(5 * time.Second):
		t.Fatal("the resident worker never claimed")
	}
	if err := e.db.Update(ctx, func(tx store.Tx) error { return tx.Jobs().Enqueue(queue.NewJob("test.wake", []byte(`{}`))) }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("the resident worker was not woken by an in-process enqueue (poll is an hour)")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v", err)
	}
}

func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	started := make(chan struct{}, 2)
	e.reg.Handle("test.quick", func(ctx context.Context, j *queue.Job) error {
		started <- struct{}{}
		time.Sleep(100 * time.Millisecond)
		return nil
	}, queue.Policy{})
	e.reg.Handle("test.stuck", func(ctx context.Context, j *queue.Job) error {
		started <- struct{}{}
		<-ctx.Done() // only shutdown ends it
		return ctx.Err()
	}, queue.Policy{})
	e.enqueue(t, "test.quick", `{}`, 1)
	e.enqueue(t, "test.stuck", `{}`, 1)
	w := e.worker(Options{ShutdownGrace: 300 * time.Millisecond, Poll: time.Hour})
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- w.Run(rctx) }()
	<-started
	<-started
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after shutdown")
	}
	if n := e.count(t, queue.StateRunning); n != 0 {
		t.Errorf("%d jobs left running after shutdown; want 0", n)
	}
	if n := e.count(t, queue.StateDone); n != 1 {
		t.Errorf("done = %d; want the quick job, finished within the grace period", n)
	}
	js, _ := e.q.DequeueBatch(ctx, nil, 10)
	if len(js) != 1 || js[0].Topic != "test.stuck" || js[0].Attempt != 1 {
		t.Errorf("after shutdown the stuck job = %v; want it released, runnable, its attempt not counted", js)
	}
}

func TestRunOnceStopsWhenEmptyAndMaintains(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var n atomic.Int32
	e.reg.Handle("test.x", func(context.Context, *queue.Job) error { n.Add(1); return nil }, queue.Policy{})
	RegisterMaintenance(e.reg, e.q, e.db, e.clock.Now)
	e.enqueue(t, "test.x", `{}`, 45)
	// A job a killed worker left running 6 minutes ago.
	e.enqueue(t, "test.x", `{}`, 1)
	stale, _ := e.q.DequeueBatch(ctx, nil, 1)
	e.clock.Add(6 * time.Minute)
	total, err := e.worker(Options{}).RunOnce(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if n.Load() != 46 || total != 47 { // 46 test jobs + the clean-up it scheduled
		t.Errorf("RunOnce ran %d test jobs, %d in all; want 46 and 47 (the stale one recovered, plus clean-up)", n.Load(), total)
	}
	if in, _ := e.q.List(ctx, queue.ListQuery{Limit: 100, State: queue.StateDone}); len(in) != 47 {
		t.Errorf("done jobs = %d; want 47", len(in))
	}
	_ = stale
	// The clean-up job of this hour exists once however often it is scheduled.
	w := e.worker(Options{})
	w.Maintain(ctx)
	w.Maintain(ctx)
	cs, _ := e.q.List(ctx, queue.ListQuery{Topic: TopicCleanup, Limit: 10})
	if len(cs) != 1 {
		t.Errorf("clean-up jobs this hour = %d; want 1", len(cs))
	}
}

func TestJobLogFormat(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.reg.Handle("test.log", func(context.Context, *queue.Job) error { return errors.New("remote said no") }, queue.Policy{})
	j := queue.NewJob("test.log", []byte(`{}`))
	j.Headers = map[string]string{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
	e.q.Enqueue(ctx, j)
	e.worker(Options{Svc: "murlog-test"}).RunBatch(ctx, 20, time.Second)
	var line map[string]any
	for _, l := range strings.Split(e.logs.String(), "\n") {
		if strings.Contains(l, `"job.retry"`) {
			json.Unmarshal([]byte(l), &line)
		}
	}
	want := map[string]any{"level": "WARN", "msg": "job.retry", "svc": "murlog-test", "queue.provider": "sqlite", "queue.topic": "test.log",
		"job.id": j.ID, "job.attempt": float64(1), "trace_id": "0af7651916cd43dd8448eb211c80319c", "event": "job.retry",
		"error": "remote said no"}
	for k, v := range want {
		if line[k] != v {
			t.Errorf("log field %s = %v; want %v (line %v)", k, line[k], v, line)
		}
	}
	for _, k := range []string{"time", "duration_ms"} {
		if _, ok := line[k]; !ok {
			t.Errorf("log line lacks %s: %v", k, line)
		}
	}
}

// TestEachRunHasItsTopicsTimeout: a handler's context ends after the
// topic policy's timeout (60 s), and a run that overstays it is retried
// with the timeout as its reason.
func TestEachRunHasItsTopicsTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var left time.Duration
	e.reg.Handle("test.deadline", func(ctx context.Context, _ *queue.Job) error {
		d, ok := ctx.Deadline()
		if !ok {
			return errors.New("no deadline")
		}
		left = time.Until(d)
		return nil
	}, queue.Policy{})
	e.enqueue(t, "test.deadline", `{}`, 1)
	e.worker(Options{}).RunBatch(ctx, 20, 5*time.Second)
	if left < queue.DefaultTimeout-2*time.Second || left > queue.DefaultTimeout {
		t.Errorf("handler saw %v left; want about the 60 s job timeout", left)
	}
	// A run that ends by its deadline is a retry, not a success.
	e.reg.Handle("test.slow", func(ctx context.Context, _ *queue.Job) error {
		c, cancel := context.WithTimeout(ctx, 10*time.Millisecond) // stands in for the 60 s
		defer cancel()
		<-c.Done()
		return c.Err()
	}, queue.Policy{})
	e.enqueue(t, "test.slow", `{}`, 1)
	e.worker(Options{}).RunBatch(ctx, 20, 5*time.Second)
	in, _ := e.q.List(ctx, queue.ListQuery{Topic: "test.slow", Limit: 1})
	if len(in) != 1 || in[0].State != queue.StateScheduled || !strings.Contains(in[0].LastError, "deadline exceeded") {
		t.Errorf("timed-out run: %+v; want it scheduled for a retry with the deadline as reason", in)
	}
}

func TestMaintainSchedulesPeriodicJobsOncePerPeriod(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	day := func(now time.Time) queue.Job {
		j := queue.NewJob("test.daily", []byte(`{}`))
		j.ID = uuid.NewSHA1(uuid.NameSpaceURL, []byte(now.UTC().Format("2006-01-02"))).String()
		return j
	}
	w := e.worker(Options{Periodic: []func(time.Time) queue.Job{day}})
	for i := 0; i < 3; i++ {
		if err := w.Maintain(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := e.q.List(ctx, queue.ListQuery{Topic: "test.daily", Limit: 10})
	if len(got) != 1 {
		t.Fatalf("Maintain ×3 with a daily periodic job: got %d jobs; want 1", len(got))
	}
}

// TestPolicyConcurrencyCapsATopic: a topic whose policy caps its
// concurrency never runs more jobs at once than the cap, while other
// topics keep the worker's slots.
func TestPolicyConcurrencyCapsATopic(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var mu sync.Mutex
	running, most := map[string]int{}, map[string]int{}
	track := func(topic string) HandlerFunc {
		return func(context.Context, *queue.Job) error {
			mu.Lock()
			running[topic]++
			most[topic] = max(most[topic], running[topic])
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			running[topic]--
			mu.Unlock()
			return nil
		}
	}
	e.reg.Handle("test.capped", track("test.capped"), queue.Policy{Concurrency: 2})
	e.reg.Handle("test.free", track("test.free"), queue.Policy{})
	e.enqueue(t, "test.capped", `{}`, 40)
	e.enqueue(t, "test.free", `{}`, 40)
	n, err := e.worker(Options{MinConcurrency: 8, MaxConcurrency: 8}).RunBatch(ctx, 20, 30*time.Second)
	if err != nil || n != 80 {
		t.Fatalf("RunBatch: %d jobs, %v; want all 80", n, err)
	}
	if most["test.capped"] > 2 || most["test.capped"] < 1 {
		t.Errorf("capped topic ran %d at once; want at most its cap of 2", most["test.capped"])
	}
	if most["test.free"] < 4 {
		t.Errorf("uncapped topic ran at most %d at once beside the capped one; want the other slots (≥ 4 of 8)", most["test.free"])
	}
}

// TestRepeatedClaimFailureLoggedOnce: a queue that fails every claim the
// same way (here a database closed under the worker; a full disk is
// another) is logged once, not once a poll.
func TestRepeatedClaimFailureLoggedOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	wake := make(chan struct{})
	w := e.worker(Options{Wake: wake, Poll: time.Hour})
	e.db.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	// Each wake is taken only by a worker back in its idle wait, so 20 of
	// them are at least 20 claims that failed.
	for range 20 {
		wake <- struct{}{}
	}
	stop()
	<-done
	if n := strings.Count(e.logs.String(), `"msg":"worker.claim_failed"`); n != 1 {
		t.Errorf("%d worker.claim_failed lines after 21 failed claims; want 1\n%s", n, e.logs)
	}
}

// TestJobEnqueuedWhileAnotherRunsStartsAtOnce: a long job (a rebuild's
// five seconds) holds one slot; a job a commit enqueues meanwhile is
// claimed into a free slot at once, not when the long one ends.
func TestJobEnqueuedWhileAnotherRunsStartsAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	started, release, quick := make(chan struct{}), make(chan struct{}), make(chan struct{})
	e.reg.Handle("test.long", func(ctx context.Context, _ *queue.Job) error {
		close(started)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	}, queue.Policy{})
	e.reg.Handle("test.quick", func(context.Context, *queue.Job) error { close(quick); return nil }, queue.Policy{})
	w := e.worker(Options{Wake: e.db.Woken(), Poll: time.Hour})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	defer func() { stop(); <-done }()
	defer close(release)
	e.enqueue(t, "test.long", `{}`, 1)
	<-started
	e.enqueue(t, "test.quick", `{}`, 1)
	select {
	case <-quick:
	case <-time.After(10 * time.Second):
		t.Fatal("a job enqueued while another ran did not start within 10 s (the poll is an hour)")
	}
}
