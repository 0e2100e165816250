package inbox

import (
	"context"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
)

// TestBatcherAdmitsWhatTheWriterStoresInASecond: the room follows the
// writer's transaction times, between MaxItems and Queue, and a full room
// refuses at once with 503 and Retry-After, counted as inbox_busy.
func TestBatcherAdmitsWhatTheWriterStoresInASecond(t *testing.T) {
	t.Parallel()
	b := newBatcher(sqlitetest.Open(t, sqlite.Options{}), BatchOptions{MaxItems: 10, Queue: 100})
	for _, tc := range []struct {
		took time.Duration
		want int64 // after many transactions of took
	}{
		{time.Millisecond, 100},       // 10 000 a second: the whole queue
		{100 * time.Millisecond, 100}, // 10 × 10 = 100
		{250 * time.Millisecond, 40},
		{5 * time.Second, 10}, // never below one transaction's worth
	} {
		for range 40 {
			b.measure(tc.took)
		}
		if got := b.room.Load(); got < tc.want-1 || got > tc.want+1 {
			t.Errorf("room after transactions of %v = %d; want about %d", tc.took, got, tc.want)
		}
	}
	// The room is 10: with 10 waiting (the writer not running), the next
	// is refused at once.
	for range 10 {
		b.ch <- &pending{}
	}
	drops := &dbstat.Counter{}
	start := time.Now()
	err := b.submit(dbstat.WithCounter(context.Background(), drops), &pending{id: "x"})
	e := murlog.AsError(err)
	if e.Code != murlog.EUnavailable || e.RetryAfter != BusyRetry || time.Since(start) > submitWait {
		t.Errorf("submit into a full room: %v (retry %v) after %v; want unavailable, retry %v, at once", err, e.RetryAfter, time.Since(start), BusyRetry)
	}
	if n := drops.DropCounts()[dbstat.ShieldInboxBusy]; n != 1 {
		t.Errorf("inbox_busy drops = %d; want 1", n)
	}
}
