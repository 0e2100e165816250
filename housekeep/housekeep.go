// Package housekeep keeps the site's bookkeeping tables bounded (issue
// 16, point 11): one hourly job runs every registered reaper, each in a
// write transaction of its own with its own error handling, so one that
// fails — or panics — never stops the others, and each logs what it did.
//
// A reaper is a name and a function of the transaction and its time; a
// table that grows with traffic (the shields' counters, the dirty
// artifact keys) gets one, registered in the composition root:
//
//	housekeep.Register(registry, store, log, housekeep.Reaper{Name: "artifact_dirty",
//		Reap: func(tx store.Tx, now time.Time) (int, error) { … }})
package housekeep

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/worker"
)

// Topic is the hourly housekeeping job.
const Topic = "housekeep.reap"

// Reaper deletes what one table no longer needs.
type Reaper struct {
	Name string // the table or what it keeps, for the log
	// Reap deletes, in tx, what is past keeping at now (the
	// transaction's time), and returns how many rows went.
	Reap func(tx store.Tx, now time.Time) (int, error)
}

var ns = uuid.MustParse("0b7e3f52-6c1d-4f0a-9a8e-2d5c7b1e4f93")

// HourlyJob is the housekeeping job of t's hour, with an id derived from
// the hour, for the worker's periodic schedule (worker.Options.Periodic).
func HourlyJob(t time.Time) queue.Job {
	return queue.OncePer(queue.Hourly, ns, t, queue.NewJob(Topic, []byte("{}")))
}

// policy retries a run that had a failing reaper a few times (each run
// runs every reaper again: reaping twice is harmless); the next hour
// brings a fresh one anyway.
var policy = queue.Policy{MaxAttempts: 3, Backoff: queue.DefaultPolicy.Backoff, Timeout: queue.DefaultTimeout}

// Register registers the housekeeping job over st with reapers. The job
// fails when any reaper failed, naming each, after every one has run.
func Register(r *worker.Registry, st store.Store, log *slog.Logger, reapers ...Reaper) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r.Handle(Topic, func(ctx context.Context, _ *queue.Job) error {
		return Run(ctx, st, log, reapers...)
	}, policy)
}

// Run runs every reaper once, each on its own, and returns the failures
// joined (nil when all succeeded).
func Run(ctx context.Context, st store.Store, log *slog.Logger, reapers ...Reaper) error {
	var errs []error
	for _, rp := range reapers {
		start := time.Now()
		n, err := reap(ctx, st, rp)
		if err != nil {
			log.Error("housekeeping reaper failed", "reaper", rp.Name, "err", err.Error())
			errs = append(errs, fmt.Errorf("reaper %s: %w", rp.Name, err))
			continue
		}
		log.Info("housekeeping reaper done", "reaper", rp.Name, "deleted", n, "took_ms", time.Since(start).Milliseconds())
	}
	return errors.Join(errs...)
}

// reap runs one reaper in its own transaction, a panic turned into its
// error.
func reap(ctx context.Context, st store.Store, rp Reaper) (n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	err = st.Update(ctx, func(tx store.Tx) (err error) {
		n, err = rp.Reap(tx, tx.Now())
		return err
	})
	return n, err
}
