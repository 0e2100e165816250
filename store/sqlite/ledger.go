package sqlite

import (
	"context"
	"strings"
	"time"

	"github.com/murlog/murlog/store"
)

// Ledger is the run-once record of a queue provider migration
// (worker.Ledger over the queue_seen table): while every job exists in two
// queues, the worker asks it before running a job and tells it after, so a
// job seen on both sides runs once. It lives in the main database whatever
// the queues are, because both sides' workers must consult the same record.
type Ledger struct{ db *DB }

// Ledger returns the migration ledger stored in this database.
func (db *DB) Ledger() *Ledger { return &Ledger{db: db} }

// ledgerChunk bounds the ids of one statement, far below SQLite's limit on
// bound variables; a worker's claim (at most 32 jobs) always fits in one.
const ledgerChunk = 512

// padded returns ids extended to the next power of two (repeating the
// first id) so that the statement text takes one of a handful of shapes:
// each distinct text is a prepared statement kept for reuse, and a length
// per batch size would fill the cache with hundreds of them. A repeated id
// changes neither an IN list nor an INSERT … ON CONFLICT DO NOTHING.
func padded(ids []string) []any {
	n := 1
	for n < len(ids) {
		n *= 2
	}
	out := make([]any, n)
	for i := range out {
		if i < len(ids) {
			out[i] = ids[i]
		} else {
			out[i] = ids[0]
		}
	}
	return out
}

// Seen reports which of ids were recorded as done: one query per
// ledgerChunk ids, on a read connection so workers never wait for the
// writer to look.
func (l *Ledger) Seen(ctx context.Context, ids []string) (map[string]bool, error) {
	seen := map[string]bool{}
	if len(ids) == 0 {
		return seen, nil
	}
	err := l.db.View(ctx, func(st store.Tx) error {
		t := st.(*tx)
		for start := 0; start < len(ids); start += ledgerChunk {
			args := padded(ids[start:min(start+ledgerChunk, len(ids))])
			rows, err := t.query("SELECT id FROM queue_seen WHERE id IN (?"+strings.Repeat(", ?", len(args)-1)+")", args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return mapErr(err)
				}
				seen[id] = true
			}
			if err := rows.Close(); err != nil {
				return mapErr(err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return seen, nil
}

// Done records ids as run to completion, in one transaction with one
// multi-row INSERT per ledgerChunk ids. Ids already recorded keep their
// first done_at: the earliest completion is what Prune's cutoff is about.
func (l *Ledger) Done(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return l.db.Update(ctx, func(st store.Tx) error {
		t := st.(*tx)
		now := micros(t.now)
		for start := 0; start < len(ids); start += ledgerChunk {
			ps := padded(ids[start:min(start+ledgerChunk, len(ids))])
			args := make([]any, 0, 2*len(ps))
			for _, id := range ps {
				args = append(args, id, now)
			}
			if _, err := t.exec("INSERT INTO queue_seen (id, done_at) VALUES "+
				strings.TrimSuffix(strings.Repeat("(?, ?),", len(ps)), ",")+
				" ON CONFLICT (id) DO NOTHING", args...); err != nil {
				return err
			}
		}
		return nil
	})
}

// pruneChunk is how many rows one Prune transaction deletes, so pruning a
// large ledger never holds the write lock for long.
const pruneChunk = 1000

// Prune deletes the ledger entries of jobs done before the cutoff and
// returns how many it deleted. Prune only once neither queue can still
// hand out a copy of those jobs (both sides drained, dual write off): an
// entry pruned too early lets a late copy run again.
func (l *Ledger) Prune(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for {
		var n int
		err := l.db.Update(ctx, func(st store.Tx) error {
			// No index on done_at: the ledger only exists during a
			// migration and is pruned rarely, so a scan is cheaper than
			// an index paid for on every Done.
			res, err := st.(*tx).exec(`DELETE FROM queue_seen WHERE id IN (SELECT id FROM queue_seen
				WHERE done_at < ? LIMIT CAST(? AS INTEGER))`, micros(before), pruneChunk)
			n, err = rowsAffected(res, err)
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
		if n < pruneChunk {
			break
		}
	}
	if total == 0 {
		return 0, nil
	}
	return total, l.db.IncrementalVacuum(ctx)
}
