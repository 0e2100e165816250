package storetest

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// testShieldCounters: hits add up per key and window, windows and keys
// are apart, a rolled-back hit counts nothing, Reap drops only windows
// before its time, and bad input is refused.
func testShieldCounters(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	w0 := c.t.Truncate(time.Minute)
	w1 := w0.Add(time.Minute)
	hit := func(key string, w time.Time, n int) int {
		t.Helper()
		var got int
		update(t, s, func(tx store.Tx) (err error) { got, err = tx.ShieldCounters().Hit(key, w, n); return })
		return got
	}
	steps := []struct {
		key  string
		w    time.Time
		n    int
		want int
	}{
		{"inbox:198.51.100.0/24", w0, 1, 1},
		{"inbox:198.51.100.0/24", w0, 1, 2},
		{"inbox:198.51.100.0/24", w0, 5, 7},
		{"search:198.51.100.0/24", w0, 1, 1}, // another key
		{"inbox:198.51.100.0/24", w1, 1, 1},  // another window
		{"inbox:2001:db8:1::/48", w1, 3, 3},
	}
	for _, st := range steps {
		if got := hit(st.key, st.w, st.n); got != st.want {
			t.Errorf("Hit(%q, %v, %d) = %d; want %d", st.key, st.w.Format("15:04"), st.n, got, st.want)
		}
	}
	// A hit in a write that fails is not counted.
	boom := errors.New("boom")
	if err := s.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.ShieldCounters().Hit("inbox:198.51.100.0/24", w0, 100); err != nil {
			return err
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("Update = %v; want boom", err)
	}
	if got := hit("inbox:198.51.100.0/24", w0, 1); got != 8 {
		t.Errorf("count after a rolled-back hit of 100 and one more = %d; want 8", got)
	}
	// Reap drops the windows before its time, no others.
	var reaped int
	update(t, s, func(tx store.Tx) (err error) { reaped, err = tx.ShieldCounters().Reap(w1); return })
	if reaped != 2 {
		t.Errorf("Reap(before the second window) = %d; want 2 (the first window's two keys)", reaped)
	}
	if got := hit("inbox:198.51.100.0/24", w0, 1); got != 1 {
		t.Errorf("first window after Reap = %d; want 1 (begun again)", got)
	}
	if got := hit("inbox:198.51.100.0/24", w1, 1); got != 2 {
		t.Errorf("second window after Reap = %d; want 2 (kept)", got)
	}
	// Bad input, refused with nothing counted.
	bad := []struct {
		key string
		n   int
	}{{"", 1}, {strings.Repeat("k", store.MaxShieldKey+1), 1}, {"inbox:x", 0}, {"inbox:x", -1}, {"inbox:x", store.MaxShieldHit + 1}}
	for _, b := range bad {
		err := s.Update(ctx, func(tx store.Tx) error { _, err := tx.ShieldCounters().Hit(b.key, w1, b.n); return err })
		if code(err) != murlog.EInvalid {
			t.Errorf("Hit(%d-byte key, n %d) = %v; want invalid", len(b.key), b.n, err)
		}
	}
	if got := hit("inbox:x", w1, 1); got != 1 {
		t.Errorf("inbox:x after refused hits = %d; want 1", got)
	}
}

// testShieldCountersConcurrent: hits from many writers at once all count.
func testShieldCountersConcurrent(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	w := c.t.Truncate(time.Minute)
	const writers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				errs <- s.Update(ctx, func(tx store.Tx) error { _, err := tx.ShieldCounters().Hit("api:203.0.113.0/24", w, 1); return err })
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent Hit: %v", err)
		}
	}
	var got int
	update(t, s, func(tx store.Tx) (err error) { got, err = tx.ShieldCounters().Hit("api:203.0.113.0/24", w, 1); return })
	if got != writers*each+1 {
		t.Errorf("count after %d concurrent hits and one more = %d; want %d", writers*each, got, writers*each+1)
	}
}
