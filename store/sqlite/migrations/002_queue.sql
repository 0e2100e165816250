-- 002: the embedded job queue, in the ledger's file so that a write and the
-- jobs it causes commit in one transaction.

CREATE TABLE queue_jobs (
    id           TEXT PRIMARY KEY, -- UUIDv7, the idempotency key
    topic        TEXT NOT NULL,
    payload      BLOB NOT NULL,
    priority     INTEGER NOT NULL, -- 0 high … 9 low
    state        TEXT NOT NULL CHECK (state IN ('pending', 'scheduled', 'running', 'done', 'dead')),
    run_at       INTEGER NOT NULL, -- when it becomes (or became) runnable
    attempt      INTEGER NOT NULL DEFAULT 0, -- runs started
    max_attempts INTEGER NOT NULL,
    headers      TEXT NOT NULL DEFAULT '', -- JSON object, '' for none
    last_error   TEXT NOT NULL DEFAULT '',
    enqueued_at  INTEGER NOT NULL,
    started_at   INTEGER,
    finished_at  INTEGER
) WITHOUT ROWID;

-- Claiming walks only runnable jobs, in priority then age order: done and
-- dead rows, however many, are not in these indexes.
CREATE INDEX queue_jobs_pending ON queue_jobs (priority, id) WHERE state = 'pending';
-- Delayed jobs are promoted to pending when their time comes.
CREATE INDEX queue_jobs_scheduled ON queue_jobs (run_at) WHERE state = 'scheduled';
-- Every index is paid for on each job's way through, so there are no
-- others: clean-up walks the primary key (UUIDv7 ids sort by enqueue
-- time), stale recovery runs about once a minute and may scan, and the
-- owner lists dead letters through this small one.
CREATE INDEX queue_jobs_dead ON queue_jobs (id) WHERE state = 'dead';

-- Counters and histograms behind /metrics. They live in the database so that
-- every process (serve, a CGI-spawned worker, cron) adds to the same totals.
CREATE TABLE queue_metrics (
    name  TEXT NOT NULL, -- e.g. queue_processed_total
    topic TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '', -- result, or a histogram bucket's le
    value REAL NOT NULL,
    PRIMARY KEY (name, topic, label)
) WITHOUT ROWID;

-- The per-domain circuit breaker for deliveries.
CREATE TABLE domain_failures (
    domain          TEXT PRIMARY KEY,
    failure_count   INTEGER NOT NULL,
    first_failure_at INTEGER NOT NULL,
    last_failure_at INTEGER NOT NULL,
    last_error      TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;

-- Ids of jobs run to completion, kept while jobs are moved between queue
-- providers (dual write, then a read switch): a job seen on both sides
-- runs once.
CREATE TABLE queue_seen (
    id      TEXT PRIMARY KEY,
    done_at INTEGER NOT NULL
) WITHOUT ROWID;

-- How far each fan-out has got: the last recipient whose job committed, in
-- the same transaction as that page's jobs. A fan-out that stops half-way
-- resumes after it, so no recipient gets two jobs and jobs keep ordinary
-- time-ordered ids.
CREATE TABLE fanout_progress (
    key        TEXT PRIMARY KEY, -- the fan-out's own id (its parent job's id)
    after      TEXT NOT NULL,    -- last recipient done
    done       INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
