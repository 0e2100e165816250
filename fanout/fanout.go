// Package fanout turns one delivery into one job per recipient, as the
// fan-out jobs (deliver_post, deliver_delete, update_actor, …) do for a
// persona's followers. It walks the recipients a page at a time and
// enqueues each page's jobs in one transaction, so a fan-out to 10,000
// followers is 100 short write transactions rather than 10,000, or one
// that holds the database's write lock for the whole walk.
//
// Recipients on domains the circuit breaker holds dead (see package
// domains) get no job. The dead set is read once per fan-out.
//
// Each page's jobs commit in one transaction together with the fan-out's
// position (the last recipient done). A fan-out that stops half-way (an
// error, a crash, the 5-minute limit of a CGI-spawned worker) resumes
// after that recipient when it runs again, so no recipient gets two jobs,
// and a finished fan-out run again enqueues nothing. Jobs keep ordinary
// time-ordered ids, which keeps inserts append-only and fan-out jobs in
// age order.
package fanout

import (
	"context"
	"errors"
	"fmt"

	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

// Recipient is one target of a fan-out.
type Recipient struct {
	ID    string // stable and unique within the fan-out; the pager's cursor
	Inbox string // absolute URL; its host[:port] is the domain the breaker checks
}

// Pager returns up to limit recipients that sort after the one whose ID
// is after ("" for the first page), in a stable order. An empty page ends
// the walk.
type Pager func(ctx context.Context, after string, limit int) ([]Recipient, error)

// DefaultPageSize is the seed's page of 100: big enough that a multi-row
// insert amortises the commit, small enough that other writers wait only
// a few milliseconds for the lock.
const DefaultPageSize = 100

// Options configure Run. Key and Build are required.
type Options struct {
	// Key identifies the fan-out, usually the id of the job running it;
	// its progress is stored under it.
	Key string
	// PageSize is how many recipients one transaction covers;
	// DefaultPageSize when 0, at most queue.MaxBatch.
	PageSize int
	// Build makes the job for one recipient (queue.NewJob gives it a
	// fresh id). An error stops the fan-out.
	Build func(Recipient) (queue.Job, error)
	// Dead returns the domains to skip (domains.Service.DeadSet). It is
	// called at most once per Run; nil skips nothing.
	Dead func(ctx context.Context) (map[string]bool, error)
}

// Stats count what a Run did. After an error they cover the pages that
// committed.
type Stats struct {
	Recipients  int // read in committed pages
	Enqueued    int // jobs in committed pages, counting ids the queue already had and skipped
	SkippedDead int // recipients on dead domains
	Pages       int // pages committed
	// Resumed is the recipient the run started after ("" from the start);
	// Finished reports a fan-out that had already finished.
	Resumed  string
	Finished bool
}

// Run walks pages and enqueues one job per live recipient, one
// transaction per page. On error it returns the stats of the committed
// pages and an error saying how far it got.
func Run(ctx context.Context, st store.Store, pages Pager, o Options) (Stats, error) {
	var s Stats
	if o.Build == nil || o.Key == "" {
		return s, errors.New("fanout: Options.Key and Options.Build are required")
	}
	size := o.PageSize
	if size == 0 {
		size = DefaultPageSize
	}
	if size < 0 || size > queue.MaxBatch {
		return s, fmt.Errorf("fanout: page size %d is outside 1–%d", size, queue.MaxBatch)
	}
	var dead map[string]bool // read on the first page, kept for the run
	deadRead := o.Dead == nil
	var after string
	var done bool
	if err := st.View(ctx, func(tx store.Tx) error {
		var err error
		after, done, err = tx.FanoutProgress().Get(o.Key)
		return err
	}); err != nil {
		return s, fmt.Errorf("fanout: read progress of %s: %w", o.Key, err)
	}
	s.Resumed, s.Finished = after, done
	if done {
		return s, nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return s, s.stopped(err)
		}
		page, err := pages(ctx, after, size)
		if err != nil {
			return s, s.stopped(fmt.Errorf("read recipients after %q: %w", after, err))
		}
		if len(page) == 0 {
			if err := st.Update(ctx, func(tx store.Tx) error {
				return tx.FanoutProgress().Save(o.Key, after, true, tx.Now())
			}); err != nil {
				return s, s.stopped(fmt.Errorf("record completion: %w", err))
			}
			return s, nil
		}
		if len(page) > size {
			return s, s.stopped(fmt.Errorf("pager returned %d recipients for a page of %d", len(page), size))
		}
		if last := page[len(page)-1].ID; last == after {
			return s, s.stopped(fmt.Errorf("pager did not advance past %q", after))
		}
		if !deadRead {
			if dead, err = o.Dead(ctx); err != nil {
				return s, s.stopped(fmt.Errorf("read dead domains: %w", err))
			}
			deadRead = true
		}
		// Jobs are built before the transaction: building (JSON, signing
		// material) must not hold the write lock.
		jobs := make([]queue.Job, 0, len(page))
		skipped := 0
		for _, r := range page {
			if isDead(dead, r.Inbox) {
				skipped++
				continue
			}
			j, err := o.Build(r)
			if err != nil {
				return s, s.stopped(fmt.Errorf("build job for recipient %q: %w", r.ID, err))
			}
			jobs = append(jobs, j)
		}
		last := page[len(page)-1].ID
		if err := st.Update(ctx, func(tx store.Tx) error {
			if len(jobs) > 0 {
				if err := tx.Jobs().Enqueue(jobs...); err != nil {
					return err
				}
			}
			return tx.FanoutProgress().Save(o.Key, last, false, tx.Now())
		}); err != nil {
			return s, s.stopped(fmt.Errorf("enqueue %d jobs: %w", len(jobs), err))
		}
		s.Pages++
		s.Recipients += len(page)
		s.Enqueued += len(jobs)
		s.SkippedDead += skipped
		after = last
	}
}

// stopped wraps err with how far the fan-out got, keeping err's code for
// the caller (an invalid job is EInvalid, a busy database EUnavailable).
func (s Stats) stopped(err error) error {
	return fmt.Errorf("fanout: stopped at page %d, after %d pages (%d jobs) committed: %w", s.Pages+1, s.Pages, s.Enqueued, err)
}

// isDead reports whether inbox is on a dead domain. An inbox whose domain
// cannot be read is not skipped: the breaker skips only what it knows is
// dead, and the delivery job reports the bad URL where the owner sees it.
func isDead(dead map[string]bool, inbox string) bool {
	if len(dead) == 0 {
		return false // no URL parsing in the common case
	}
	d, err := domains.FromURL(inbox)
	return err == nil && dead[d]
}
