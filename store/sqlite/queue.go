package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/trace"
)

// Queue is the embedded job queue: queue.Queue and queue.Inspector over
// the queue_jobs table of the same database file. Claims are one
// UPDATE … RETURNING over a LIMIT subselect inside a BEGIN IMMEDIATE
// transaction, so two workers (even in two processes) never claim the
// same job; done and dead rows stay out of the indexes claiming walks.
type Queue struct {
	db *DB
	// Poll is how often a blocked Dequeue looks for work it was not woken
	// for (jobs enqueued by another process, or coming due). 1 s when 0.
	Poll time.Duration
}

var (
	_ queue.Queue     = (*Queue)(nil)
	_ queue.Inspector = (*Queue)(nil)
)

// Queue returns the job queue stored in this database.
func (db *DB) Queue() *Queue { return &Queue{db: db} }

// Provider implements queue.Queue.
func (q *Queue) Provider() string { return "sqlite" }

// Woken returns a channel that receives after a transaction that enqueued
// jobs commits in this process. One receiver is woken per signal.
func (db *DB) Woken() <-chan struct{} { return db.woken }

func (db *DB) wake() {
	select {
	case db.woken <- struct{}{}:
	default:
	}
}

// jobs implements store.Jobs: transactional enqueue.
type jobs struct{ t *tx }

func (j jobs) Enqueue(js ...queue.Job) error {
	if err := insertJobs(j.t, js); err != nil {
		return err
	}
	j.t.enqueued = true
	return nil
}

const jobCols = "id, topic, payload, priority, state, run_at, attempt, max_attempts, headers, last_error, enqueued_at"

// insertRows is how many jobs one INSERT statement carries: a multi-row
// insert costs about what one row does, which is what lets a fan-out page
// of 100 deliveries commit in a few milliseconds.
const insertRows = 50

// insertJobs validates and inserts jobs, skipping ids that exist, and
// counts what was inserted in queue_enqueued_total.
func insertJobs(t *tx, js []queue.Job) error {
	if len(js) > queue.MaxBatch {
		return murlog.Invalid("jobs", "a batch holds at most %d jobs, not %d", queue.MaxBatch, len(js))
	}
	now := t.now
	rows := make([]any, 0, len(js)*11)
	for i := range js {
		j := &js[i]
		if err := j.Validate(); err != nil {
			return err
		}
		runAt := j.RunAt
		if j.Delay > 0 {
			runAt = now.Add(j.Delay)
		}
		state := queue.StatePending
		if runAt.After(now) {
			state = queue.StateScheduled
		} else {
			runAt = now
		}
		if tc, ok := trace.From(t.ctx); ok && j.Headers[trace.Header] == "" {
			// The job continues the trace of the request that caused it.
			h := make(map[string]string, len(j.Headers)+1)
			for k, v := range j.Headers {
				h[k] = v
			}
			h[trace.Header] = tc.Child().String()
			j.Headers = h
		}
		headers := ""
		if len(j.Headers) > 0 {
			b, err := json.Marshal(j.Headers)
			if err != nil {
				return murlog.Invalid("headers", "%v", err)
			}
			headers = string(b)
		}
		payload := j.Payload
		if payload == nil {
			payload = []byte{}
		}
		rows = append(rows, j.ID, j.Topic, payload, j.Priority, string(state), micros(runAt), 0,
			queue.MaxAttemptsOf(j), headers, "", micros(now))
	}
	inserted := map[string]float64{}
	if len(js) == 1 {
		// The common case (one job caused by one write) skips RETURNING's
		// row machinery.
		res, err := t.exec("INSERT INTO queue_jobs ("+jobCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING", rows...)
		n, err := rowsAffected(res, err)
		if err != nil {
			return err
		}
		inserted[js[0].Topic] += float64(n)
	}
	for start := 0; start < len(js) && len(js) > 1; start += insertRows {
		n := min(insertRows, len(js)-start)
		q := "INSERT INTO queue_jobs (" + jobCols + ") VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?),", n), ",") +
			" ON CONFLICT (id) DO NOTHING RETURNING topic"
		r, err := t.query(q, rows[start*11:(start+n)*11]...)
		if err != nil {
			return err
		}
		for r.Next() {
			var topic string
			if err := r.Scan(&topic); err != nil {
				r.Close()
				return mapErr(err)
			}
			inserted[topic]++
		}
		if err := r.Close(); err != nil {
			return mapErr(err)
		}
	}
	if t.later == nil {
		t.later = metrics{}
	}
	for topic, n := range inserted {
		if n > 0 {
			t.later.add("queue_enqueued_total", topic, "", n)
		}
	}
	return nil
}

// Enqueue implements queue.Queue.
func (q *Queue) Enqueue(ctx context.Context, j queue.Job) error {
	return q.EnqueueBatch(ctx, []queue.Job{j})
}

// EnqueueBatch implements queue.Queue: one transaction for all jobs.
func (q *Queue) EnqueueBatch(ctx context.Context, js []queue.Job) error {
	if len(js) == 0 {
		return nil
	}
	return q.db.Update(ctx, func(tx store.Tx) error { return tx.Jobs().Enqueue(js...) })
}

// DequeueBatch implements queue.Queue: due scheduled jobs are promoted and
// up to max pending ones claimed, in one write transaction.
func (q *Queue) DequeueBatch(ctx context.Context, topics []string, max int) ([]*queue.Job, error) {
	if max <= 0 {
		return nil, nil
	}
	var out []*queue.Job
	err := q.db.Update(ctx, func(st store.Tx) error {
		t := st.(*tx)
		now := micros(t.now)
		if _, err := t.exec("UPDATE queue_jobs SET state = 'pending' WHERE state = 'scheduled' AND run_at <= ?", now); err != nil {
			return err
		}
		if err := t.flushMetrics(metrics{}); err != nil {
			return err
		}
		where, args := "state = 'pending'", []any{now}
		if len(topics) > 0 {
			where += " AND topic IN (?" + strings.Repeat(", ?", len(topics)-1) + ")"
		}
		for _, tp := range topics {
			args = append(args, tp)
		}
		args = append(args, max)
		rows, err := t.query(`UPDATE queue_jobs SET state = 'running', attempt = attempt + 1, started_at = ?
			WHERE id IN (SELECT id FROM queue_jobs WHERE `+where+` ORDER BY priority, id LIMIT ?)
			RETURNING id, topic, payload, priority, run_at, attempt, max_attempts, headers, last_error, enqueued_at`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			j, err := scanJob(rows)
			if err != nil {
				return err
			}
			out = append(out, j)
		}
		return mapErr(rows.Err())
	})
	if err != nil {
		return nil, err
	}
	// RETURNING gives no order; claim order is priority, then age.
	sortJobs(out)
	return out, nil
}

func scanJob(sc interface{ Scan(...any) error }) (*queue.Job, error) {
	var j queue.Job
	var runAt, enq int64
	var headers string
	if err := sc.Scan(&j.ID, &j.Topic, &j.Payload, &j.Priority, &runAt, &j.Attempt, &j.MaxAttempts, &headers, &j.LastError, &enq); err != nil {
		return nil, mapErr(err)
	}
	j.RunAt, j.EnqueuedAt = fromMicros(runAt), fromMicros(enq)
	if headers != "" {
		if err := json.Unmarshal([]byte(headers), &j.Headers); err != nil {
			return nil, murlog.Internal(fmt.Errorf("job %s headers: %w", j.ID, err))
		}
	}
	return &j, nil
}

func sortJobs(js []*queue.Job) {
	for i := 1; i < len(js); i++ {
		for k := i; k > 0 && less(js[k], js[k-1]); k-- {
			js[k], js[k-1] = js[k-1], js[k]
		}
	}
}

func less(a, b *queue.Job) bool {
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	return a.ID < b.ID
}

// Dequeue implements queue.Queue: it claims one job, waiting until one is
// enqueued in this process (woken at once), or Poll passes.
func (q *Queue) Dequeue(ctx context.Context, topics []string) (*queue.Job, error) {
	return queue.PollDequeue(ctx, q.DequeueBatch, topics, q.db.woken, q.Poll)
}

// Ack implements queue.Queue.
func (q *Queue) Ack(ctx context.Context, j *queue.Job, r queue.Result) error {
	return q.AckBatch(ctx, []queue.Ack{{Job: j, Result: r}})
}

// AckBatch implements queue.Queue: every outcome in one transaction, and
// successes and dead letters each in one statement (a worker acks its
// batch at once; per-row statements would cost more than the claim). An
// ack whose job is no longer running under the same attempt (it was
// recovered as stale and claimed again meanwhile) changes nothing: the
// attempt number fences out late workers.
func (q *Queue) AckBatch(ctx context.Context, acks []queue.Ack) error {
	if len(acks) == 0 {
		return nil
	}
	return q.db.Update(ctx, func(st store.Tx) error {
		t := st.(*tx)
		now := micros(t.now)
		m := metrics{}
		var done, dead []queue.Ack
		for _, a := range acks {
			j, r := a.Job, a.Result
			status := r.Status
			if status == queue.Retry && j.Attempt >= queue.MaxAttemptsOf(j) {
				status = queue.Dead
			}
			switch status {
			case queue.Success:
				done = append(done, a)
			case queue.Dead:
				dead = append(dead, a)
			case queue.Retry:
				next := t.now.Add(queue.PolicyFor(j.Topic).Backoff(j.Attempt))
				res, err := t.exec(`UPDATE queue_jobs SET state = 'scheduled', run_at = ?, last_error = ?
					WHERE id = ? AND state = 'running' AND attempt = ?`, micros(next), errText(r.Err), j.ID, j.Attempt)
				if n, err := rowsAffected(res, err); err != nil {
					return err
				} else if n > 0 {
					m.processed(j.Topic, queue.Retry, r.Duration)
				}
			case queue.Released:
				if _, err := t.exec(`UPDATE queue_jobs SET state = 'pending', attempt = attempt - 1, started_at = NULL
					WHERE id = ? AND state = 'running' AND attempt = ?`, j.ID, j.Attempt); err != nil {
					return err
				}
			default:
				return murlog.Invalid("status", "unknown ack status %d", status)
			}
		}
		if err := finish(t, done, queue.Success, now, m); err != nil {
			return err
		}
		if err := finish(t, dead, queue.Dead, now, m); err != nil {
			return err
		}
		return t.flushMetrics(m)
	})
}

// finish moves acked jobs to done or dead in one statement per chunk and
// counts the ones that were still theirs to finish.
func finish(t *tx, acks []queue.Ack, status queue.Status, now int64, m metrics) error {
	for start := 0; start < len(acks); start += insertRows {
		chunk := acks[start:min(start+insertRows, len(acks))]
		var set string
		var args []any
		if status == queue.Success {
			set, args = "state = 'done', finished_at = ?, last_error = ''", []any{now}
		} else {
			// Each dead letter keeps its own reason.
			var cases strings.Builder
			cases.WriteString("CASE id")
			for _, a := range chunk {
				cases.WriteString(" WHEN ? THEN ?")
				args = append(args, a.Job.ID, errText(a.Result.Err))
			}
			cases.WriteString(" END")
			set = "state = 'dead', finished_at = ?, last_error = " + cases.String()
			args = append([]any{now}, args...)
		}
		for _, a := range chunk {
			args = append(args, a.Job.ID, a.Job.Attempt)
		}
		rows, err := t.query("UPDATE queue_jobs SET "+set+" WHERE state = 'running' AND (id, attempt) IN (VALUES "+
			strings.TrimSuffix(strings.Repeat("(?, ?),", len(chunk)), ",")+") RETURNING id", args...)
		if err != nil {
			return err
		}
		finished := map[string]bool{}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return mapErr(err)
			}
			finished[id] = true
		}
		if err := rows.Close(); err != nil {
			return mapErr(err)
		}
		for _, a := range chunk {
			if finished[a.Job.ID] {
				m.processed(a.Job.Topic, status, a.Result.Duration)
			}
		}
	}
	return nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return truncate(err.Error(), 2000)
}

// HealthCheck implements queue.Queue.
func (q *Queue) HealthCheck(ctx context.Context) error {
	_, err := q.db.SchemaVersion(ctx)
	return err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

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
		return t.queryRow(`SELECT (SELECT count(*) FROM (SELECT 1 FROM queue_jobs WHERE state = 'pending' LIMIT ?))
			+ (SELECT count(*) FROM (SELECT 1 FROM queue_jobs WHERE state = 'scheduled' AND run_at <= ? LIMIT ?))`,
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
			enqueued_at, state, started_at, finished_at FROM queue_jobs WHERE `+strings.Join(where, " AND ")+
			` ORDER BY id DESC LIMIT ?`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var in queue.Info
			var runAt, enq int64
			var headers string
			var started, finished sql.NullInt64
			if err := rows.Scan(&in.ID, &in.Topic, &in.Payload, &in.Priority, &runAt, &in.Attempt, &in.MaxAttempts,
				&headers, &in.LastError, &enq, &in.State, &started, &finished); err != nil {
				return mapErr(err)
			}
			in.RunAt, in.EnqueuedAt = fromMicros(runAt), fromMicros(enq)
			in.StartedAt, in.FinishedAt = fromNullMicros(started), fromNullMicros(finished)
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

// RecoverStale implements queue.Inspector.
func (q *Queue) RecoverStale(ctx context.Context, olderThan time.Duration) (int, error) {
	var n int
	err := q.db.Update(ctx, func(st store.Tx) error {
		t := st.(*tx)
		cutoff, now := micros(t.now.Add(-olderThan)), micros(t.now)
		rows, err := t.query(`UPDATE queue_jobs SET state = 'dead', finished_at = ?,
			last_error = 'abandoned: the worker stopped during its last attempt (' || attempt || ')'
			WHERE state = 'running' AND started_at < ? AND attempt >= max_attempts RETURNING topic`, now, cutoff)
		if err != nil {
			return err
		}
		m := metrics{}
		for rows.Next() {
			var topic string
			if err := rows.Scan(&topic); err != nil {
				rows.Close()
				return mapErr(err)
			}
			m.processed(topic, queue.Dead, 0)
			n++
		}
		rows.Close()
		res, err := t.exec(`UPDATE queue_jobs SET state = 'pending', run_at = ?,
			last_error = 'the worker stopped during attempt ' || attempt
			WHERE state = 'running' AND started_at < ?`, now, cutoff)
		k, err := rowsAffected(res, err)
		if err != nil {
			return err
		}
		if k > 0 {
			t.enqueued = true
		}
		n += k
		return t.flushMetrics(m)
	})
	return n, err
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
	_, err := db.w.ExecContext(ctx, "PRAGMA incremental_vacuum")
	return mapErr(err)
}

// metrics accumulates counter deltas within one transaction.
type metrics map[[3]string]float64

func (m metrics) add(name, topic, label string, v float64) { m[[3]string{name, topic, label}] += v }

// processed counts one finished run: its result, a dead letter, and its
// duration. The histogram is stored per bucket (not cumulative), so one
// observation touches one row; /metrics adds the buckets up.
func (m metrics) processed(topic string, status queue.Status, d time.Duration) {
	m.add("queue_processed_total", topic, status.String(), 1)
	if status == queue.Dead {
		m.add("queue_dlq_total", topic, "", 1)
	}
	s := d.Seconds()
	le := "+Inf"
	for _, b := range queue.DurationBuckets {
		if s <= b {
			le = strconv.FormatFloat(b, 'g', -1, 64)
			break
		}
	}
	m.add("queue_duration_seconds_bucket", topic, le, 1)
	m.add("queue_duration_seconds_sum", topic, "", s)
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

// Samples returns the stored metrics, for /metrics.
func (q *Queue) Samples(ctx context.Context) ([]queue.Sample, error) {
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

// HasRunnable reports cheaply whether any job is runnable now: what a CGI
// request checks before spawning a worker.
func (q *Queue) HasRunnable(ctx context.Context) (bool, error) {
	var n int
	err := q.db.View(ctx, func(st store.Tx) error {
		t := st.(*tx)
		return t.queryRow(`SELECT EXISTS (SELECT 1 FROM queue_jobs WHERE state = 'pending')
			OR EXISTS (SELECT 1 FROM queue_jobs WHERE state = 'scheduled' AND run_at <= ?)`, []any{micros(t.now)}, &n)
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
