package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

var ctx = context.Background()

// TestServeRunsTheWorker: murlog serve runs jobs in-process, woken at
// once by an enqueue, and stops with nothing left running.
func TestServeRunsTheWorker(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	ran := make(chan time.Time, 10)
	s.App.Registry().Handle("test.serve", func(context.Context, *queue.Job) error { ran <- time.Now(); return nil }, queue.Policy{})
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	ready := make(chan net.Addr, 1)
	go func() { done <- app.Serve(sctx, s.App, "127.0.0.1:0", func(a net.Addr) { ready <- a }) }()
	<-ready
	// The worker is idle, waiting, once what setup left (the artifact
	// rebuild of the new site) has run.
	for deadline := time.Now().Add(10 * time.Second); ; {
		busy := 0
		cs, err := s.App.Queue().Counts(ctx)
		for _, c := range cs {
			if c.State == queue.StateRunning || c.State == queue.StatePending {
				busy += c.N
			}
		}
		if err == nil && busy == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs still runnable 10 s after serve started: %+v, %v", cs, err)
		}
		runtime.Gosched()
	}
	start := time.Now()
	if err := s.App.Store().Update(ctx, func(tx store.Tx) error {
		return tx.Jobs().Enqueue(queue.NewJob("test.serve", []byte(`{}`)))
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case at := <-ran:
		if d := at.Sub(start); d > 500*time.Millisecond {
			t.Errorf("the job ran %v after enqueue; want at once", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve's worker never ran the job")
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("Serve = %v", err)
	}
	cs, _ := s.App.Queue().Counts(ctx)
	for _, c := range cs {
		if c.State == queue.StateRunning || c.State == queue.StatePending {
			t.Errorf("after shutdown %d %s jobs of %s; want none", c.N, c.State, c.Topic)
		}
	}
}

// TestTraceFollowsTheJob: a request's trace id is in its log line, in the
// traceparent of the job it enqueued, and in the job's log lines.
func TestTraceFollowsTheJob(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	s.App.Registry().Handle("test.traced", func(context.Context, *queue.Job) error { return nil }, queue.Policy{})
	reqLog := &testsite.SyncBuffer{}
	h := httpd.Log(slog.New(slog.NewJSONHandler(reqLog, nil)), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := s.App.Store().Update(r.Context(), func(tx store.Tx) error {
			return tx.Jobs().Enqueue(queue.NewJob("test.traced", []byte(`{}`)))
		})
		if err != nil {
			http.Error(w, err.Error(), 500)
		}
	}))
	const incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	req := httptest.NewRequest("POST", "/x", nil)
	req.Header.Set("traceparent", incoming)
	h.ServeHTTP(httptest.NewRecorder(), req)
	var line struct {
		TraceID string `json:"trace_id"`
	}
	json.Unmarshal([]byte(strings.TrimSpace(reqLog.String())), &line)
	if line.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("request log trace_id = %q; want the incoming trace", line.TraceID)
	}
	infos, _ := s.App.Queue().List(ctx, queue.ListQuery{Topic: "test.traced", Limit: 1})
	if len(infos) != 1 || !strings.HasPrefix(infos[0].Headers["traceparent"], "00-4bf92f3577b34da6a3ce929d0e0e4736-") {
		t.Fatalf("job headers = %v; want a traceparent in the request's trace", infos)
	}
	s.App.NewWorker("test").RunBatch(ctx, 20, 5*time.Second)
	for _, l := range strings.Split(s.Logs.String(), "\n") {
		if strings.Contains(l, `"job.completed"`) && strings.Contains(l, "test.traced") {
			if !strings.Contains(l, `"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"`) {
				t.Errorf("job log line lacks the request's trace id: %s", l)
			}
			return
		}
	}
	t.Errorf("no job.completed line for the traced job:\n%s", s.Logs)
}

func TestMetricsEndpoint(t *testing.T) {
	t.Parallel()
	const token = "metrics-token-0123456789"
	s := testsite.Start(t, testsite.Options{Env: map[string]string{"MURLOG_METRICS_TOKEN": token}})
	reg := s.App.Registry()
	reg.Handle("test.m.ok", func(context.Context, *queue.Job) error { time.Sleep(30 * time.Millisecond); return nil }, queue.Policy{})
	reg.Handle("test.m.bad", func(context.Context, *queue.Job) error { return queue.Permanent(errors.New("no")) }, queue.Policy{})
	s.App.Store().Update(ctx, func(tx store.Tx) error {
		return tx.Jobs().Enqueue(queue.NewJob("test.m.ok", nil), queue.NewJob("test.m.ok", nil), queue.NewJob("test.m.bad", nil),
			queue.Job{ID: queue.NewJob("x", nil).ID, Topic: "test.m.later", Payload: []byte("{}"), Delay: time.Hour})
	})
	s.App.NewWorker("test").RunBatch(ctx, 20, 5*time.Second)
	get := func(auth string) (int, string) {
		req, _ := http.NewRequest("GET", s.Server.URL+"/metrics", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, _ := get(""); st != 401 {
		t.Errorf("/metrics without a token = %d; want 401", st)
	}
	if st, _ := get("Bearer wrong-token-000000000"); st != 401 {
		t.Errorf("/metrics with a wrong token = %d; want 401", st)
	}
	st, body := get("Bearer " + token)
	if st != 200 {
		t.Fatalf("/metrics = %d; want 200", st)
	}
	for _, want := range []string{
		`# TYPE queue_depth gauge`,
		`queue_depth{topic="test.m.ok",state="done"} 2`,
		`queue_depth{topic="test.m.bad",state="dead"} 1`,
		`queue_depth{topic="test.m.later",state="scheduled"} 1`,
		`queue_enqueued_total{topic="test.m.ok"} 2`,
		`queue_processed_total{topic="test.m.ok",result="success"} 2`,
		`queue_processed_total{topic="test.m.bad",result="dead"} 1`,
		`queue_dlq_total{topic="test.m.bad"} 1`,
		`# TYPE queue_duration_seconds histogram`,
		// The two runs sleep 30 ms each: never in a bucket below that.
		// Where above it they land depends on the machine's load.
		`queue_duration_seconds_bucket{topic="test.m.ok",le="0.025"} 0`,
		`queue_duration_seconds_bucket{topic="test.m.ok",le="+Inf"} 2`,
		`queue_duration_seconds_count{topic="test.m.ok"} 2`,
		`# TYPE worker_concurrency gauge`,
		"worker_concurrency 0",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q\n%s", want, body)
		}
	}
	// Off when no token is configured.
	off := testsite.New(t)
	resp, err := http.Get(off.Server.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("/metrics without metrics_token configured = %d; want 404", resp.StatusCode)
	}
}

// TestQueueMigrationWiring runs murlog configured for phase 2 of a queue
// migration (dual write, reading the secondary): a job enqueued in a
// write transaction lands in the embedded queue, and `murlog worker
// --once` relays it to the secondary and runs it there.
func TestQueueMigrationWiring(t *testing.T) {
	t.Parallel()
	env := map[string]string{"MURLOG_QUEUE_DUAL_WRITE": "sqlite:./data/next.db", "MURLOG_QUEUE_READ_FROM": "secondary"}
	s := testsite.Start(t, testsite.Options{Env: env})
	j := queue.NewJob("queue.noop", []byte(`{}`))
	if err := s.App.Store().Update(ctx, func(tx store.Tx) error { return tx.Jobs().Enqueue(j) }); err != nil {
		t.Fatal(err)
	}
	logs := &testsite.SyncBuffer{}
	n, err := app.RunWorker(ctx, app.Options{ConfigPath: filepath.Join(s.Dir, "murlog.ini"),
		Getenv: func(k string) string { return s.Env[k] }, Logger: slog.New(slog.NewJSONHandler(logs, nil)), Stderr: logs}, true)
	if err != nil {
		t.Fatalf("RunWorker: %v\n%s", err, logs)
	}
	if n < 1 {
		t.Fatalf("RunWorker ran %d jobs; want the relayed one", n)
	}
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, j.ID) && strings.Contains(l, "job.completed") {
			line = l
		}
	}
	if !strings.Contains(line, `"queue.provider":"switch(old=sqlite, new=sqlite, read=new, write=both)"`) {
		t.Errorf("the job did not run through the migration switch reading the secondary: %q\n%s", line, logs)
	}
	// The embedded queue's copy was moved: acked done there.
	done, _ := s.App.Queue().List(ctx, queue.ListQuery{State: queue.StateDone, Limit: 100})
	moved := false
	for _, in := range done {
		moved = moved || in.ID == j.ID
	}
	if !moved {
		t.Errorf("the embedded queue's copy of the job is not done after the relay: %v", done)
	}
}
