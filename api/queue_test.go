package api_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

type jobResult struct {
	ID        string `json:"id"`
	Topic     string `json:"topic"`
	State     string `json:"state"`
	LastError string `json:"last_error"`
	DeadTopic string `json:"dead_topic"`
	Attempt   int    `json:"attempt"`
}

func TestQueueMethods(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	reg := s.App.Registry()
	reg.Handle("test.fail", func(ctx context.Context, j *queue.Job) error { return queue.Permanent(errors.New("gone for good")) }, queue.Policy{})
	reg.Handle("test.ok", func(ctx context.Context, j *queue.Job) error { return nil }, queue.Policy{})
	var failed queue.Job
	err := s.App.Store().Update(ctx, func(tx store.Tx) error {
		failed = queue.NewJob("test.fail", []byte(`{"why":"demo"}`))
		return tx.Jobs().Enqueue(failed, queue.NewJob("test.ok", []byte(`{}`)), queue.NewJob("test.ok", []byte(`{}`)))
	})
	if err != nil {
		t.Fatal(err)
	}
	var stats map[string]any
	if err := s.Client.Call(ctx, "queue.stats", nil, &stats); err != nil {
		t.Fatal(err)
	}
	// Of the test's topics: the site's own jobs (the artifact rebuilds of
	// its setup) are in the totals too.
	topic := func(name, state string) any {
		ts, _ := stats["topics"].(map[string]any)
		st, _ := ts[name].(map[string]any)
		return st[state]
	}
	if topic("test.ok", "pending") != float64(2) || topic("test.fail", "pending") != float64(1) || stats["dead"] != float64(0) {
		t.Errorf("queue.stats before running = %v; want 3 pending", stats)
	}
	if _, err := s.App.NewWorker("test").RunBatch(ctx, 20, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	s.Client.Call(ctx, "queue.stats", nil, &stats)
	if topic("test.ok", "done") != float64(2) || topic("test.fail", "dead") != float64(1) || stats["pending"] != float64(0) {
		t.Errorf("queue.stats after running = %v; want 2 done, 1 dead", stats)
	}
	var dead struct {
		Items      []jobResult `json:"items"`
		NextCursor *string     `json:"next_cursor"`
	}
	if err := s.Client.Call(ctx, "queue.list", map[string]any{"state": "dead"}, &dead); err != nil {
		t.Fatal(err)
	}
	if len(dead.Items) != 1 || dead.Items[0].ID != failed.ID || dead.Items[0].LastError != "gone for good" || dead.Items[0].DeadTopic != "test.fail.dead" {
		t.Fatalf("queue.list(dead) = %+v; want the failed job with its reason, addressed as test.fail.dead", dead.Items)
	}
	if err := s.Client.Call(ctx, "queue.retry", map[string]string{"id": failed.ID}, nil); err != nil {
		t.Fatal(err)
	}
	s.Client.Call(ctx, "queue.stats", nil, &stats)
	if stats["pending"] != float64(1) || stats["dead"] != float64(0) {
		t.Errorf("after queue.retry: %v; want the job pending again", stats)
	}
	s.App.NewWorker("test").RunBatch(ctx, 20, 5*time.Second)
	if err := s.Client.Call(ctx, "queue.dismiss", map[string]string{"id": failed.ID}, nil); err != nil {
		t.Fatal(err)
	}
	s.Client.Call(ctx, "queue.stats", nil, &stats)
	if stats["dead"] != float64(0) {
		t.Errorf("after queue.dismiss: %v; want no dead jobs", stats)
	}
	rpcErr(t, "dismiss twice", s.Client.Call(ctx, "queue.dismiss", map[string]string{"id": failed.ID}, nil), -32001, "not_found", 404)
	rpcErr(t, "retry a done job", s.Client.Call(ctx, "queue.retry", map[string]string{"id": dead.Items[0].ID}, nil), -32001, "not_found", 404)
	rpcErr(t, "bad state", s.Client.Call(ctx, "queue.list", map[string]any{"state": "exploded"}, nil), -32602, "invalid", 400)
	rpcErr(t, "bad id", s.Client.Call(ctx, "queue.retry", map[string]string{"id": "x"}, nil), -32602, "invalid", 400)
	if err := s.Client.Call(ctx, "queue.tick", nil, nil); err != nil {
		t.Errorf("queue.tick: %v", err)
	}
	var vac map[string]int
	if err := s.Client.Call(ctx, "queue.vacuum", nil, &vac); err != nil || vac["deleted"] != 0 {
		t.Errorf("queue.vacuum = %v, %v; want 0 deleted (nothing is 7 days old)", vac, err)
	}
	anon := s.NewClient()
	for _, m := range []string{"queue.stats", "queue.list", "queue.tick", "queue.vacuum"} {
		rpcErr(t, "anonymous "+m, anon.Call(ctx, m, nil, nil), -32000, "unauthorized", 401)
	}
}

func TestQueueListPages(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var js []queue.Job
	for i := 0; i < 45; i++ {
		js = append(js, queue.NewJob("test.page", []byte(`{}`)))
	}
	s.App.Store().Update(ctx, func(tx store.Tx) error { return tx.Jobs().Enqueue(js...) })
	seen, cursor := 0, ""
	for pages := 0; pages < 5; pages++ {
		var pg struct {
			Items      []jobResult `json:"items"`
			NextCursor *string     `json:"next_cursor"`
		}
		params := map[string]any{"limit": 20, "topic": "test.page"}
		if cursor != "" {
			params["cursor"] = cursor
		}
		if err := s.Client.Call(ctx, "queue.list", params, &pg); err != nil {
			t.Fatal(err)
		}
		seen += len(pg.Items)
		if pg.NextCursor == nil {
			break
		}
		cursor = *pg.NextCursor
	}
	if seen != 45 {
		t.Errorf("paged %d jobs; want 45", seen)
	}
}
