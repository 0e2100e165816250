package app

import (
	"net/http"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/housekeep"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/store"
)

// blockShields are the persistent shields per address block
// (httpd.BlockShield), one per class of request. They exist only under
// CGI, where a process answers one request and its in-memory buckets
// hold nothing: there each request of these classes costs one small
// upsert (BenchmarkShieldHit). A resident server has its in-memory
// shields (the inbox's buckets, the search shield, the API's slots) and
// none of these.
type blockShields struct {
	login, inbox, search, api *httpd.BlockShield
}

// newBlockShields returns the site's block shields under CGI, nil in a
// resident process. inbox_rate_limit, when set, is the inbox's limit per
// second, and the block's a minute of it; shield_block_limits overrides
// any class.
func (a *App) newBlockShields(rt *running) *blockShields {
	if !a.opts.OneShot {
		return nil
	}
	l := httpd.DefaultBlockLimits
	if r := rt.cfg.InboxRateLimit; r > 0 {
		l.Inbox = r * int(httpd.BlockWindow.Seconds())
	}
	limit := map[string]*int{"login": &l.Login, "inbox": &l.Inbox, "search": &l.Search, "api": &l.API}
	for class, n := range rt.cfg.ShieldBlockLimits {
		if f := limit[class]; f != nil {
			*f = n
		}
	}
	hits := store.ShieldHits{Store: rt.eng.store}
	mk := func(class string, perMinute int, drop dbstat.Shield) *httpd.BlockShield {
		s := httpd.NewBlockShield(class, perMinute, drop)
		s.Counter, s.Trusted, s.Now, s.Log = hits, rt.cfg.TrustedProxy, a.opts.Now, a.log
		return s
	}
	b := &blockShields{login: mk("login", l.Login, dbstat.ShieldBlockLogin), inbox: mk("inbox", l.Inbox, dbstat.ShieldBlockInbox),
		search: mk("search", l.Search, dbstat.ShieldBlockSearch), api: mk("api", l.API, dbstat.ShieldBlockAPI)}
	// Senders retry a 503; a 429 some of them drop.
	b.inbox.Refusal = murlog.EUnavailable
	return b
}

// rpc serves the JSON-RPC handler behind the login shield (anonymous
// callers only); h itself without shields.
func (b *blockShields) rpc(h http.Handler) http.Handler {
	if b == nil {
		return h
	}
	return b.login.AnonRPC(h)
}

// public serves the blog behind the search and public-API shields.
func (b *blockShields) public(h http.Handler, a *App) http.Handler {
	if b == nil {
		return h
	}
	return b.search.Middleware(isSearch, a.log, b.api.Middleware(isPublicAPI, a.log, h))
}

// isSearch reports a search query: /search or /@name/search with a
// non-empty q (the empty form costs nothing).
func isSearch(r *http.Request) bool {
	p := r.URL.Path
	if p != "/search" {
		rest, ok := strings.CutPrefix(p, "/@")
		name, ok2 := strings.CutSuffix(rest, "/search")
		if !ok || !ok2 || name == "" || strings.Contains(name, "/") {
			return false
		}
	}
	return r.URL.Query().Get("q") != ""
}

// isPublicAPI reports the public JSON API.
func isPublicAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/pub/") }

// reapers are the housekeeping job's, one per bookkeeping table that
// grows with traffic; each runs on its own (package housekeep). A new
// table's reaper is one more entry here.
func reapers() []housekeep.Reaper {
	return []housekeep.Reaper{
		// A window's count matters until the window ends; the previous
		// one is kept for whoever reads it while the hour turns.
		{Name: "shield_counters", Reap: func(tx store.Tx, now time.Time) (int, error) {
			return tx.ShieldCounters().Reap(now.Add(-2 * httpd.BlockWindow))
		}},
		// A mark the rebuild could not render for a week (its page keeps
		// failing) is given up: the artifact stays the last one made, and
		// the next write to what it shows marks it again.
		{Name: "artifact_dirty", Reap: func(tx store.Tx, now time.Time) (int, error) {
			return tx.DirtyKeys().Reap(now.Add(-staleMark))
		}},
	}
}

// staleMark is how long a mark may wait before housekeeping drops it.
const staleMark = 7 * 24 * time.Hour
