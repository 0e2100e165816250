package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

// Queue is the embedded job queue engine (queue.Engine,
// queue.EngineInspector and queue.Counters) over the queue_jobs table of
// the same database file; queue.New turns it into a queue.Queue. Claims
// are one UPDATE … RETURNING over a LIMIT subselect inside a BEGIN
// IMMEDIATE transaction, so two workers (even in two processes) never
// claim the same job; done and dead rows stay out of the indexes claiming
// walks. It stores and claims; what to retry, when, and what to count is
// decided above it, in package queue.
type Queue struct {
	db *DB
}

var (
	_ queue.Engine          = (*Queue)(nil)
	_ queue.EngineInspector = (*Queue)(nil)
	_ queue.Counters        = (*Queue)(nil)
)

// Queue returns the job queue engine stored in this database.
func (db *DB) Queue() *Queue { return &Queue{db: db} }

// Provider implements queue.Engine.
func (q *Queue) Provider() string { return "sqlite" }

// Woken implements queue.Engine: it receives after a transaction that
// enqueued jobs commits in this process. One receiver is woken per signal.
func (q *Queue) Woken() <-chan struct{} { return q.db.woken }

// Woken returns the same channel as Queue().Woken.
func (db *DB) Woken() <-chan struct{} { return db.woken }

func (db *DB) wake() {
	select {
	case db.woken <- struct{}{}:
	default:
	}
}

// jobs implements store.Jobs: transactional enqueue. The jobs are
// prepared by the same code as every queue's (queue.Prepare), then stored
// with the write that caused them; their count is added after commit.
type jobs struct{ t *tx }

func (j jobs) Enqueue(js ...queue.Job) error {
	if err := queue.Prepare(j.t.ctx, js); err != nil {
		return err
	}
	n, err := insertJobs(j.t, js)
	if err != nil {
		return err
	}
	if j.t.later == nil {
		j.t.later = metrics{}
	}
	j.t.later.addSamples(queue.Enqueued(n))
	j.t.enqueued = true
	return nil
}

const jobCols = "id, topic, payload, priority, state, run_at, attempt, max_attempts, headers, last_error, enqueued_at"

// insertRows is how many jobs one INSERT statement carries: a multi-row
// insert costs about what one row does, which is what lets a fan-out page
// of 100 deliveries commit in a few milliseconds.
const insertRows = 50

// insertJobs inserts prepared jobs, skipping ids that exist, and returns
// how many it inserted per topic. A job's max_attempts is stored as given:
// 0 means its topic's policy, looked up when the job fails.
func insertJobs(t *tx, js []queue.Job) (map[string]int, error) {
	now := t.now
	rows := make([]any, 0, len(js)*11)
	for i := range js {
		j := &js[i]
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
		headers := ""
		if len(j.Headers) > 0 {
			b, err := json.Marshal(j.Headers)
			if err != nil {
				return nil, murlog.Invalid("headers", "%v", err)
			}
			headers = string(b)
		}
		payload := j.Payload
		if payload == nil {
			payload = []byte{}
		}
		rows = append(rows, j.ID, j.Topic, payload, j.Priority, string(state), micros(runAt), 0,
			j.MaxAttempts, headers, "", micros(now))
	}
	inserted := map[string]int{}
	if len(js) == 1 {
		// The common case (one job caused by one write) skips RETURNING's
		// row machinery.
		res, err := t.exec("INSERT INTO queue_jobs ("+jobCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING", rows...)
		n, err := rowsAffected(res, err)
		if err != nil {
			return nil, err
		}
		inserted[js[0].Topic] += n
	}
	for start := 0; start < len(js) && len(js) > 1; start += insertRows {
		n := min(insertRows, len(js)-start)
		q := "INSERT INTO queue_jobs (" + jobCols + ") VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?),", n), ",") +
			" ON CONFLICT (id) DO NOTHING RETURNING topic"
		r, err := t.query(q, rows[start*11:(start+n)*11]...)
		if err != nil {
			return nil, err
		}
		for r.Next() {
			var topic string
			if err := r.Scan(&topic); err != nil {
				r.Close()
				return nil, mapErr(err)
			}
			inserted[topic]++
		}
		if err := r.Close(); err != nil {
			return nil, mapErr(err)
		}
	}
	return inserted, nil
}

// Insert implements queue.Engine: one transaction for all jobs.
func (q *Queue) Insert(ctx context.Context, js []queue.Job) (map[string]int, error) {
	var n map[string]int
	err := q.db.Update(ctx, func(st store.Tx) error {
		t := st.(*tx)
		var err error
		if n, err = insertJobs(t, js); err != nil {
			return err
		}
		t.enqueued = true
		return nil
	})
	return n, err
}

// Claim implements queue.Engine: due scheduled jobs are promoted and up to
// max pending ones claimed with a lease, in one write transaction, which
// also carries the metric deltas counted since the last write.
func (q *Queue) Claim(ctx context.Context, topics []string, max int, lease time.Duration) ([]*queue.Job, error) {
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
		args = append([]any{micros(t.now.Add(lease))}, args...)
		rows, err := t.query(`UPDATE queue_jobs SET state = 'running', attempt = attempt + 1, lease_until = ?, started_at = ?
			WHERE id IN (SELECT id FROM queue_jobs WHERE `+where+` ORDER BY priority, id LIMIT CAST(? AS INTEGER))
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

// Extend implements queue.Engine: one statement per chunk, fenced like a
// settlement by id, attempt and the running state.
func (q *Queue) Extend(ctx context.Context, js []*queue.Job, lease time.Duration) ([]bool, error) {
	held := make([]bool, len(js))
	if len(js) == 0 {
		return held, nil
	}
	err := q.db.Update(ctx, func(st store.Tx) error {
		t := st.(*tx)
		until := micros(t.now.Add(lease))
		for start := 0; start < len(js); start += insertRows {
			chunk := js[start:min(start+insertRows, len(js))]
			args := []any{until}
			for _, j := range chunk {
				args = append(args, j.ID, j.Attempt)
			}
			rows, err := t.query("UPDATE queue_jobs SET lease_until = ? WHERE state = 'running' AND (id, attempt) IN (VALUES "+
				strings.TrimSuffix(strings.Repeat("(?, ?),", len(chunk)), ",")+") RETURNING id, attempt", args...)
			if err != nil {
				return err
			}
			// By attempt too: a lost claim and the one that replaced it
			// may be renewed in one call.
			type claim struct {
				id      string
				attempt int
			}
			kept := map[claim]bool{}
			for rows.Next() {
				var c claim
				if err := rows.Scan(&c.id, &c.attempt); err != nil {
					rows.Close()
					return mapErr(err)
				}
				kept[c] = true
			}
			if err := rows.Close(); err != nil {
				return mapErr(err)
			}
			for i, j := range chunk {
				held[start+i] = kept[claim{j.ID, j.Attempt}]
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return held, nil
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

// Settle implements queue.Engine: every settlement in one transaction,
// and successes and dead letters each in one statement per chunk (a
// worker acks its batch at once; per-row statements would cost more than
// the claim). A settlement whose job is no longer running under the same
// attempt changes nothing: the attempt number fences out late workers.
func (q *Queue) Settle(ctx context.Context, ss []queue.Settlement) ([]bool, error) {
	applied := make([]bool, len(ss))
	if len(ss) == 0 {
		return applied, nil
	}
	err := q.db.Update(ctx, func(st store.Tx) error {
		t := st.(*tx)
		now := micros(t.now)
		var done, dead []int
		for i, s := range ss {
			j := s.Job
			switch s.Status {
			case queue.Success:
				done = append(done, i)
			case queue.Dead:
				dead = append(dead, i)
			case queue.Retry:
				next := t.now.Add(s.Delay)
				res, err := t.exec(`UPDATE queue_jobs SET state = 'scheduled', run_at = ?, last_error = ?
					WHERE id = ? AND state = 'running' AND attempt = ?`, micros(next), s.Reason, j.ID, j.Attempt)
				n, err := rowsAffected(res, err)
				if err != nil {
					return err
				}
				applied[i] = n > 0
				if n > 0 && s.Delay <= 0 {
					t.enqueued = true // runnable now: wake a waiting worker
				}
			case queue.Released:
				res, err := t.exec(`UPDATE queue_jobs SET state = 'pending', attempt = attempt - 1, started_at = NULL
					WHERE id = ? AND state = 'running' AND attempt = ?`, j.ID, j.Attempt)
				n, err := rowsAffected(res, err)
				if err != nil {
					return err
				}
				applied[i] = n > 0
			default:
				return murlog.Invalid("status", "unknown settlement status %d", s.Status)
			}
		}
		if err := finish(t, ss, done, queue.Success, now, applied); err != nil {
			return err
		}
		if err := finish(t, ss, dead, queue.Dead, now, applied); err != nil {
			return err
		}
		return t.flushMetrics(metrics{})
	})
	return applied, err
}

// finish moves the settlements at idx to done or dead in one statement
// per chunk and marks the ones that were still theirs to finish.
func finish(t *tx, ss []queue.Settlement, idx []int, status queue.Status, now int64, applied []bool) error {
	for start := 0; start < len(idx); start += insertRows {
		chunk := idx[start:min(start+insertRows, len(idx))]
		var set string
		var args []any
		if status == queue.Success {
			set, args = "state = 'done', finished_at = ?, last_error = ''", []any{now}
		} else {
			// Each dead letter keeps its own reason.
			var cases strings.Builder
			cases.WriteString("CASE id")
			for _, i := range chunk {
				cases.WriteString(" WHEN ? THEN ?")
				args = append(args, ss[i].Job.ID, ss[i].Reason)
			}
			cases.WriteString(" END")
			set = "state = 'dead', finished_at = ?, last_error = " + cases.String()
			args = append([]any{now}, args...)
		}
		for _, i := range chunk {
			args = append(args, ss[i].Job.ID, ss[i].Job.Attempt)
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
		for _, i := range chunk {
			applied[i] = finished[ss[i].Job.ID]
		}
	}
	return nil
}

// HealthCheck implements queue.Engine.
func (q *Queue) HealthCheck(ctx context.Context) error {
	_, err := q.db.SchemaVersion(ctx)
	return err
}
