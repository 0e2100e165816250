package fanout_test

import (
	"context"
	"testing"
	"time"

	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/fanout"
)

// BenchmarkFanout10k is the issue's target, "fan-out enqueue of 10,000
// jobs: ≤ 0.5 s": one Run over 10,000 recipients on a database file in
// WAL, pages of 100, the dead set read through the breaker (with two dead
// domains, so the URL of every recipient is checked). Each
// iteration starts from an empty queue; s/fanout is the figure to compare
// with the target. Recipients have UUIDv7 ids, as rows of a followers
// table would.
func BenchmarkFanout10k(b *testing.B) {
	rs := uuidRecipients(10000)
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db := openDB(b)
		breaker := domains.New(db)
		for _, d := range []string{"d07.example", "d42.example"} {
			for k := 0; k < domains.DeadThreshold; k++ {
				if err := breaker.Failure(ctx, d, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
		p := &pager{rs: rs}
		b.StartTimer()
		start := time.Now()
		st, err := fanout.Run(context.Background(), db, p.page, fanout.Options{Key: parent, Build: build, Dead: breaker.DeadSet})
		elapsed += time.Since(start)
		if err != nil || st.Enqueued != 9800 {
			b.Fatalf("Run = %+v, %v; want 9,800 jobs", st, err)
		}
		b.StopTimer()
		db.Close()
	}
	b.ReportMetric(elapsed.Seconds()/float64(b.N), "s/fanout")
}
