package worker

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/queue/queuetest"
)

// The worker's side of leases: it renews what it holds while handlers
// run, gives up a job whose lease was lost without acking it, and a
// --once worker finishes the jobs of a worker that died holding them.

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// until polls cond every millisecond for up to 10 s.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("waited 10 s for %s", what)
		case <-tick.C:
		}
	}
}

// leaseOf returns the lease of the running job id (zero when it is not
// running).
func (e *env) leaseOf(t *testing.T, id string) (time.Time, int) {
	t.Helper()
	infos, err := e.q.List(ctx, queue.ListQuery{State: queue.StateRunning, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if in.ID == id && in.LeaseUntil != nil {
			return *in.LeaseUntil, in.Attempt
		}
	}
	return time.Time{}, 0
}

// TestWorkerRenewsWhileAHandlerRuns: a handler that runs past its lease
// keeps its job — the worker renews every half lease — so the job is not
// recovered or claimed by anyone else, and it finishes once, attempt 1.
func TestWorkerRenewsWhileAHandlerRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	started, release := make(chan struct{}), make(chan struct{})
	e.reg.Handle("test.long", func(ctx context.Context, _ *queue.Job) error {
		close(started)
		<-release
		return nil
	}, queue.Policy{Timeout: time.Hour})
	j := queue.NewJob("test.long", []byte(`{}`))
	must(t, e.q.Enqueue(ctx, j))
	w := e.worker(Options{Clock: e.clock})
	done := make(chan int)
	go func() {
		n, err := w.RunBatch(ctx, 1, time.Minute)
		if err != nil {
			t.Error(err)
		}
		done <- n
	}()
	<-started
	lease := e.q.Lease()
	claimedAt := e.clock.Now()
	if got, _ := e.leaseOf(t, j.ID); !got.Equal(claimedAt.Add(lease)) {
		t.Fatalf("lease after the claim = %v; want %v", got, claimedAt.Add(lease))
	}
	e.clock.Add(lease * 2 / 3) // past the renewal time, under the lease
	until(t, "the lease renewed", func() bool {
		got, _ := e.leaseOf(t, j.ID)
		return got.Equal(e.clock.Now().Add(lease))
	})
	e.clock.Add(lease * 2 / 3) // past the first lease: only the renewal holds it
	if n, err := e.q.RecoverExpired(ctx); err != nil || n != 0 {
		t.Errorf("RecoverExpired %v after the claim = %d, %v; want 0 (the running job's lease was renewed)", e.clock.Now().Sub(claimedAt), n, err)
	}
	if js, err := e.q.DequeueBatch(ctx, nil, 10); err != nil || len(js) != 0 {
		t.Errorf("another worker claimed %v, %v while the job ran; want nothing", js, err)
	}
	close(release)
	if n := <-done; n != 1 {
		t.Errorf("RunBatch finished %d jobs; want 1", n)
	}
	infos, err := e.q.List(ctx, queue.ListQuery{State: queue.StateDone, Limit: 10})
	if err != nil || len(infos) != 1 || infos[0].Attempt != 1 {
		t.Errorf("done jobs = %+v, %v; want the job, done after one attempt", infos, err)
	}
}

// TestLostLeaseIsNotAcked: when the queue says a running job's lease was
// lost (it ran out, and another worker claimed the job), the worker
// cancels the handler and does not ack: the other claim's outcome stands.
// The worker's renewals run on a clock of their own here, so that the
// lease runs out before the worker renews it.
func TestLostLeaseIsNotAcked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	renewals := queuetest.NewClock()
	started, cause := make(chan struct{}), make(chan error, 1)
	e.reg.Handle("test.lost", func(ctx context.Context, _ *queue.Job) error {
		close(started)
		<-ctx.Done()
		cause <- context.Cause(ctx)
		return ctx.Err()
	}, queue.Policy{Timeout: time.Hour})
	j := queue.NewJob("test.lost", []byte(`{}`))
	must(t, e.q.Enqueue(ctx, j))
	w := e.worker(Options{Clock: renewals})
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- w.Run(rctx) }()
	<-started
	e.clock.Add(e.q.Lease() + time.Second)
	if n, err := e.q.RecoverExpired(ctx); err != nil || n != 1 {
		t.Fatalf("RecoverExpired = %d, %v; want the job whose lease ran out", n, err)
	}
	other, err := e.q.DequeueBatch(ctx, []string{"test.lost"}, 1)
	if err != nil || len(other) != 1 || other[0].Attempt != 2 {
		t.Fatalf("the other worker's claim = %v, %v; want the job, attempt 2", other, err)
	}
	renewals.Add(queue.RenewEvery(e.q.Lease()))
	select {
	case err := <-cause:
		if !errors.Is(err, errLeaseLost) {
			t.Errorf("the handler's context ended with %v; want the lost lease", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler of a job whose lease was lost was not cancelled")
	}
	until(t, "the lost job logged", func() bool { return strings.Contains(e.logs.String(), `"event":"job.lost"`) })
	stop()
	if err := <-done; err != nil {
		t.Errorf("Run = %v", err)
	}
	if _, attempt := e.leaseOf(t, j.ID); attempt != 2 {
		t.Errorf("after the first worker gave the job up it is at attempt %d; want still running under the other claim (2)", attempt)
	}
	if strings.Contains(e.logs.String(), `"event":"job.retry"`) || strings.Contains(e.logs.String(), `"event":"job.released"`) {
		t.Errorf("the worker that lost the lease logged an outcome for the job:\n%s", e.logs)
	}
	must(t, e.q.Ack(ctx, other[0], queue.Result{Status: queue.Success}))
	if infos, _ := e.q.List(ctx, queue.ListQuery{State: queue.StateDone, Limit: 10}); len(infos) != 1 || infos[0].Attempt != 2 {
		t.Errorf("done = %+v; want the other claim's outcome", infos)
	}
}

// TestOnceWorkerFinishesADeadWorkersJobs: a `worker --once` that finds
// jobs left running by a worker that died waits for their leases to run
// out, recovers them and runs them before it exits. Jobs whose worker is
// alive — it renews or finishes them — it leaves alone.
func TestOnceWorkerFinishesADeadWorkersJobs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var mu sync.Mutex
	ran := map[string]int{}
	ranOf := func(id string) int { mu.Lock(); defer mu.Unlock(); return ran[id] }
	e.reg.Handle("test.x", func(_ context.Context, j *queue.Job) error {
		mu.Lock()
		ran[j.ID] = j.Attempt
		mu.Unlock()
		return nil
	}, queue.Policy{})
	e.reg.Handle("test.live", func(context.Context, *queue.Job) error { return nil }, queue.Policy{})
	RegisterMaintenance(e.reg, e.q, e.db, e.clock.Now)
	e.enqueue(t, "test.x", `{}`, 3)
	dead, err := e.q.DequeueBatch(ctx, nil, 3) // the worker that is then killed
	if err != nil || len(dead) != 3 {
		t.Fatalf("claim = %v, %v", dead, err)
	}
	e.enqueue(t, "test.x", `{}`, 2)
	w := e.worker(Options{Clock: e.clock, Poll: 5 * time.Millisecond})
	done := make(chan int)
	runOnce := func() {
		n, err := w.RunOnce(ctx, time.Hour)
		if err != nil {
			t.Error(err)
		}
		done <- n
	}
	awaiting := func(what string) {
		t.Helper()
		until(t, what, func() bool { return strings.Contains(e.logs.String(), `"msg":"worker.awaiting_leases"`) })
		e.logs.mu.Lock()
		e.logs.b.Reset()
		e.logs.mu.Unlock()
	}
	go runOnce()
	awaiting("the worker waiting for the dead worker's leases")
	mu.Lock()
	if len(ran) != 2 {
		t.Errorf("before the leases ran out the worker ran %d jobs; want the 2 nobody held", len(ran))
	}
	mu.Unlock()
	e.clock.Add(e.q.Lease() + time.Second)
	if n := <-done; n != 6 { // 5 test jobs and the hour's clean-up
		t.Errorf("RunOnce finished %d jobs; want 6", n)
	}
	for _, j := range dead {
		if a := ranOf(j.ID); a != 2 {
			t.Errorf("the dead worker's job %s ran as attempt %d; want 2 (recovered)", j.ID, a)
		}
	}

	// A job whose worker renews it, or finishes it, is not recovered: the
	// --once worker stops waiting and exits.
	for _, finish := range []bool{false, true} {
		e.enqueue(t, "test.live", `{}`, 1)
		live, err := e.q.DequeueBatch(ctx, []string{"test.live"}, 1)
		if err != nil || len(live) != 1 {
			t.Fatalf("claim = %v, %v", live, err)
		}
		go runOnce()
		awaiting("the worker waiting for a live worker's lease")
		if finish {
			must(t, e.q.Ack(ctx, live[0], queue.Result{Status: queue.Success}))
		} else {
			e.clock.Add(e.q.Lease() / 2)
			if held, err := e.q.Renew(ctx, live); err != nil || !held[0] {
				t.Fatalf("Renew = %v, %v", held, err)
			}
		}
		if n := <-done; n != 0 {
			t.Errorf("RunOnce beside a live worker (finishing its job: %v) finished %d jobs; want 0", finish, n)
		}
		if _, attempt := e.leaseOf(t, live[0].ID); !finish && attempt != 1 {
			t.Errorf("the live worker's job is at attempt %d; want still running, attempt 1", attempt)
		}
		if finish {
			continue
		}
		must(t, e.q.Ack(ctx, live[0], queue.Result{Status: queue.Success}))
	}
}
