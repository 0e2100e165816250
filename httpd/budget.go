package httpd

import (
	"context"
	"fmt"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
)

// Response budgets, in bytes of encoded JSON per HTTP request, shared by
// the JSON-RPC API and the public read API (/api/pub/). A response is
// encoded a piece at a time (a call, a post) and each piece counted
// before it is kept, so what one request can make the process hold is
// about its body, one piece while it is encoded and the budget itself.
// The owner, who is trusted and whose scripts export whole pages of long
// articles, gets more.
const (
	AnonBudget  = 4 << 20
	OwnerBudget = 64 << 20
)

// Budget counts the encoded bytes of one request's response against
// Limit. The zero value has no room; set Limit.
type Budget struct {
	Limit, Used int
}

// Take counts n more bytes and reports whether they fit. Once something
// did not fit the budget is spent: what comes after is not even made.
func (b *Budget) Take(n int) bool {
	if !b.Spent() && b.Used+n <= b.Limit {
		b.Used += n
		return true
	}
	b.Used = b.Limit
	return false
}

// Spent reports whether nothing more fits.
func (b *Budget) Spent() bool { return b.Used >= b.Limit }

// The cap on anonymous requests that multiply work (a JSON-RPC batch, a
// public API answer of posts): AnonInFlight at once per process, each
// with a budget, keep the worst case near 64 MiB above idle. A request
// waits AnonWait for a free slot, long enough to absorb a burst and short
// enough that a flood does not pile up goroutines holding request bodies,
// then is refused with 503 and Retry-After.
const (
	AnonInFlight = 4
	AnonWait     = 100 * time.Millisecond
)

// Slots caps how many requests of one kind a process serves at once.
type Slots struct {
	ch   chan struct{}
	wait time.Duration
	what string // "anonymous batch requests", for the refusal

	shield dbstat.Shield // counted as its drop when counts (Counting)
	counts bool
}

// NewSlots returns n slots that a request waits at most wait for; what
// names the requests in the refusal.
func NewSlots(n int, wait time.Duration, what string) *Slots {
	return &Slots{ch: make(chan struct{}, n), wait: wait, what: what}
}

// Acquire takes a slot, waiting at most the slots' wait for one (or until
// ctx ends); it reports whether it got one. Each true must be followed by
// one Release.
func (s *Slots) Acquire(ctx context.Context) bool {
	select {
	case s.ch <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case s.ch <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	if s.counts {
		dbstat.Dropped(ctx, s.shield)
	}
	return false
}

// Counting makes a refused Acquire count as a drop by shield sh
// (shield_drops_total) in the Counter the request's context carries.
func (s *Slots) Counting(sh dbstat.Shield) *Slots {
	s.shield, s.counts = sh, true
	return s
}

// Release gives a slot back.
func (s *Slots) Release() { <-s.ch }

// InUse is how many slots are taken.
func (s *Slots) InUse() int { return len(s.ch) }

// Busy is the refusal of a request that found no slot: EUnavailable
// with a Retry-After of a second, naming the limit.
func (s *Slots) Busy() error {
	return &murlog.Error{Code: murlog.EUnavailable, RetryAfter: time.Second,
		Message: fmt.Sprintf("too many %s in flight (limit %d); retry in a second", s.what, cap(s.ch))}
}
