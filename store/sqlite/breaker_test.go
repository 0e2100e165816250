package sqlite

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/store"
)

// TestWriteBreakerOpensOnFailuresAndCloses: writes that fail on the
// database open the breaker after BreakerFailures in a row; while open,
// a write is refused at once with Retry-After and fn never runs; after the
// cooldown one write is let through and its success closes it. Writes
// refused for their own input, or abandoned by their caller, do not count.
func TestWriteBreakerOpensOnFailuresAndCloses(t *testing.T) {
	t.Parallel()
	db := MustOpen(t, nil)
	var mu sync.Mutex
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	db.breaker.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	ctx := context.Background()
	busy := &murlog.Error{Code: murlog.EUnavailable, Message: "database is busy, try again"}
	for range 3 * BreakerFailures {
		db.Update(ctx, func(store.Tx) error { return murlog.Invalid("content", "is empty") })
		db.Update(ctx, func(store.Tx) error { return context.Canceled })
	}
	if db.WriteBreakerOpen() {
		t.Fatal("input errors and abandoned writes opened the breaker")
	}
	for i := range BreakerFailures {
		if db.WriteBreakerOpen() {
			t.Fatalf("open after %d failures; want %d", i, BreakerFailures)
		}
		db.Update(ctx, func(store.Tx) error { return fmt.Errorf("write: %w", busy) })
	}
	if !db.WriteBreakerOpen() {
		t.Fatal("not open after the failures")
	}
	ran := false
	err := db.Update(ctx, func(store.Tx) error { ran = true; return nil })
	var e *murlog.Error
	if ran || !errors.As(err, &e) || e.Code != murlog.EUnavailable || e.RetryAfter <= 0 || e.RetryAfter > BreakerCooldown {
		t.Fatalf("a write while open: ran %v, %v; want refused at once, unavailable with Retry-After ≤ %v", ran, err, BreakerCooldown)
	}
	// Reads go on.
	if err := db.View(ctx, func(tx store.Tx) error { _, err := tx.Settings().Get("x"); return ignoreNotFound(err) }); err != nil {
		t.Errorf("a read while the write breaker is open: %v", err)
	}
	advance(BreakerCooldown)
	if err := db.Update(ctx, func(tx store.Tx) error { return tx.Settings().Set("k", "v") }); err != nil {
		t.Fatalf("the trial write after the cooldown: %v", err)
	}
	if db.WriteBreakerOpen() {
		t.Error("still open after a successful write")
	}
	// A failed trial opens it again at once.
	for range BreakerFailures {
		db.Update(ctx, func(store.Tx) error { return busy })
	}
	advance(BreakerCooldown)
	db.Update(ctx, func(store.Tx) error { return busy })
	if !db.WriteBreakerOpen() {
		t.Error("a failed trial write left the breaker closed")
	}
}

// TestWriteBreakerShedsASaturatedWriter: with MaxWaitingWrites writes
// holding or waiting for the writer, the next is refused at once with
// Retry-After instead of queueing; once they finish, writes go through.
func TestWriteBreakerShedsASaturatedWriter(t *testing.T) {
	t.Parallel()
	db := MustOpen(t, nil)
	drops := &dbstat.Counter{}
	db.opts.Statements = drops
	ctx := context.Background()
	release := make(chan struct{})
	inside := make(chan struct{})
	var wg sync.WaitGroup
	var first sync.Once
	errs := make(chan error, MaxWaitingWrites)
	for range MaxWaitingWrites {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- db.Update(ctx, func(tx store.Tx) error {
				first.Do(func() { close(inside) }) // whichever got the writer
				<-release
				return nil
			})
		}()
	}
	<-inside // one holds the writer; wait until the others are counted
	for db.breaker.waiting.Load() < MaxWaitingWrites {
		runtime.Gosched() // the others are counted before they queue for the writer
	}
	start := time.Now()
	err := db.Update(ctx, func(store.Tx) error { t.Error("the write over the limit ran"); return nil })
	var e *murlog.Error
	if !errors.As(err, &e) || e.Code != murlog.EUnavailable || e.RetryAfter != time.Second {
		t.Errorf("the write over the limit: %v; want unavailable, Retry-After 1 s", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the refusal took %v; want it at once", d)
	}
	if n := drops.DropCounts()[dbstat.ShieldWriteBreaker]; n != 1 {
		t.Errorf("write_breaker drops: %d; want 1", n)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("an admitted write: %v", err)
		}
	}
	if err := db.Update(ctx, func(tx store.Tx) error { return tx.Settings().Set("k", "v") }); err != nil {
		t.Errorf("a write after the crowd: %v", err)
	}
	if db.WriteBreakerOpen() {
		t.Error("shedding a crowd opened the failure breaker")
	}
}

func ignoreNotFound(err error) error {
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil
	}
	return err
}
