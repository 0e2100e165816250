package worker

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/queue"
)

// The diagnostics topic sleeps, then succeeds, fails or panics as asked;
// payloads it cannot honour go to the dead letters at once with the reason.
func TestSleepDiagnosticsTopic(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	RegisterMaintenance(e.reg, e.q, e.db, e.clock.Now)
	if !slices.Contains(e.reg.Topics(), TopicSleep) {
		t.Fatalf("RegisterMaintenance registers %v; want %s among them", e.reg.Topics(), TopicSleep)
	}
	type want struct {
		state  queue.State
		reason string // in last_error
	}
	cases := map[string]want{
		`{"ms":60}`:             {queue.StateDone, ""},
		`{}`:                    {queue.StateDone, ""},
		``:                      {queue.StateDone, ""},
		`{"ms":10,"fail":true}`: {queue.StateDead, "queue.sleep: failure requested by the payload"},
		`{"panic":true}`:        {queue.StateDead, "panic: queue.sleep: panic requested by the payload"},
		`{"ms":10001}`:          {queue.StateDead, "ms must be 0–10000, not 10001"},
		`{"ms":-1}`:             {queue.StateDead, "ms must be 0–10000, not -1"},
		`{"ms":"soon"}`:         {queue.StateDead, "payload of queue.sleep does not decode"},
		`{not json`:             {queue.StateDead, "payload of queue.sleep does not decode"},
	}
	ids := map[string]string{}
	for payload := range cases {
		j := queue.NewJob(TopicSleep, []byte(payload))
		j.MaxAttempts = 1 // a failure is final: no backoff to wait for
		if err := e.q.Enqueue(ctx, j); err != nil {
			t.Fatalf("enqueue %q: %v", payload, err)
		}
		ids[j.ID] = payload
	}
	start := time.Now()
	n, err := e.worker(Options{}).RunBatch(ctx, 20, 5*time.Second)
	if err != nil || n != len(cases) {
		t.Fatalf("RunBatch = %d, %v; want %d jobs finished", n, err, len(cases))
	}
	if d := time.Since(start); d < 60*time.Millisecond || d > 3*time.Second {
		t.Errorf("the batch took %v; want the 60 ms sleep honoured (and no more than a few seconds)", d)
	}
	seen := 0
	for _, st := range []queue.State{queue.StateDone, queue.StateDead} {
		in, err := e.q.List(ctx, queue.ListQuery{State: st, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range in {
			payload, ok := ids[j.ID]
			if !ok {
				continue
			}
			seen++
			w := cases[payload]
			if j.State != w.state || !strings.Contains(j.LastError, w.reason) || (w.reason == "") != (j.LastError == "") {
				t.Errorf("payload %q: %s, last_error %q; want %s with %q", payload, j.State, j.LastError, w.state, w.reason)
			}
			if j.Attempt != 1 {
				t.Errorf("payload %q: %d attempts; want 1", payload, j.Attempt)
			}
		}
	}
	if seen != len(cases) {
		t.Errorf("found %d of the %d jobs done or dead", seen, len(cases))
	}
}

// A sleeping job gives way when its context ends (timeout or shutdown).
func TestSleepHonoursCancellation(t *testing.T) {
	t.Parallel()
	cctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := runSleep(cctx, &queue.Job{Topic: TopicSleep, Payload: []byte(`{"ms":10000}`)})
	if !errors.Is(err, context.DeadlineExceeded) || queue.IsPermanent(err) {
		t.Errorf("runSleep under a 30 ms deadline = %v; want a retryable context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("runSleep returned after %v; want soon after the deadline", d)
	}
}
