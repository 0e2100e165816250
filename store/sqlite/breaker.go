package sqlite

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// writeBreaker answers a write 503 + Retry-After at once, before it
// waits for the writer, while the writer is failing or saturated (issue
// 16, point 9): a crowd's writes then cost it nothing, where waiting on a
// failing or swamped database would hold every request until its busy
// timeout and answer 500 or time out.
//
//   - Saturated: more than MaxWaitingWrites writes already wait for the
//     one writer connection. The next is refused with Retry-After 1 s.
//   - Failing: BreakerFailures writes in a row failed on the database
//     itself (busy past the timeout, not writable), not on their own
//     input; a full disk is not counted (it fails at once and is
//     answered as such). Writes are then refused for BreakerCooldown;
//     the first after it is let through, and its outcome closes the
//     breaker or opens it again.
type writeBreaker struct {
	now     func() time.Time
	waiting atomic.Int64
	open    atomic.Bool // for the write_breaker_open gauge

	mu    sync.Mutex
	fails int
	until time.Time // refused until then
}

// The breaker's limits.
const (
	MaxWaitingWrites = 64
	BreakerFailures  = 5
	BreakerCooldown  = 5 * time.Second
)

// enter admits a write or refuses it; an admitted write calls leave.
func (b *writeBreaker) enter() error {
	b.mu.Lock()
	if wait := b.until.Sub(b.now()); wait > 0 {
		b.mu.Unlock()
		return &murlog.Error{Code: murlog.EUnavailable, Message: "the database is failing writes; try again shortly", RetryAfter: wait}
	}
	b.mu.Unlock()
	if b.waiting.Add(1) > MaxWaitingWrites {
		b.waiting.Add(-1)
		return &murlog.Error{Code: murlog.EUnavailable, Message: "too many writes at once; try again shortly", RetryAfter: time.Second}
	}
	return nil
}

// leave records the outcome of an admitted write.
func (b *writeBreaker) leave(err error) {
	b.waiting.Add(-1)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !writerFailed(err) {
		b.fails = 0
		b.until = time.Time{}
		b.open.Store(false)
		return
	}
	b.fails++
	if b.fails >= BreakerFailures {
		b.until = b.now().Add(BreakerCooldown)
		b.open.Store(true)
	}
}

// writerFailed reports whether err is the database's failure rather than
// the write's own (an invalid or conflicting input, a missing row).
func writerFailed(err error) bool {
	// A caller that gave up (a client gone, a job's deadline) says nothing
	// about the writer: a spike's abandoned requests must not open it.
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	// A full disk fails at once and is answered as such (it recovers the
	// moment there is room); other errors are the write's own or a bug.
	// What the breaker spares is the slow failure: a writer busy past its
	// timeout, or one that cannot write at all.
	if errors.Is(err, store.ErrDiskFull) || errors.Is(err, errClosed) {
		return false // a closed database is no writer failing
	}
	return murlog.ErrorCode(err) == murlog.EUnavailable
}

// WriteBreakerOpen reports whether writes are being refused for failing
// (the write_breaker_open gauge).
func (db *DB) WriteBreakerOpen() bool {
	if !db.breaker.open.Load() {
		return false
	}
	db.breaker.mu.Lock()
	defer db.breaker.mu.Unlock()
	return db.breaker.now().Before(db.breaker.until)
}
