package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

// Counts implements queue.Inspector.
func (q *Queue) Counts(ctx context.Context) ([]queue.Count, error) {
	var out []queue.Count
	err := q.db.View(ctx, func(st store.Tx) error {
		rows, err := st.(*tx).query("SELECT topic, state, count(*) FROM queue_jobs GROUP BY topic, state ORDER BY topic, state")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c queue.Count
			if err := rows.Scan(&c.Topic, &c.State, &c.N); err != nil {
				return mapErr(err)
			}
			out = append(out, c)
		}
		return mapErr(rows.Err())
	})
	return out, err
}

// runnableCap bounds the runnable count: the worker only needs to know
// whether it is under 100, 500 or more, and counting stays cheap however
// deep the queue.
const runnableCap = 10000

// Runnable implements queue.Inspector: pending jobs plus scheduled ones
// that are due, counted up to runnableCap.
func (q *Queue) Runnable(ctx context.Context) (int, error) {
	var n int
	err := q.db.View(ctx, func(st store.Tx) error {
		t := st.(*tx)
		return t.queryRow(`SELECT (SELECT count(*) FROM (SELECT 1 FROM queue_jobs WHERE state = 'pending' LIMIT CAST(? AS INTEGER)))
			+ (SELECT count(*) FROM (SELECT 1 FROM queue_jobs WHERE state = 'scheduled' AND run_at <= ? LIMIT CAST(? AS INTEGER)))`,
			[]any{runnableCap, micros(t.now), runnableCap}, &n)
	})
	return n, err
}

// List implements queue.Inspector.
func (q *Queue) List(ctx context.Context, lq queue.ListQuery) ([]*queue.Info, error) {
	if lq.Limit <= 0 || lq.Limit > 100 {
		return nil, murlog.Invalid("limit", "must be between 1 and 100")
	}
	if lq.State != "" && !lq.State.Valid() {
		return nil, murlog.Invalid("state", "must be pending, scheduled, running, done or dead")
	}
	where, args := []string{"1 = 1"}, []any{}
	if lq.State != "" {
		where, args = append(where, "state = ?"), append(args, string(lq.State))
	}
	if lq.Topic != "" {
		where, args = append(where, "topic = ?"), append(args, lq.Topic)
	}
	if lq.Before != "" {
		where, args = append(where, "id < ?"), append(args, lq.Before)
	}
	args = append(args, lq.Limit)
	var out []*queue.Info
	err := q.db.View(ctx, func(st store.Tx) error {
		rows, err := st.(*tx).query(`SELECT id, topic, payload, priority, run_at, attempt, max_attempts, headers, last_error,
			enqueued_at, state, started_at, finished_at, CASE state WHEN 'running' THEN lease_until END FROM queue_jobs WHERE `+strings.Join(where, " AND ")+
			` ORDER BY id DESC LIMIT CAST(? AS INTEGER)`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var in queue.Info
			var runAt, enq int64
			var headers string
			var started, finished, lease sql.NullInt64
			if err := rows.Scan(&in.ID, &in.Topic, &in.Payload, &in.Priority, &runAt, &in.Attempt, &in.MaxAttempts,
				&headers, &in.LastError, &enq, &in.State, &started, &finished, &lease); err != nil {
				return mapErr(err)
			}
			in.RunAt, in.EnqueuedAt = fromMicros(runAt), fromMicros(enq)
			in.StartedAt, in.FinishedAt = fromNullMicros(started), fromNullMicros(finished)
			in.LeaseUntil = fromNullMicros(lease)
			if headers != "" {
				json.Unmarshal([]byte(headers), &in.Headers)
			}
			out = append(out, &in)
		}
		return mapErr(rows.Err())
	})
	return out, err
}

// Retry implements queue.Inspector.
func (q *Queue) Retry(ctx context.Context, id string) error {
	return q.db.Update(ctx, func(st store.Tx) error {
		t := st.(*tx)
		res, err := t.exec(`UPDATE queue_jobs SET state = 'pending', attempt = 0, run_at = ?, finished_at = NULL
			WHERE id = ? AND state = 'dead'`, micros(t.now), id)
		if err := affected(res, err, "dead job"); err != nil {
			return err
		}
		t.enqueued = true
		return nil
	})
}

// Dismiss implements queue.Inspector.
func (q *Queue) Dismiss(ctx context.Context, id string) error {
	return q.db.Update(ctx, func(st store.Tx) error {
		res, err := st.(*tx).exec("DELETE FROM queue_jobs WHERE id = ? AND state = 'dead'", id)
		return affected(res, err, "dead job")
	})
}

// Expired implements queue.EngineInspector: running jobs whose lease ran
// out, without their payloads, through the index of running leases.
func (q *Queue) Expired(ctx context.Context, limit int) ([]*queue.Job, error) {
	var out []*queue.Job
	err := q.db.View(ctx, func(st store.Tx) error {
		t := st.(*tx)
		rows, err := t.query(`SELECT id, topic, attempt, max_attempts FROM queue_jobs
			WHERE state = 'running' AND lease_until < ? ORDER BY lease_until LIMIT CAST(? AS INTEGER)`, micros(t.now), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var j queue.Job
			if err := rows.Scan(&j.ID, &j.Topic, &j.Attempt, &j.MaxAttempts); err != nil {
				return mapErr(err)
			}
			out = append(out, &j)
		}
		return mapErr(rows.Err())
	})
	return out, err
}

// Cleanup implements queue.Inspector. It deletes in chunks so one call
// never holds the write lock for long, then returns the freed pages to the
// file system (the database uses incremental auto-vacuum).
func (q *Queue) Cleanup(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for {
		var n int
		err := q.db.Update(ctx, func(st store.Tx) error {
			t := st.(*tx)
			// No index serves this (indexes cost every job): the scan walks
			// the primary key, oldest ids first, and runs about once an hour.
			res, err := t.exec(`DELETE FROM queue_jobs WHERE id IN (SELECT id FROM queue_jobs
				WHERE state = 'done' AND finished_at < ? LIMIT 1000)`, micros(before))
			n, err = rowsAffected(res, err)
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
		if n < 1000 {
			break
		}
	}
	// Fan-out positions are kept as long as the jobs they produced.
	if err := q.db.Update(ctx, func(st store.Tx) error {
		_, err := st.(*tx).exec("DELETE FROM fanout_progress WHERE updated_at < ?", micros(before))
		return err
	}); err != nil {
		return total, err
	}
	return total, q.db.IncrementalVacuum(ctx)
}

// IncrementalVacuum gives free pages back to the file system.
func (db *DB) IncrementalVacuum(ctx context.Context) error {
	db.opts.Statements.Add(dbstat.Of(ctx), 1)
	_, err := db.w.ExecContext(ctx, "PRAGMA incremental_vacuum")
	return mapErr(err)
}

// metrics accumulates counter deltas within one transaction.
type metrics map[[3]string]float64

func (m metrics) add(name, topic, label string, v float64) { m[[3]string{name, topic, label}] += v }

// addSamples adds deltas.
func (m metrics) addSamples(deltas []queue.Sample) {
	for _, d := range deltas {
		m.add(d.Name, d.Topic, d.Label, d.Value)
	}
}

// Count implements queue.Counters. The deltas are held in memory and
// written by the next transaction that writes metrics anyway (every claim
// and settlement does), by Samples, or by Close: a separate write per ack batch would
// cost as much as the ack. Samples includes them meanwhile.
func (q *Queue) Count(ctx context.Context, deltas []queue.Sample) error {
	m := metrics{}
	m.addSamples(deltas)
	q.db.addPending(m)
	return nil
}

// flushMetrics writes m, plus the deltas other transactions left pending,
// to queue_metrics in one statement.
func (t *tx) flushMetrics(m metrics) error {
	if p := t.db.takePending(); p != nil {
		t.carried = p
		for k, v := range p {
			m[k] += v
		}
	}
	return m.flush(t)
}

// flush adds the deltas to queue_metrics in one statement.
func (m metrics) flush(t *tx) error {
	if len(m) == 0 {
		return nil
	}
	args := make([]any, 0, len(m)*4)
	for k, v := range m {
		args = append(args, k[0], k[1], k[2], v)
	}
	_, err := t.exec("INSERT INTO queue_metrics (name, topic, label, value) VALUES "+
		strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?),", len(m)), ",")+
		" ON CONFLICT (name, topic, label) DO UPDATE SET value = value + excluded.value", args...)
	return err
}

// Samples returns the stored metrics, for /metrics. Deltas this process
// counted and has not written yet are written first, so a scrape sees
// every run this process finished.
func (q *Queue) Samples(ctx context.Context) ([]queue.Sample, error) {
	if q.db.hasPending() {
		if err := q.db.Update(ctx, func(st store.Tx) error { return st.(*tx).flushMetrics(metrics{}) }); err != nil {
			return nil, err
		}
	}
	var out []queue.Sample
	err := q.db.View(ctx, func(st store.Tx) error {
		rows, err := st.(*tx).query("SELECT name, topic, label, value FROM queue_metrics ORDER BY name, topic, label")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m queue.Sample
			if err := rows.Scan(&m.Name, &m.Topic, &m.Label, &m.Value); err != nil {
				return mapErr(err)
			}
			out = append(out, m)
		}
		return mapErr(rows.Err())
	})
	return out, err
}

// HasRunnable reports cheaply whether any job is runnable now, or is
// running under a lease that ran out (its worker died; a new worker
// recovers it): what a CGI request checks before spawning a worker.
func (q *Queue) HasRunnable(ctx context.Context) (bool, error) {
	var n int
	err := q.db.View(ctx, func(st store.Tx) error {
		t := st.(*tx)
		now := micros(t.now)
		return t.queryRow(`SELECT EXISTS (SELECT 1 FROM queue_jobs WHERE state = 'pending')
			OR EXISTS (SELECT 1 FROM queue_jobs WHERE state = 'scheduled' AND run_at <= ?)
			OR EXISTS (SELECT 1 FROM queue_jobs WHERE state = 'running' AND lease_until < ?)`, []any{now, now}, &n)
	})
	return n == 1, err
}

// SetGauge stores the current value of a gauge (e.g. worker_concurrency),
// so /metrics shows it whichever process serves the scrape.
func (q *Queue) SetGauge(ctx context.Context, name string, v float64) error {
	return q.db.Update(ctx, func(st store.Tx) error {
		_, err := st.(*tx).exec(`INSERT INTO queue_metrics (name, topic, label, value) VALUES (?, '', '', ?)
			ON CONFLICT (name, topic, label) DO UPDATE SET value = excluded.value`, name, v)
		return err
	})
}

// hasPending reports whether metric deltas wait to be written.
func (db *DB) hasPending() bool {
	db.pmu.Lock()
	defer db.pmu.Unlock()
	return len(db.pending) > 0
}
