package domains_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
)

var ctx = context.Background()

// clock is a settable test clock for the store.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// open returns a Service over a fresh database file whose clock is c.
func open(t *testing.T, c *clock) (*domains.Service, *sqlite.DB) {
	t.Helper()
	db, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), sqlite.FileName),
		sqlite.Options{Now: c.now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return domains.New(db), db
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"example.com", "example.com"},
		{"Example.COM", "example.com"},
		{"example.com.", "example.com"},
		{" a.example\n", "a.example"},
		{"a.example:8443", "a.example:8443"},
		{"a.example:08443", "a.example:8443"},
		{"localhost", "localhost"},
		{"127.0.0.1:3000", "127.0.0.1:3000"},
		{"[2001:DB8:0::1]:443", "[2001:db8::1]:443"},
		{"[::1]", "[::1]"},
		{"under_score.example", "under_score.example"},
		{"xn--r8jz45g.jp", "xn--r8jz45g.jp"},
	} {
		got, err := domains.Normalize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, why string }{
		{"", "required"},
		{"   ", "required"},
		{"https://a.example", "without a scheme"},
		{"a.example/inbox", "without a path"},
		{"a.example?x=1", "without a path"},
		{"alice@a.example", "user name"},
		{"a example", "without a path"},
		{"a.example:0", "bad port"},
		{"a.example:65536", "bad port"},
		{"a.example:", "bad port"},
		{"a.example:http", "bad port"},
		{"a.example:+80", "bad port"},
		{":8080", "no host name"},
		{".", "no host name"},
		{"2001:db8::1", "must be in brackets"},
		{"[2001:db8::1", "unclosed"},
		{"[::1]x", "text after"},
		{"[1.2.3.4]", "bad IPv6"},
		{"[fe80::1%eth0]", "bad IPv6"},
		{"a..example", "empty label"},
		{strings.Repeat("a", 64) + ".example", "over 63"},
		{strings.Repeat("a.", 130) + "example", "at most"},
		{"a!.example", "only letters"},
		{"例え.jp", "xn--"},
	} {
		got, err := domains.Normalize(tc.in)
		var e *murlog.Error
		if !errors.As(err, &e) || e.Code != murlog.EInvalid || e.Field != "domain" || !strings.Contains(e.Message, tc.why) {
			t.Errorf("Normalize(%q) = %q, %v; want an invalid error on domain saying %q", tc.in, got, err, tc.why)
		}
	}
}

func TestFromURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"https://Mastodon.Example/inbox", "mastodon.example"},
		{"https://a.example:443/users/x/inbox", "a.example"},
		{"http://a.example:80/inbox", "a.example"},
		{"http://a.example:443/inbox", "a.example:443"},
		{"https://a.example:8443/inbox", "a.example:8443"},
		{"https://user:pw@a.example/inbox", "a.example"},
		{"https://[2001:db8::1]:443/inbox", "[2001:db8::1]"},
	} {
		got, err := domains.FromURL(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("FromURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "/inbox", "a.example/inbox", "ftp://a.example/inbox", "https:///inbox", "https://a..example/inbox", "https://a.example:99999/inbox"} {
		if got, err := domains.FromURL(in); murlog.ErrorCode(err) != murlog.EInvalid {
			t.Errorf("FromURL(%q) = %q, %v; want invalid", in, got, err)
		}
	}
}

// TestRule drives the breaker through the seed's rule: ten failures make
// a domain dead for an hour after the last one; a success or a reset
// brings it back at once.
func TestRule(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)}
	s, _ := open(t, c)
	fail := func(domain string, n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			if err := s.Failure(ctx, domain, errors.New("dial tcp: i/o timeout")); err != nil {
				t.Fatalf("Failure(%s): %v", domain, err)
			}
		}
	}
	dead := func(domain string) bool {
		t.Helper()
		d, err := s.IsDead(ctx, domain)
		if err != nil {
			t.Fatalf("IsDead(%s): %v", domain, err)
		}
		return d
	}
	fail("nine.example", domains.DeadThreshold-1)
	fail("Ten.Example", domains.DeadThreshold) // recorded under the normalised name
	fail("old.example", domains.DeadThreshold)
	c.t = c.t.Add(30 * time.Minute)
	fail("old.example", 1) // eleven; the last one 30 minutes after the rest

	steps := []struct {
		name  string
		after time.Duration // clock advance before the checks
		act   func()
		dead  map[string]bool
	}{
		{"now", 0, nil, map[string]bool{"ten.example": true, "old.example": true}},
		{"31 minutes on: ten's last failure is 61 minutes old", 31 * time.Minute, nil, map[string]bool{"old.example": true}},
		{"one failure more makes ten dead again", 0, func() { fail("ten.example", 1) }, map[string]bool{"ten.example": true, "old.example": true}},
		{"a success closes the breaker", 0, func() {
			if err := s.Success(ctx, "TEN.example"); err != nil {
				t.Fatal(err)
			}
		}, map[string]bool{"old.example": true}},
		{"a reset closes the breaker", 0, func() {
			if err := s.Reset(ctx, "old.example"); err != nil {
				t.Fatal(err)
			}
		}, map[string]bool{}},
		{"nine more after the reset are not enough", 0, func() { fail("old.example", domains.DeadThreshold-1) }, map[string]bool{}},
	}
	for _, st := range steps {
		c.t = c.t.Add(st.after)
		if st.act != nil {
			st.act()
		}
		set, err := s.DeadSet(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(set) != len(st.dead) {
			t.Errorf("%s: DeadSet = %v; want %v", st.name, set, st.dead)
		}
		for _, d := range []string{"nine.example", "ten.example", "old.example", "never.example"} {
			if got := dead(d); got != st.dead[d] || set[d] != st.dead[d] {
				t.Errorf("%s: IsDead(%s) = %v, in DeadSet = %v; want %v", st.name, d, got, set[d], st.dead[d])
			}
		}
		l, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range l {
			if x.Dead != st.dead[x.Domain] {
				t.Errorf("%s: List says %s dead = %v; want %v", st.name, x.Domain, x.Dead, st.dead[x.Domain])
			}
		}
	}
}

func TestSuccessAndReset(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)}
	s, _ := open(t, c)
	if err := s.Success(ctx, "healthy.example"); err != nil {
		t.Errorf("Success on a domain without failures = %v; want nil", err)
	}
	if err := s.Reset(ctx, "healthy.example"); murlog.ErrorCode(err) != murlog.ENotFound {
		t.Errorf("Reset on a domain without failures = %v; want not_found", err)
	}
	if err := s.Failure(ctx, "a.example", nil); err != nil {
		t.Fatalf("Failure with a nil cause: %v", err)
	}
	l, err := s.List(ctx)
	if err != nil || len(l) != 1 || l[0].Domain != "a.example" || l[0].FailureCount != 1 || l[0].LastError != "" || !l[0].FirstFailureAt.Equal(c.t) {
		t.Errorf("List = %+v, %v; want a.example with one failure at %v and no reason", l, err, c.t)
	}
	if err := s.Success(ctx, "A.EXAMPLE"); err != nil {
		t.Fatal(err)
	}
	if l, err := s.List(ctx); err != nil || len(l) != 0 {
		t.Errorf("after Success List = %+v, %v; want nothing", l, err)
	}
}

// TestInvalidDomains checks that every method refuses what Normalize
// refuses, before touching the store.
func TestInvalidDomains(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)}
	s, _ := open(t, c)
	calls := map[string]func(string) error{
		"Failure":    func(d string) error { return s.Failure(ctx, d, errors.New("x")) },
		"Success":    func(d string) error { return s.Success(ctx, d) },
		"Reset":      func(d string) error { return s.Reset(ctx, d) },
		"IsDead":     func(d string) error { _, err := s.IsDead(ctx, d); return err },
		"LoadScheme": func(d string) error { _, _, err := s.LoadScheme(ctx, d); return err },
		"SaveScheme": func(d string) error { return s.SaveScheme(ctx, d, "cavage") },
	}
	for name, call := range calls {
		for _, d := range []string{"", "https://a.example/inbox", "a.example/inbox"} {
			if err := call(d); murlog.ErrorCode(err) != murlog.EInvalid {
				t.Errorf("%s(%q) = %v; want invalid", name, d, err)
			}
		}
	}
	if l, err := s.List(ctx); err != nil || len(l) != 0 {
		t.Errorf("after refused calls List = %+v, %v; want nothing recorded", l, err)
	}
}

// TestSchemes: the double-knock's memory (outbound.SchemeStore) is kept
// per normalised domain, so the outbound client's "A.Example:8443" and
// "a.example:8443" are one, and a second save replaces the first.
func TestSchemes(t *testing.T) {
	c := &clock{t: time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)}
	s, _ := open(t, c)
	if got, ok, err := s.LoadScheme(ctx, "a.example:8443"); err != nil || ok {
		t.Errorf("LoadScheme before any save = %q, %v, %v; want not ok, no error", got, ok, err)
	}
	for _, scheme := range []string{"rfc9421", "cavage"} {
		if err := s.SaveScheme(ctx, "A.Example:8443", scheme); err != nil {
			t.Fatalf("SaveScheme(%s): %v", scheme, err)
		}
	}
	if got, ok, err := s.LoadScheme(ctx, "a.example:8443"); err != nil || !ok || got != "cavage" {
		t.Errorf("LoadScheme = %q, %v, %v; want cavage (the last save)", got, ok, err)
	}
	if _, ok, err := s.LoadScheme(ctx, "a.example"); err != nil || ok {
		t.Errorf("LoadScheme of the domain without the port = %v, %v; want not ok: another server", ok, err)
	}
}
