package httpd

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
)

// Address blocks of the persistent shields: a /24 of IPv4 and a /48 of
// IPv6. A block is sized for a crowd, not a person — a carrier-grade NAT
// puts a stadium behind a handful of IPv4 addresses in one /24, and a
// mobile carrier hands its subscribers /64s out of shared /48s — so a
// block's limit is set for the crowd behind it, and individuals are
// limited by identity where one exists (the inbox's signing actor).
const (
	BlockBitsV4 = 24
	BlockBitsV6 = 48
)

// BlockKey is the address block of a: its /24 for IPv4 (an IPv4-mapped
// IPv6 address counts as IPv4), its /48 for IPv6.
func BlockKey(a netip.Addr) string { return prefixKey(a, BlockBitsV4, BlockBitsV6) }

// BlockWindow is the fixed window the persistent counters count in.
const BlockWindow = time.Minute

// BlockLimits are the requests one address block may make per
// BlockWindow, by class of request. They are generous, set for a crowd
// behind one carrier NAT block: the per-address shields, the login
// lockout and the limits by identity deal with individuals.
type BlockLimits struct {
	// Login is anonymous JSON-RPC requests: auth.login, and the public
	// read calls (posts.list …), which cannot be told from a login
	// before the body is parsed. The login lockout per address already
	// stops guessing; this stops a block's flood before any of it is
	// parsed or reaches the password hash.
	Login int
	// Inbox is POSTs to the inboxes: a busy server boosting a thread
	// sends a few a second, a relay more.
	Inbox int
	// Search is search queries (a page with a non-empty q).
	Search int
	// API is the public JSON API (/api/pub/).
	API int
}

// DefaultBlockLimits are the limits of each class per address block and
// minute, in one place (docs/operations.md, "Shields").
var DefaultBlockLimits = BlockLimits{Login: 600, Inbox: 6000, Search: 300, API: 3000}

// BlockCounter counts requests per key and window in state every process
// of the site shares (the store's ShieldCounters in a write transaction
// of its own), returning the count after the hit.
type BlockCounter interface {
	Hit(ctx context.Context, key string, window time.Time, n int) (int, error)
}

// BlockShield limits one class of requests per address block: first an
// in-memory token bucket (a map lookup; the only check in a resident
// server), then, when Counter is set (CGI, where a process starts empty
// and the bucket holds nothing), the persistent count of the block's
// window — one small upsert. It runs before any body is parsed or
// signature verified. A counter that fails lets the request through: a
// shield must not turn a database hiccup into refusals, and a request
// that then writes meets the write breaker anyway.
type BlockShield struct {
	Class     string        // the counter's key prefix: "login", "inbox", "search", "api"
	PerMinute int           // requests per block and BlockWindow
	Drop      dbstat.Shield // what a refusal counts as (shield_drops_total)
	// Refusal is the error code of a refusal: ERateLimited (429) by
	// default; EUnavailable (503) where the sender must retry, as an
	// inbox's does.
	Refusal murlog.Code
	Trusted []netip.Prefix   // the proxies whose X-Forwarded-For is believed
	Counter BlockCounter     // nil: the in-memory bucket only
	Now     func() time.Time // time.Now when nil
	Log     *slog.Logger     // a failing counter is logged here; discarded when nil

	mem Buckets
}

// NewBlockShield returns a shield for class at perMinute requests per
// block, counting its refusals as drop.
func NewBlockShield(class string, perMinute int, drop dbstat.Shield) *BlockShield {
	s := &BlockShield{Class: class, PerMinute: max(1, perMinute), Drop: drop}
	s.mem = Buckets{Rate: float64(s.PerMinute) / BlockWindow.Seconds(), Burst: float64(s.PerMinute)}
	return s
}

// Allow takes one request of r's address block, and returns nil, or the
// refusal (with its RetryAfter) after counting it as a drop.
func (s *BlockShield) Allow(r *http.Request) error {
	block := BlockKey(ClientAddr(r, s.Trusted))
	if s.mem.Now == nil && s.Now != nil {
		s.mem.Now = s.Now
	}
	if ok, retry := s.mem.Allow(block); !ok {
		return s.refuse(r.Context(), retry)
	}
	if s.Counter == nil {
		return nil
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	t := now()
	w := t.Truncate(BlockWindow)
	n, err := s.Counter.Hit(r.Context(), s.Class+":"+block, w, 1)
	if err != nil {
		if s.Log != nil {
			s.Log.Warn("shield counter failed; request let through", "shield", s.Class, "block", block, "err", err.Error())
		}
		return nil
	}
	if n > s.PerMinute {
		return s.refuse(r.Context(), w.Add(BlockWindow).Sub(t))
	}
	return nil
}

func (s *BlockShield) refuse(ctx context.Context, retry time.Duration) error {
	dbstat.Dropped(ctx, s.Drop)
	code := s.Refusal
	if code == "" {
		code = murlog.ERateLimited
	}
	return &murlog.Error{Code: code, RetryAfter: max(time.Second, retry),
		Message: "too many requests from your network: try again in a moment"}
}

// Middleware serves next behind the shield for the requests applies
// picks (all when nil), answering a refusal with WriteError.
func (s *BlockShield) Middleware(applies func(*http.Request) bool, log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if applies == nil || applies(r) {
			if err := s.Allow(r); err != nil {
				WriteError(w, r, log, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// AnonRPC serves the JSON-RPC handler next behind the shield for the
// calls of an anonymous caller (no valid session or token: see
// Authenticate, which must run first); the owner's calls pass. A refusal
// is a JSON-RPC error object, as the API's own are.
func (s *BlockShield) AnonRPC(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !murlog.CallerFrom(r.Context()).Owner {
			if err := s.Allow(r); err != nil {
				SetRetryAfter(w, err)
				writeRPCRefusal(w, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
