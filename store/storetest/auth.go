package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// hit counts one attempt in its own transaction.
func hit(t *testing.T, s store.Store, key string, p store.AttemptPolicy) (*murlog.LoginAttempts, bool) {
	t.Helper()
	var a *murlog.LoginAttempts
	var locked bool
	update(t, s, func(tx store.Tx) error {
		var err error
		a, locked, err = tx.LoginAttempts().Hit(key, tx.Now(), p)
		return err
	})
	return a, locked
}

// testLoginAttemptHit walks the limiter rule one attempt at a time: count,
// lock at exactly Max, refuse while locked without moving the lock, start
// again after the lock or after a quiet window.
func testLoginAttemptHit(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	p := store.AttemptPolicy{Max: 3, Window: 15 * time.Minute, Lockout: 5 * time.Minute}
	for i := 1; i <= 3; i++ {
		a, locked := hit(t, s, "k", p)
		if locked || a.Failures != i || !a.LastFailure.Equal(c.t) {
			t.Fatalf("hit %d = %+v, locked %v; want %d failures, not locked", i, a, locked, i)
		}
		if got := a.LockedUntil.After(c.t); got != (i == 3) {
			t.Errorf("hit %d locked until %v; want a lock only from the 3rd hit", i, a.LockedUntil)
		}
	}
	lockedAt := c.t
	c.t = c.t.Add(time.Minute)
	for i := 0; i < 2; i++ {
		a, locked := hit(t, s, "k", p)
		if !locked || !a.LockedUntil.Equal(lockedAt.Add(5*time.Minute)) {
			t.Errorf("hit while locked = %+v, locked %v; want locked, lock not moved", a, locked)
		}
	}
	if a, locked := hit(t, s, "other", p); locked || a.Failures != 1 {
		t.Errorf("another key = %+v, locked %v; want its own count", a, locked)
	}
	c.t = lockedAt.Add(5*time.Minute + time.Second)
	if a, locked := hit(t, s, "k", p); locked || a.Failures != 1 {
		t.Errorf("first hit after the lock = %+v, locked %v; want a fresh count of 1", a, locked)
	}
	hit(t, s, "k", p)
	c.t = c.t.Add(16 * time.Minute)
	if a, locked := hit(t, s, "k", p); locked || a.Failures != 1 {
		t.Errorf("hit after a quiet window = %+v, locked %v; want the count forgotten", a, locked)
	}
	// Max 1: the first attempt is allowed and locks at once.
	if a, locked := hit(t, s, "strict", store.AttemptPolicy{Max: 1, Window: time.Hour, Lockout: time.Minute}); locked || !a.LockedUntil.Equal(c.t.Add(time.Minute)) {
		t.Errorf("Max 1 first hit = %+v, locked %v; want allowed and locking", a, locked)
	}
}

// testLoginAttemptHitConcurrent proves Hit is atomic: many writers, each in
// its own transaction, lose no attempt, and exactly Max of them get through.
func testLoginAttemptHitConcurrent(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	const writers = 40
	for _, tc := range []struct {
		key       string
		max, want int // want: attempts allowed through
	}{{"count", 1000, writers}, {"lock", 10, 10}} {
		p := store.AttemptPolicy{Max: tc.max, Window: time.Hour, Lockout: time.Hour}
		var wg sync.WaitGroup
		var mu sync.Mutex
		allowed, errs := 0, 0
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.Update(ctx, func(tx store.Tx) error {
					_, locked, err := tx.LoginAttempts().Hit(tc.key, tx.Now(), p)
					if err == nil && !locked {
						mu.Lock()
						allowed++
						mu.Unlock()
					}
					return err
				})
				if err != nil {
					mu.Lock()
					errs++
					mu.Unlock()
					t.Errorf("Hit(%s): %v", tc.key, err)
				}
			}()
		}
		wg.Wait()
		if errs > 0 {
			continue
		}
		if allowed != tc.want {
			t.Errorf("%s: %d of %d concurrent attempts allowed with Max %d; want %d", tc.key, allowed, writers, tc.max, tc.want)
		}
		view(t, s, func(tx store.Tx) error {
			a, err := tx.LoginAttempts().Get(tc.key)
			if err != nil || a.Failures != writers {
				t.Errorf("%s: Get = %+v, %v; want all %d attempts counted", tc.key, a, err, writers)
			}
			if locked := a.LockedUntil.After(c.t); locked != (tc.max <= writers) {
				t.Errorf("%s: locked until %v; want locked = %v", tc.key, a.LockedUntil, tc.max <= writers)
			}
			return nil
		})
	}
}

// testTokensDeleteAll: a password reset revokes every token at once.
func testTokensDeleteAll(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	update(t, s, func(tx store.Tx) error {
		for i, h := range []string{"h1", "h2", "h3"} {
			k := &murlog.APIToken{ID: murlog.NewID(), Name: "t", TokenHash: h, Prefix: "mlg_" + h, CreatedAt: c.t.Add(time.Duration(i))}
			if err := tx.Tokens().Create(k); err != nil {
				return err
			}
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		n, err := tx.Tokens().DeleteAll()
		if n != 3 {
			t.Errorf("DeleteAll = %d; want 3", n)
		}
		return err
	})
	view(t, s, func(tx store.Tx) error {
		if l, err := tx.Tokens().List(); err != nil || len(l) != 0 {
			t.Errorf("List after DeleteAll = %d tokens, %v; want none", len(l), err)
		}
		return nil
	})
}
