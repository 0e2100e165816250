package api_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/internal/testsite"
)

type domainResult struct {
	Domain         string    `json:"domain"`
	FailureCount   int       `json:"failure_count"`
	FirstFailureAt time.Time `json:"first_failure_at"`
	LastFailureAt  time.Time `json:"last_failure_at"`
	LastError      string    `json:"last_error"`
	Dead           bool      `json:"dead"`
}

// siteClock is a settable clock for a test site; it starts at the real
// time so that session cookies are valid in the client's jar.
type siteClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *siteClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *siteClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestDomainMethods(t *testing.T) {
	t.Parallel()
	c := &siteClock{t: time.Now().UTC().Truncate(time.Second)}
	s := testsite.Start(t, testsite.Options{Now: c.now})
	breaker := domains.New(s.App.Store())
	list := func() []domainResult {
		t.Helper()
		var pg struct {
			Items      []domainResult `json:"items"`
			NextCursor *string        `json:"next_cursor"`
		}
		if err := s.Client.Call(ctx, "domains.list_failures", nil, &pg); err != nil {
			t.Fatalf("domains.list_failures: %v", err)
		}
		if pg.Items == nil || pg.NextCursor != nil {
			t.Errorf("domains.list_failures = %+v; want an items array and a null next_cursor", pg)
		}
		return pg.Items
	}
	if got := list(); len(got) != 0 {
		t.Errorf("list before any failure = %+v; want none", got)
	}

	start := c.now()
	for i := 0; i < domains.DeadThreshold; i++ {
		if err := breaker.Failure(ctx, "Dead.Example", errors.New("HTTP 502")); err != nil {
			t.Fatal(err)
		}
		c.add(time.Second)
	}
	for i := 0; i < 3; i++ {
		breaker.Failure(ctx, "flaky.example:8443", errors.New("tls: handshake failure"))
	}
	got := list()
	want := []domainResult{
		{Domain: "dead.example", FailureCount: domains.DeadThreshold, FirstFailureAt: start,
			LastFailureAt: start.Add(time.Duration(domains.DeadThreshold-1) * time.Second), LastError: "HTTP 502", Dead: true},
		{Domain: "flaky.example:8443", FailureCount: 3, FirstFailureAt: c.now(), LastFailureAt: c.now(), LastError: "tls: handshake failure"},
	}
	if len(got) != len(want) {
		t.Fatalf("domains.list_failures = %+v; want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Domain != w.Domain || g.FailureCount != w.FailureCount || !g.FirstFailureAt.Equal(w.FirstFailureAt) ||
			!g.LastFailureAt.Equal(w.LastFailureAt) || g.LastError != w.LastError || g.Dead != w.Dead {
			t.Errorf("item %d = %+v; want %+v", i, g, w)
		}
	}

	// The dead flag follows the window: an hour after its last failure the
	// domain is tried again, though its record stays.
	c.add(domains.DeadWindow)
	if got := list(); len(got) != 2 || got[0].Domain != "dead.example" || got[0].Dead {
		t.Errorf("an hour later: %+v; want dead.example listed but no longer dead", got)
	}
	c.add(-domains.DeadWindow)

	status, _, v := rawNoCSRF(t, s, s.Client, `{"jsonrpc":"2.0","method":"domains.reset_failure","params":{"domain":"dead.example"},"id":1}`)
	if status != 403 || field(v, "error", "data", "code") != "forbidden" {
		t.Errorf("reset_failure with a session and no X-CSRF-Token = %d %v; want 403 forbidden", status, v)
	}
	if dead, err := breaker.IsDead(ctx, "dead.example"); err != nil || !dead {
		t.Errorf("after a refused reset IsDead = %v, %v; want still dead", dead, err)
	}

	var res map[string]string
	if err := s.Client.Call(ctx, "domains.reset_failure", map[string]string{"domain": "DEAD.example"}, &res); err != nil || res["status"] != "ok" {
		t.Fatalf("domains.reset_failure = %v, %v; want status ok", res, err)
	}
	if dead, err := breaker.IsDead(ctx, "dead.example"); err != nil || dead {
		t.Errorf("after reset IsDead = %v, %v; want false", dead, err)
	}
	if set, err := breaker.DeadSet(ctx); err != nil || len(set) != 0 {
		t.Errorf("after reset DeadSet = %v, %v; want empty", set, err)
	}
	if got := list(); len(got) != 1 || got[0].Domain != "flaky.example:8443" {
		t.Errorf("after reset: %+v; want only flaky.example:8443", got)
	}

	for _, tc := range []struct {
		name    string
		params  any
		rpcCode int
		code    string
		status  int
	}{
		{"reset twice", map[string]string{"domain": "dead.example"}, -32001, "not_found", 404},
		{"never failed", map[string]string{"domain": "healthy.example"}, -32001, "not_found", 404},
		{"no domain", nil, -32602, "invalid", 400},
		{"a path", map[string]string{"domain": "dead.example/inbox"}, -32602, "invalid", 400},
		{"unknown parameter", map[string]string{"host": "dead.example"}, -32602, "invalid", 400},
	} {
		rpcErr(t, tc.name, s.Client.Call(ctx, "domains.reset_failure", tc.params, nil), tc.rpcCode, tc.code, tc.status)
	}

	anon := s.NewClient()
	anon.FetchCSRF(ctx)
	for _, m := range []string{"domains.list_failures", "domains.reset_failure"} {
		rpcErr(t, "anonymous "+m, anon.Call(ctx, m, map[string]string{"domain": "flaky.example:8443"}, nil), -32000, "unauthorized", 401)
	}
	if got := list(); len(got) != 1 {
		t.Errorf("after anonymous calls: %+v; want flaky.example:8443 still listed", got)
	}
}
