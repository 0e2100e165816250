package worker

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/trace"
)

// A topic's policy is what its registration says: the queue schedules the
// retry after the registered backoff, gives up after the registered
// attempts, and the handler's context ends after the registered timeout.
func TestRegisteredPolicyDecidesRetries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var left time.Duration
	e.reg.Handle("test.flaky", func(ctx context.Context, _ *queue.Job) error {
		d, _ := ctx.Deadline()
		left = time.Until(d)
		return errors.New("still failing")
	}, queue.Policy{MaxAttempts: 2, Timeout: 3 * time.Second, Backoff: func(int) time.Duration { return 7 * time.Second }})
	e.enqueue(t, "test.flaky", `{}`, 1)
	w := e.worker(Options{})
	if n, _ := w.RunBatch(ctx, 20, time.Second); n != 1 {
		t.Fatalf("first run finished %d jobs; want 1", n)
	}
	if left <= 0 || left > 3*time.Second {
		t.Errorf("handler had %v left; want the registered 3 s timeout", left)
	}
	in, _ := e.q.List(ctx, queue.ListQuery{Topic: "test.flaky", Limit: 1})
	if len(in) != 1 || in[0].State != queue.StateScheduled || in[0].MaxAttempts != 2 ||
		!in[0].RunAt.Equal(e.clock.Now().Add(7*time.Second)) {
		t.Fatalf("after a failure: %+v; want scheduled 7 s later with the registered 2 attempts", in)
	}
	if !strings.Contains(e.logs.String(), `"retry_in":7000000000`) {
		t.Errorf("the retry log line does not say the registered backoff: %s", e.logs.String())
	}
	e.clock.Add(7 * time.Second)
	w.RunBatch(ctx, 20, time.Second)
	if d := e.dead(t); len(d) != 1 || d[0].Attempt != 2 {
		t.Errorf("dead letters after the second failure = %+v; want the job, dead after its 2 registered attempts", d)
	}
	if got := e.reg.Policy("never.registered"); got.MaxAttempts != queue.DefaultMaxAttempts || got.Timeout != queue.DefaultTimeout {
		t.Errorf("policy of an unregistered topic = %+v; want queue.DefaultPolicy", got)
	}
}

// A handler runs with its job's trace in its context, so a job it enqueues
// in a store transaction (a fan-out's deliveries) continues that trace.
func TestHandlerContextCarriesJobTrace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	parent := trace.New()
	e.reg.Handle("test.parent", func(ctx context.Context, _ *queue.Job) error {
		return e.db.Update(ctx, func(tx store.Tx) error {
			return tx.Jobs().Enqueue(queue.NewJob("test.child", []byte(`{}`)))
		})
	}, queue.Policy{})
	e.reg.Handle("test.child", func(context.Context, *queue.Job) error { return nil }, queue.Policy{})
	j := queue.NewJob("test.parent", []byte(`{}`))
	j.Headers = map[string]string{trace.Header: parent.String()}
	if err := e.q.Enqueue(ctx, j); err != nil {
		t.Fatal(err)
	}
	e.worker(Options{}).RunBatch(ctx, 20, 5*time.Second)
	in, _ := e.q.List(ctx, queue.ListQuery{Topic: "test.child", Limit: 1})
	if len(in) != 1 {
		t.Fatalf("child jobs = %d; want 1", len(in))
	}
	got, ok := trace.Parse(in[0].Headers[trace.Header])
	if !ok || got.TraceID != parent.TraceID || got.SpanID == parent.SpanID {
		t.Errorf("child traceparent = %q; want a new span of trace %s", in[0].Headers[trace.Header], parent.TraceID)
	}
}
