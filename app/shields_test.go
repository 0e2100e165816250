package app_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/internal/testsite"
)

// TestBlockShieldsHoldUnderCGI: each request is a process of its own
// (an App with OneShot, opened and closed around it), so no in-memory
// bucket remembers anything; the counts per address block in the
// database hold each class's limit (lowered here through
// shield_block_limits), answer 429 (the inbox 503) with Retry-After and
// count under their shield. A resident server has no such limits.
func TestBlockShieldsHoldUnderCGI(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Env: map[string]string{"MURLOG_SHIELD_BLOCK_LIMITS": "login=2, inbox=2, search=2, api=2"}})
	rpc := `{"jsonrpc":"2.0","id":1,"method":"site.info"}`
	classes := []struct {
		name, method, path, body, ctype string
		over                            int // the status past the limit
		drop                            dbstat.Shield
	}{
		{"search", "GET", "/@alice/search?q=hello", "", "", 429, dbstat.ShieldBlockSearch},
		{"public API", "GET", "/api/pub/personas/alice/posts", "", "", 429, dbstat.ShieldBlockAPI},
		{"anonymous RPC", "POST", httpd.RPCPath, rpc, "application/json", 429, dbstat.ShieldBlockLogin},
		{"inbox", "POST", "/inbox", `{"type":"Create"}`, "application/activity+json", 503, dbstat.ShieldBlockInbox},
	}
	// Every process reads one instant, in the middle of a window: the
	// counts are per fixed minute, and a test crossing a minute's end
	// would start a new count between two processes.
	now := time.Now().Truncate(httpd.BlockWindow).Add(httpd.BlockWindow / 2)
	// process serves one request as a CGI process would, from addr.
	process := func(oneShot bool, method, path, body, ctype, addr string) (*httptest.ResponseRecorder, map[dbstat.Shield]uint64) {
		a, err := app.New(context.Background(), app.Options{ConfigPath: filepath.Join(s.Dir, "murlog.ini"),
			Getenv: func(k string) string { return s.Env[k] }, Logger: testsite.Discard(), KeyPair: testsite.KeyPair, OneShot: oneShot,
			Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		r := httptest.NewRequest(method, "http://"+s.Domain()+path, strings.NewReader(body))
		r.RemoteAddr = addr + ":4711"
		if ctype != "" {
			r.Header.Set("Content-Type", ctype)
		}
		w := httptest.NewRecorder()
		a.ServeHTTP(w, r)
		return w, a.Drops()
	}
	for _, c := range classes {
		for i, addr := range []string{"198.51.100.1", "198.51.100.2", "198.51.100.3"} {
			w, drops := process(true, c.method, c.path, c.body, c.ctype, addr)
			over := i == 2
			if got := w.Code == c.over; got != over || (over && w.Header().Get("Retry-After") == "") {
				t.Errorf("%s, process %d (%s): HTTP %d, Retry-After %q; want refused (%d with Retry-After) %v",
					c.name, i+1, addr, w.Code, w.Header().Get("Retry-After"), c.over, over)
			}
			if over && drops[c.drop] != 1 {
				t.Errorf("%s: the refusing process counted drops %v; want 1 as %s", c.name, drops, c.drop)
			}
		}
		// Another block has its own count.
		if w, _ := process(true, c.method, c.path, c.body, c.ctype, "198.51.101.1"); w.Code == c.over {
			t.Errorf("%s from another block: HTTP %d; want its own limit", c.name, w.Code)
		}
		// A resident server does not count blocks (its buckets hold).
		if w, _ := process(false, c.method, c.path, c.body, c.ctype, "198.51.100.4"); w.Code == c.over {
			t.Errorf("%s in a resident server: HTTP %d; want no block limit", c.name, w.Code)
		}
	}
}
