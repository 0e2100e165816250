package storetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// testSessionsList: live sessions only, most recently seen first, at most
// limit; DeletePrefix ends exactly the sessions whose hash starts so.
func testSessionsList(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	mk := func(h string, seen, exp time.Duration) *murlog.Session {
		return &murlog.Session{TokenHash: h, CreatedAt: c.t.Add(-time.Hour), LastSeenAt: c.t.Add(seen),
			ExpiresAt: c.t.Add(exp), UserAgent: "ua " + h}
	}
	update(t, s, func(tx store.Tx) error {
		for _, x := range []*murlog.Session{mk("aa11", -3*time.Minute, time.Hour), mk("bb22", -time.Minute, time.Hour),
			mk("cc33", -2*time.Minute, 0), mk("dd44", -2*time.Minute, time.Hour), mk("aa12", -4*time.Minute, time.Hour)} {
			if err := tx.Sessions().Create(x); err != nil {
				return err
			}
		}
		return nil
	})
	hashes := func(l []*murlog.Session) []string {
		var out []string
		for _, x := range l {
			out = append(out, x.TokenHash)
		}
		return out
	}
	view(t, s, func(tx store.Tx) error {
		l, err := tx.Sessions().List(c.t, 10)
		if err != nil {
			return err
		}
		// cc33 expires exactly now: not live.
		if got, want := hashes(l), []string{"bb22", "dd44", "aa11", "aa12"}; !slices.Equal(got, want) {
			t.Errorf("List = %v; want %v (live only, most recently seen first)", got, want)
		}
		if len(l) > 0 && (l[0].UserAgent != "ua bb22" || !l[0].CreatedAt.Equal(c.t.Add(-time.Hour)) ||
			!l[0].LastSeenAt.Equal(c.t.Add(-time.Minute)) || !l[0].ExpiresAt.Equal(c.t.Add(time.Hour))) {
			t.Errorf("List[0] = %+v; want every field as stored", l[0])
		}
		if l, err := tx.Sessions().List(c.t, 2); err != nil || !slices.Equal(hashes(l), []string{"bb22", "dd44"}) {
			t.Errorf("List(limit 2) = %v, %v; want the 2 most recently seen", hashes(l), err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		for _, tc := range []struct {
			prefix string
			want   int
		}{{"", 0}, {"zz", 0}, {"aa11", 1}, {"aa11", 0}, {"dd", 1}} {
			n, err := tx.Sessions().DeletePrefix(tc.prefix)
			if err != nil {
				return err
			}
			if n != tc.want {
				t.Errorf("DeletePrefix(%q) = %d; want %d", tc.prefix, n, tc.want)
			}
		}
		return nil
	})
	view(t, s, func(tx store.Tx) error {
		if l, err := tx.Sessions().List(c.t, 10); err != nil || !slices.Equal(hashes(l), []string{"bb22", "aa12"}) {
			t.Errorf("List after DeletePrefix = %v, %v; want bb22 aa12 (aa12 shares only a shorter prefix)", hashes(l), err)
		}
		return nil
	})
}

// testTwoFactor walks the TOTP state and recovery codes through an
// enrolment, logins and a reset.
func testTwoFactor(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	view(t, s, func(tx store.Tx) error {
		st, err := tx.TwoFactor().Get()
		if err != nil || st.Enabled() || st.Pending != "" || st.LastStep != 0 || st.EnabledAt != nil {
			t.Errorf("Get on a new store = %v, %v; want a zero state", st, err)
		}
		if n, err := tx.TwoFactor().RecoveryCodesLeft(); err != nil || n != 0 {
			t.Errorf("RecoveryCodesLeft on a new store = %d, %v; want 0", n, err)
		}
		return nil
	})
	// UseStep does nothing while off, even with a pending key.
	update(t, s, func(tx store.Tx) error {
		if err := tx.TwoFactor().Put(&murlog.TOTP{Pending: "PENDING"}); err != nil {
			return err
		}
		ok, err := tx.TwoFactor().UseStep(5)
		if ok {
			t.Error("UseStep while off = true; want false")
		}
		return err
	})
	enabled := c.t
	update(t, s, func(tx store.Tx) error {
		if err := tx.TwoFactor().Put(&murlog.TOTP{Secret: "SECRET", LastStep: 100, EnabledAt: &enabled}); err != nil {
			return err
		}
		return tx.TwoFactor().ReplaceRecoveryCodes([]string{"h1", "h2", "h3"}, c.t)
	})
	view(t, s, func(tx store.Tx) error {
		st, err := tx.TwoFactor().Get()
		if err != nil || st.Secret != "SECRET" || st.Pending != "" || st.LastStep != 100 || st.EnabledAt == nil || !st.EnabledAt.Equal(enabled) {
			t.Errorf("Get after Put = %v (enabled at %v), %v; want secret in force, nothing pending, step 100", st, st.EnabledAt, err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		for _, tc := range []struct {
			step int64
			want bool
		}{{99, false}, {100, false}, {101, true}, {101, false}, {103, true}, {102, false}} {
			ok, err := tx.TwoFactor().UseStep(tc.step)
			if err != nil {
				return err
			}
			if ok != tc.want {
				t.Errorf("UseStep(%d) = %v; want %v", tc.step, ok, tc.want)
			}
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		for _, tc := range []struct {
			hash string
			want bool
		}{{"h2", true}, {"h2", false}, {"nope", false}, {"h3", true}} {
			ok, err := tx.TwoFactor().UseRecoveryCode(tc.hash, c.t)
			if err != nil {
				return err
			}
			if ok != tc.want {
				t.Errorf("UseRecoveryCode(%s) = %v; want %v", tc.hash, ok, tc.want)
			}
		}
		return nil
	})
	view(t, s, func(tx store.Tx) error {
		if st, _ := tx.TwoFactor().Get(); st.LastStep != 103 {
			t.Errorf("LastStep = %d; want 103", st.LastStep)
		}
		if n, err := tx.TwoFactor().RecoveryCodesLeft(); err != nil || n != 1 {
			t.Errorf("RecoveryCodesLeft = %d, %v; want 1", n, err)
		}
		return nil
	})
	// A new set replaces the old one whole, used codes included; none
	// empties it.
	update(t, s, func(tx store.Tx) error { return tx.TwoFactor().ReplaceRecoveryCodes([]string{"h2", "h4"}, c.t) })
	update(t, s, func(tx store.Tx) error {
		if ok, err := tx.TwoFactor().UseRecoveryCode("h1", c.t); ok || err != nil {
			t.Errorf("an old set's code after ReplaceRecoveryCodes = %v, %v; want false", ok, err)
		}
		if ok, err := tx.TwoFactor().UseRecoveryCode("h2", c.t); !ok || err != nil {
			t.Errorf("the new set's h2 (used in the old set) = %v, %v; want true", ok, err)
		}
		if err := tx.TwoFactor().ReplaceRecoveryCodes(nil, c.t); err != nil {
			return err
		}
		return tx.TwoFactor().Put(&murlog.TOTP{})
	})
	view(t, s, func(tx store.Tx) error {
		st, err := tx.TwoFactor().Get()
		if err != nil || st.Enabled() || st.EnabledAt != nil || st.LastStep != 0 {
			t.Errorf("Get after Put(zero) = %v, %v; want off", st, err)
		}
		if n, _ := tx.TwoFactor().RecoveryCodesLeft(); n != 0 {
			t.Errorf("RecoveryCodesLeft after ReplaceRecoveryCodes(nil) = %d; want 0", n)
		}
		return nil
	})
}

// testTwoFactorUseStepConcurrent proves UseStep and UseRecoveryCode are
// atomic: of many writers offering the same step or code, each in its own
// transaction, exactly one wins.
func testTwoFactorUseStepConcurrent(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	update(t, s, func(tx store.Tx) error {
		if err := tx.TwoFactor().Put(&murlog.TOTP{Secret: "SECRET", LastStep: 1, EnabledAt: &c.t}); err != nil {
			return err
		}
		return tx.TwoFactor().ReplaceRecoveryCodes([]string{"h"}, c.t)
	})
	const writers = 20
	for _, what := range []string{"step", "recovery code"} {
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// ok is the committed run's answer: an engine that retries
				// fn overwrites an earlier run's.
				var ok bool
				err := s.Update(ctx, func(tx store.Tx) error {
					var err error
					if what == "step" {
						ok, err = tx.TwoFactor().UseStep(2)
					} else {
						ok, err = tx.TwoFactor().UseRecoveryCode("h", tx.Now())
					}
					return err
				})
				if err != nil {
					t.Errorf("%s: %v", what, err)
				}
				if err == nil && ok {
					mu.Lock()
					won++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if won != 1 {
			t.Errorf("%d of %d concurrent uses of one %s succeeded; want exactly 1", won, writers, what)
		}
	}
}
