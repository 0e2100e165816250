package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

func testDomainFailures(t *testing.T, open Opener) {
	t.Run("Record", func(t *testing.T) { testDomainsRecord(t, open) })
	t.Run("Dead", func(t *testing.T) { testDomainsDead(t, open) })
}

func testDomainsRecord(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	view(t, s, func(tx store.Tx) error {
		if _, err := tx.DomainFailures().Get("a.example"); code(err) != murlog.ENotFound {
			t.Errorf("Get(unknown) err = %v; want not_found", err)
		}
		if l, err := tx.DomainFailures().List(); err != nil || len(l) != 0 {
			t.Errorf("List on an empty store = %v, %v; want nothing", l, err)
		}
		return nil
	})
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.DomainFailures().Reset("a.example") }); code(err) != murlog.ENotFound {
		t.Errorf("Reset(unknown) err = %v; want not_found", err)
	}
	update(t, s, func(tx store.Tx) error { return tx.DomainFailures().RecordSuccess("a.example") })

	first, later := c.t.Add(-time.Minute), c.t
	long := strings.Repeat("é", store.MaxDomainError+100)
	update(t, s, func(tx store.Tx) error {
		df := tx.DomainFailures()
		if err := df.RecordFailure("a.example", first, "dial tcp: connection refused"); err != nil {
			return err
		}
		if err := df.RecordFailure("a.example", later, long); err != nil {
			return err
		}
		return df.RecordFailure("b.example:8443", later, "HTTP 503")
	})
	view(t, s, func(tx store.Tx) error {
		f, err := tx.DomainFailures().Get("a.example")
		if err != nil {
			return err
		}
		if f.Domain != "a.example" || f.FailureCount != 2 || !f.FirstFailureAt.Equal(first) || !f.LastFailureAt.Equal(later) {
			t.Errorf("after two failures Get = %+v; want count 2, first %v, last %v", f, first, later)
		}
		if n := utf8.RuneCountInString(f.LastError); n != store.MaxDomainError || !utf8.ValidString(f.LastError) {
			t.Errorf("last_error of %d characters stored as %d characters (valid UTF-8: %v); want cut to %d",
				utf8.RuneCountInString(long), n, utf8.ValidString(f.LastError), store.MaxDomainError)
		}
		l, err := tx.DomainFailures().List()
		if err != nil {
			return err
		}
		if len(l) != 2 || l[0].Domain != "a.example" || l[1].Domain != "b.example:8443" || l[1].LastError != "HTTP 503" {
			t.Errorf("List = %v; want a.example (2 failures) before b.example:8443 (1)", l)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error { return tx.DomainFailures().RecordSuccess("a.example") })
	update(t, s, func(tx store.Tx) error { return tx.DomainFailures().Reset("b.example:8443") })
	view(t, s, func(tx store.Tx) error {
		for _, d := range []string{"a.example", "b.example:8443"} {
			if _, err := tx.DomainFailures().Get(d); code(err) != murlog.ENotFound {
				t.Errorf("after RecordSuccess/Reset, Get(%s) err = %v; want not_found", d, err)
			}
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error { return tx.DomainFailures().RecordFailure("a.example", later, "again") })
	view(t, s, func(tx store.Tx) error {
		f, err := tx.DomainFailures().Get("a.example")
		if err != nil || f.FailureCount != 1 || !f.FirstFailureAt.Equal(later) {
			t.Errorf("first failure after a success: %+v, %v; want a fresh count of 1 from %v", f, err, later)
		}
		return nil
	})
}

// testDomainsDead checks the dead predicate at its boundaries: the
// threshold is inclusive, the window exclusive (a failure exactly one
// window old no longer counts).
func testDomainsDead(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	const threshold, window = 10, time.Hour
	cases := []struct {
		domain   string
		failures int
		age      time.Duration // of the last failure
		dead     bool
	}{
		{"nine.example", 9, 0, false},
		{"ten.example", 10, 0, true},
		{"many.example", 25, 30 * time.Minute, true},
		{"recent.example", 10, 59 * time.Minute, true},
		{"hour.example", 10, window, false},
		{"stale.example", 10, 61 * time.Minute, false},
	}
	update(t, s, func(tx store.Tx) error {
		for _, tc := range cases {
			for i := tc.failures - 1; i >= 0; i-- {
				// Older failures first, one second apart, ending at age.
				at := c.t.Add(-tc.age - time.Duration(i)*time.Second)
				if err := tx.DomainFailures().RecordFailure(tc.domain, at, "timeout"); err != nil {
					return err
				}
			}
		}
		return nil
	})
	var want []string
	for _, tc := range cases {
		if tc.dead {
			want = append(want, tc.domain)
		}
	}
	slices.Sort(want)
	view(t, s, func(tx store.Tx) error {
		got, err := tx.DomainFailures().Dead(c.t, threshold, window)
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			t.Errorf("Dead(now, %d, %v) = %v; want %v", threshold, window, got, want)
		}
		for _, tc := range cases {
			f, err := tx.DomainFailures().Get(tc.domain)
			if err != nil || f.FailureCount != tc.failures || !f.LastFailureAt.Equal(c.t.Add(-tc.age)) {
				t.Errorf("Get(%s) = %+v, %v; want %d failures, the last at %v", tc.domain, f, err, tc.failures, c.t.Add(-tc.age))
			}
		}
		got, err = tx.DomainFailures().Dead(c.t.Add(2*window), threshold, window)
		if err != nil || len(got) != 0 {
			t.Errorf("Dead two windows later = %v, %v; want none (dead domains come back on their own)", got, err)
		}
		return nil
	})
}

// testSignatureSchemes: a domain's scheme is not found until put, then
// read back; a second Put replaces it; domains are kept apart, a port
// included.
func testSignatureSchemes(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	view(t, s, func(tx store.Tx) error {
		if got, err := tx.SignatureSchemes().Get("a.example"); code(err) != murlog.ENotFound {
			t.Errorf("Get(unknown) = %q, %v; want not_found", got, err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		if err := tx.SignatureSchemes().Put("a.example", "rfc9421", tx.Now()); err != nil {
			return err
		}
		if err := tx.SignatureSchemes().Put("a.example", "cavage", tx.Now()); err != nil {
			return err
		}
		return tx.SignatureSchemes().Put("a.example:8443", "rfc9421", tx.Now())
	})
	view(t, s, func(tx store.Tx) error {
		for domain, want := range map[string]string{"a.example": "cavage", "a.example:8443": "rfc9421"} {
			if got, err := tx.SignatureSchemes().Get(domain); err != nil || got != want {
				t.Errorf("Get(%s) = %q, %v; want %q (the last Put)", domain, got, err, want)
			}
		}
		if got, err := tx.SignatureSchemes().Get("b.example"); code(err) != murlog.ENotFound {
			t.Errorf("Get(b.example) = %q, %v; want not_found", got, err)
		}
		return nil
	})
}
