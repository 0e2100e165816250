package store

import (
	"context"
	"time"
)

// ShieldCounters count requests per address block in fixed windows
// (issue 16, point 9): the shields' state shared by every process, so a
// limit holds under CGI, where each request is a process that remembers
// nothing. A count is one statement; the caller decides what a count
// over its limit means.
type ShieldCounters interface {
	// Hit adds n (1–MaxShieldHit) to key's count in the window that
	// starts at window, and returns the count after it, as ONE atomic
	// statement: concurrent hits never lose one. key is 1–MaxShieldKey
	// bytes.
	Hit(key string, window time.Time, n int) (count int, err error)
	// Reap deletes the counts of windows that started before before and
	// returns how many: housekeeping keeps the table to the live windows.
	Reap(before time.Time) (int, error)
}

// The limits of ShieldCounters.
const (
	MaxShieldKey = 128 // bytes: a class and an IPv6 prefix fit many times over
	MaxShieldHit = 1 << 20
)

// ShieldHits counts in st's ShieldCounters, each hit in a write
// transaction of its own (httpd.BlockCounter): a shield's count must not
// wait for, or roll back with, the request's own work.
type ShieldHits struct{ Store Store }

// Hit adds n to key's count in window and returns the count after it.
func (h ShieldHits) Hit(ctx context.Context, key string, window time.Time, n int) (int, error) {
	var count int
	err := h.Store.Update(ctx, func(tx Tx) (err error) {
		count, err = tx.ShieldCounters().Hit(key, window, n)
		return err
	})
	return count, err
}
