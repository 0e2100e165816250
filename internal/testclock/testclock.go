// Package testclock is the settable clock of tests: a store opened with
// its Now and the test read the same time, which moves only when the test
// advances it (past a backoff, a retention, a window).
package testclock

import (
	"sync"
	"time"
)

// Clock is a settable clock, safe for concurrent use (workers and
// handlers read it while the test advances it).
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a Clock standing at t.
func New(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
