package worker

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog/queue"
)

// BenchmarkWorkerCycle is the whole path a job takes: a producer enqueues
// one job per transaction while a resident worker claims, runs (a no-op
// handler) and acks them in batches. jobs/s is sustained throughput on a
// file database in WAL.
func BenchmarkWorkerCycle(b *testing.B) {
	e := newEnv(b)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	finished := make(chan struct{})
	e.reg.Handle("bench.noop", func(context.Context, *queue.Job) error {
		mu.Lock()
		done++
		if done == b.N {
			close(finished)
		}
		mu.Unlock()
		return nil
	}, queue.Policy{})
	w := e.worker(Options{Wake: e.db.Woken(), Logger: discard()})
	ctx, cancel := context.WithCancel(context.Background())
	wg.Add(1)
	go func() { defer wg.Done(); w.Run(ctx) }()
	payload := []byte(`{"post_id":"01a22c96-7857-70f9-bbb4-7a4a6ae66d4f"}`)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := e.q.Enqueue(context.Background(), queue.NewJob("bench.noop", payload)); err != nil {
			b.Fatal(err)
		}
	}
	<-finished
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	wg.Wait()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
