package sqlite

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog/queue"
)

// BenchmarkQueueCycle measures sustained enqueue → claim → ack on a file
// database in WAL: producers enqueue one job per transaction (as requests
// do), one consumer claims batches of 32 and acks each batch in one
// transaction (as the worker does). b.N jobs go through the whole cycle.
func BenchmarkQueueCycle(b *testing.B) {
	db := MustOpen(b, nil)
	q := queue.New(db.Queue(), queue.Options{})
	payload := []byte(`{"post_id":"01a22c96-7857-70f9-bbb4-7a4a6ae66d4f","inbox":"https://remote.example/inbox"}`)
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < b.N; i++ {
			if err := q.Enqueue(ctx, queue.NewJob("deliver_note", payload)); err != nil {
				b.Error(err)
				return
			}
		}
	}()
	done := 0
	for done < b.N {
		js, err := q.DequeueBatch(ctx, nil, 32)
		if err != nil {
			b.Fatal(err)
		}
		if len(js) == 0 {
			time.Sleep(100 * time.Microsecond)
			continue
		}
		acks := make([]queue.Ack, len(js))
		for i, j := range js {
			acks[i] = queue.Ack{Job: j, Result: queue.Result{Status: queue.Success, Duration: time.Millisecond}}
		}
		if err := q.AckBatch(ctx, acks); err != nil {
			b.Fatal(err)
		}
		done += len(js)
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "jobs/s")
}

// BenchmarkFanoutEnqueue10k enqueues 10,000 jobs as a fan-out does: pages
// of 100, one EnqueueBatch (one transaction) per page.
func BenchmarkFanoutEnqueue10k(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db := MustOpen(b, nil)
		q := queue.New(db.Queue(), queue.Options{})
		pages := make([][]queue.Job, 100)
		for p := range pages {
			for k := 0; k < 100; k++ {
				pages[p] = append(pages[p], queue.NewJob("deliver_note", []byte(`{"follower":"https://remote.example/users/x"}`)))
			}
		}
		b.StartTimer()
		for _, pg := range pages {
			if err := q.EnqueueBatch(ctx, pg); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkClaim measures one claim of a batch of 20 plus its ack, with an
// empty history and with 100,000 completed jobs in the table.
func BenchmarkClaim(b *testing.B) {
	for _, done := range []int{0, 100000} {
		b.Run(map[int]string{0: "empty", 100000: "100k-done"}[done], func(b *testing.B) {
			db := MustOpen(b, nil)
			q := queue.New(db.Queue(), queue.Options{})
			ctx := context.Background()
			fill := func(n int, status queue.Status) {
				for n > 0 {
					k := min(n, 1000)
					var js []queue.Job
					for i := 0; i < k; i++ {
						js = append(js, queue.NewJob("deliver_note", []byte(`{}`)))
					}
					if err := q.EnqueueBatch(ctx, js); err != nil {
						b.Fatal(err)
					}
					claimed, _ := q.DequeueBatch(ctx, nil, k)
					if status == queue.Released {
						n -= k
						for _, j := range claimed {
							q.Ack(ctx, j, queue.Result{Status: queue.Released})
						}
						continue
					}
					acks := make([]queue.Ack, len(claimed))
					for i, j := range claimed {
						acks[i] = queue.Ack{Job: j, Result: queue.Result{Status: status}}
					}
					q.AckBatch(ctx, acks)
					n -= k
				}
			}
			fill(done, queue.Success)
			var lat []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				var js []queue.Job
				for k := 0; k < 20; k++ {
					js = append(js, queue.NewJob("deliver_note", []byte(`{}`)))
				}
				q.EnqueueBatch(ctx, js)
				b.StartTimer()
				t0 := time.Now()
				claimed, err := q.DequeueBatch(ctx, nil, 20)
				if err != nil || len(claimed) != 20 {
					b.Fatalf("claimed %d, %v", len(claimed), err)
				}
				lat = append(lat, time.Since(t0))
				acks := make([]queue.Ack, len(claimed))
				for k, j := range claimed {
					acks[k] = queue.Ack{Job: j, Result: queue.Result{Status: queue.Success}}
				}
				q.AckBatch(ctx, acks)
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "claim-p50-µs")
		})
	}
}

// BenchmarkEnqueue is one job per transaction, as a request enqueues.
func BenchmarkEnqueue(b *testing.B) {
	db := MustOpen(b, nil)
	q := queue.New(db.Queue(), queue.Options{})
	ctx := context.Background()
	payload := []byte(`{"post_id":"01a22c96-7857-70f9-bbb4-7a4a6ae66d4f"}`)
	for i := 0; i < b.N; i++ {
		if err := q.Enqueue(ctx, queue.NewJob("deliver_note", payload)); err != nil {
			b.Fatal(err)
		}
	}
}
