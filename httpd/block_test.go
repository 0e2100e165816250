package httpd_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
)

func TestBlockKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"198.51.100.7", "198.51.100.0/24"},
		{"198.51.100.250", "198.51.100.0/24"},
		{"::ffff:198.51.100.7", "198.51.100.0/24"},
		{"2001:db8:1:2:3::9", "2001:db8:1::/48"},
		{"2001:db8:1:ffff::1", "2001:db8:1::/48"},
	} {
		if got := httpd.BlockKey(netip.MustParseAddr(tc.in)); got != tc.want {
			t.Errorf("BlockKey(%s) = %s; want %s", tc.in, got, tc.want)
		}
	}
	if got := httpd.BlockKey(netip.Addr{}); got != "unknown" {
		t.Errorf("BlockKey(invalid) = %s; want unknown", got)
	}
}

// TestBlockShieldHoldsAcrossProcesses: under CGI every request is a new
// process whose in-memory bucket is empty; the persistent counter is
// what holds the limit, per block and window, and a refusal waits for
// the next window.
func TestBlockShieldHoldsAcrossProcesses(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 4, 10, 12, 0, 40, 0, time.UTC)
	clock := func() time.Time { return now }
	db := sqlitetest.Open(t, sqlite.Options{Now: clock})
	counter := store.ShieldHits{Store: db}
	var drops dbstat.Counter
	// process answers one request as a fresh CGI process would.
	process := func(addr string, refusal murlog.Code) *httptest.ResponseRecorder {
		s := httpd.NewBlockShield("search", 3, dbstat.ShieldBlockSearch)
		s.Counter, s.Now, s.Refusal = counter, clock, refusal
		h := s.Middleware(nil, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
		r := httptest.NewRequest("GET", "/search?q=x", nil)
		r.RemoteAddr = addr + ":4711"
		r = r.WithContext(dbstat.WithCounter(r.Context(), &drops))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	steps := []struct {
		name    string
		addr    string
		refusal murlog.Code
		advance time.Duration
		want    int
		retry   string
	}{
		{"first of the block", "198.51.100.1", "", 0, 204, ""},
		{"another address of the block", "198.51.100.2", "", 0, 204, ""},
		{"third", "198.51.100.3", "", 0, 204, ""},
		{"over the limit", "198.51.100.4", "", 0, 429, "20"},
		{"another block", "198.51.101.4", "", 0, 204, ""},
		{"over the limit, as 503", "198.51.100.5", murlog.EUnavailable, 0, 503, "20"},
		{"the next window", "198.51.100.6", "", 20 * time.Second, 204, ""},
	}
	for _, st := range steps {
		now = now.Add(st.advance)
		w := process(st.addr, st.refusal)
		if w.Code != st.want || w.Header().Get("Retry-After") != st.retry {
			t.Errorf("%s (%s): HTTP %d, Retry-After %q; want %d, %q", st.name, st.addr, w.Code, w.Header().Get("Retry-After"), st.want, st.retry)
		}
	}
	if n := drops.DropCounts()[dbstat.ShieldBlockSearch]; n != 2 {
		t.Errorf("drops counted as block_search: %d; want 2", n)
	}
	// A counter that fails lets the request through.
	db.Close()
	if w := process("198.51.100.9", ""); w.Code != 204 {
		t.Errorf("with the database closed: HTTP %d; want 204 (a failing counter lets it through)", w.Code)
	}
}

// TestBlockShieldMemoryFirst: the in-memory bucket refuses without a
// database write once a resident process has seen the block's minute.
func TestBlockShieldMemoryFirst(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	db := sqlitetest.Open(t, sqlite.Options{Now: func() time.Time { return now }})
	s := httpd.NewBlockShield("inbox", 2, dbstat.ShieldBlockInbox)
	s.Counter, s.Now = store.ShieldHits{Store: db}, func() time.Time { return now }
	r := httptest.NewRequest("POST", "/inbox", nil)
	r.RemoteAddr = "203.0.113.5:1"
	for i, want := range []bool{true, true, false, false} {
		if err := s.Allow(r); (err == nil) != want {
			t.Errorf("request %d: Allow = %v; want allowed %v", i+1, err, want)
		}
	}
	var count int
	db.Update(context.Background(), func(tx store.Tx) (err error) {
		count, err = tx.ShieldCounters().Hit("inbox:203.0.113.0/24", now.Truncate(time.Minute), 1)
		return err
	})
	if count != 3 {
		t.Errorf("stored count after 4 requests and one more hit = %d; want 3 (the memory refusals wrote nothing)", count)
	}
}

// TestBlockShieldAnonRPC: the owner's calls pass; an anonymous caller's
// are counted and refused as a JSON-RPC error.
func TestBlockShieldAnonRPC(t *testing.T) {
	t.Parallel()
	s := httpd.NewBlockShield("login", 1, dbstat.ShieldBlockLogin)
	h := s.AnonRPC(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }))
	call := func(owner bool) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", httpd.RPCPath, nil)
		r.RemoteAddr = "192.0.2.1:1"
		r = r.WithContext(murlog.WithCaller(r.Context(), &murlog.Caller{Owner: owner}))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := call(false); w.Code != 200 {
		t.Fatalf("first anonymous call: HTTP %d; want 200", w.Code)
	}
	w := call(false)
	var body struct {
		Error struct{ Code int } `json:"error"`
	}
	if w.Code != 429 || w.Header().Get("Retry-After") == "" || json.Unmarshal(w.Body.Bytes(), &body) != nil || body.Error.Code == 0 {
		t.Errorf("second anonymous call: HTTP %d, Retry-After %q, body %s; want 429 with a JSON-RPC error", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	for range 3 {
		if w := call(true); w.Code != 200 {
			t.Errorf("the owner's call: HTTP %d; want 200 (not limited)", w.Code)
		}
	}
}
