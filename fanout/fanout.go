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
// after that recipient when it runs again, and a finished fan-out run
// again enqueues nothing.
//
// Two runs of the same fan-out at once (a stale recovery handing the
// parent job to a second worker while the first still runs, or a queue
// migration running it on both sides) cannot double-deliver, for two
// reasons that hold separately. The position is saved with a compare:
// a page commits only if the position is still the one this run started
// the page from, so each page commits in exactly one run and the other
// rolls back and carries on from where the winner got to. And each job's
// id is derived from the fan-out's key and the recipient (JobID), so even
// a run that lost its position (progress rows outlive a migration only
// when they are copied too) enqueues ids the queue already has, which it
// skips — for as long as it keeps them: done jobs and positions are both
// kept for queue.CompletedRetention.
package fanout

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/murlog/murlog"
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
	// Build makes the job for one recipient. Run replaces the job's id
	// with JobID(Key, recipient.ID), so whatever id Build gave is unused.
	// An error stops the fan-out.
	Build func(Recipient) (queue.Job, error)
	// Dead returns the domains to skip (domains.Service.DeadSet). It is
	// called at most once per Run; nil skips nothing.
	Dead func(ctx context.Context) (map[string]bool, error)
	// OnPage, when set, runs in each page's transaction after its jobs
	// are enqueued, with the recipients that got a job and those skipped
	// on dead domains, so what a caller records about them (delivery
	// rows) commits exactly when the jobs do. An error rolls the page
	// back and stops the fan-out.
	OnPage func(tx store.Tx, sent, skipped []Recipient) error
}

// Stats count what a Run did. After an error they cover the pages that
// committed.
type Stats struct {
	Recipients  int // read in committed pages
	Enqueued    int // jobs in committed pages, counting ids the queue already had and skipped
	SkippedDead int // recipients on dead domains
	Pages       int // pages committed
	// Lost counts pages another run of the same fan-out committed first;
	// this run rolled them back and went on from that run's position.
	Lost int
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
	after, done, err := position(ctx, st, o.Key)
	if err != nil {
		return s, err
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
			won, err := advance(ctx, st, o.Key, after, after, true, nil, nil)
			if err != nil {
				return s, s.stopped(fmt.Errorf("record completion: %w", err))
			}
			if won {
				return s, nil
			}
			// Another run moved on meanwhile (or finished): follow it.
			s.Lost++
			if after, done, err = position(ctx, st, o.Key); err != nil || done {
				return s, err
			}
			continue
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
		var sent, skippedRs []Recipient
		skipped := 0
		for _, r := range page {
			if isDead(dead, r.Inbox) {
				skipped++
				if o.OnPage != nil {
					skippedRs = append(skippedRs, r)
				}
				continue
			}
			if o.OnPage != nil {
				sent = append(sent, r)
			}
			j, err := o.Build(r)
			if err != nil {
				return s, s.stopped(fmt.Errorf("build job for recipient %q: %w", r.ID, err))
			}
			j.ID = JobID(o.Key, r.ID)
			jobs = append(jobs, j)
		}
		last := page[len(page)-1].ID
		var onPage func(store.Tx) error
		if o.OnPage != nil {
			onPage = func(tx store.Tx) error { return o.OnPage(tx, sent, skippedRs) }
		}
		won, err := advance(ctx, st, o.Key, after, last, false, jobs, onPage)
		if err != nil {
			return s, s.stopped(fmt.Errorf("enqueue %d jobs: %w", len(jobs), err))
		}
		if !won {
			s.Lost++
			if after, done, err = position(ctx, st, o.Key); err != nil || done {
				return s, err
			}
			continue
		}
		s.Pages++
		s.Recipients += len(page)
		s.Enqueued += len(jobs)
		s.SkippedDead += skipped
		after = last
	}
}

// errLost rolls back a page whose position another run advanced first.
var errLost = errors.New("fanout: position moved by another run")

// advance commits jobs and moves key's position from from to to in one
// transaction, with onPage (when not nil) in it. It returns false, with
// nothing written, when the position was no longer from.
func advance(ctx context.Context, st store.Store, key, from, to string, done bool, jobs []queue.Job, onPage func(store.Tx) error) (bool, error) {
	err := st.Update(ctx, func(tx store.Tx) error {
		won, err := tx.FanoutProgress().Advance(key, from, to, done, tx.Now())
		if err != nil {
			return err
		}
		if !won {
			return errLost // the page's jobs are not enqueued
		}
		if len(jobs) > 0 {
			if err := tx.Jobs().Enqueue(jobs...); err != nil {
				return err
			}
		}
		if onPage != nil {
			return onPage(tx)
		}
		return nil
	})
	if errors.Is(err, errLost) {
		return false, nil
	}
	return err == nil, err
}

// position reads key's stored position.
func position(ctx context.Context, st store.Store, key string) (after string, done bool, err error) {
	err = st.View(ctx, func(tx store.Tx) error {
		after, done, err = tx.FanoutProgress().Get(key)
		return err
	})
	if err != nil {
		return "", false, fmt.Errorf("fanout: read progress of %s: %w", key, err)
	}
	return after, done, nil
}

// jobNS namespaces the ids of fan-out jobs.
var jobNS = uuid.MustParse("9a0f4e52-3c1d-4b8e-a6f2-5d7c0b1e8f34")

// JobID is the id of the job fan-out key gives recipient: a function of
// the two alone, so a second enqueue of it is skipped by the queue, and
// distinct for distinct recipients of one key.
//
// When recipient is a canonical UUID — as the rows of a followers table
// are — the id is recipient + h(key) modulo 2^128, h a SHA-1 derived
// 128-bit value. That is one-to-one: two recipients of a fan-out never
// share an id, with certainty rather than odds. And it keeps the
// recipients' order, in which the pager walks them, so each page's jobs
// go to one place in the queue's primary key as time-ordered ids do: a
// name-based hash there scattered every page over the whole fan-out's
// range, and 10,000 jobs took four times as long to enqueue (see
// docs/benchmarks.md). A fan-out's jobs thus sit together at a place
// that key picks, not among the queue's other jobs by age; claims in
// (priority, id) order still take each fan-out's jobs in recipient order.
//
// For any other recipient id the id is a name-based UUID (version 5) of
// key and recipient, its first 48 bits replaced by key's timestamp when
// key is a UUIDv7, so those jobs sort by age; the 74 hash bits left give
// a million recipients odds of about 10^-11 of one collision.
func JobID(key, recipient string) string {
	// Only the canonical form: uuid.Parse would read "ABC…" and "abc…"
	// as one UUID, and so two recipients as one.
	if murlog.ValidID(recipient) {
		r, h := uuid.MustParse(recipient), uuid.NewSHA1(jobNS, []byte(key))
		var id uuid.UUID
		carry := 0
		for i := 15; i >= 0; i-- {
			sum := int(r[i]) + int(h[i]) + carry
			id[i], carry = byte(sum), sum>>8
		}
		return id.String()
	}
	id := uuid.NewSHA1(jobNS, []byte(key+"\n"+recipient))
	if k, err := uuid.Parse(key); err == nil && k.Version() == 7 && murlog.ValidID(key) {
		copy(id[:6], k[:6])
	}
	return id.String()
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
