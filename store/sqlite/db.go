// Package sqlite is the embedded store adapter: one SQLite file in WAL mode,
// opened through modernc.org/sqlite (pure Go, so the binary stays static for
// shared hosts). Writes go through a single writer connection with
// BEGIN IMMEDIATE, reads through a pool of query-only connections, so readers
// never queue behind each other or behind the writer.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/store"
)

// FileName is the database file inside data_dir.
const FileName = "murlog.db"

// ReaderCacheKiB is the page cache of each read connection, in KiB.
// SQLite's default is 2,000 KiB per connection, the read pool keeps
// max(4, 2×GOMAXPROCS) connections open, and each holds its own copy of
// the pages it read, beside the kernel's page cache of the same file,
// which serves a miss with one pread (the libc allocator also gives most
// 4 KiB pages an 8 KiB slot). At 512 KiB a server of 5,000 posts held
// 4 MB less after a mixed read load, at the same CPU per call
// (docs/benchmarks.md, "Memory (issue 15, F)"); 256 KiB saved 1.4 MB
// more but made a search (whose budget is wall time) miss its 50 ms in
// the browser test under CI's load, so it stays 512. WriterCacheKiB is
// the writer's: one connection, whose batches touch the same few B-tree
// pages (the ends of the tables and indexes they append to) — half of
// SQLite's default; the inbox burst was unchanged by it.
const (
	ReaderCacheKiB = 512
	WriterCacheKiB = 1000
)

// Options tune Open. The zero value is ready to use.
type Options struct {
	// Now is the clock; time.Now when nil. Tests fix it.
	Now func() time.Time
	// Readers is the size of the read pool; max(4, 2×GOMAXPROCS) when 0.
	Readers int
	// BusyTimeout is how long a connection waits for another process's
	// lock before giving up; 5 s when 0. Under CGI several processes share
	// the file, so this is the normal way writers take turns.
	BusyTimeout time.Duration
	// SnapshotDir receives the VACUUM INTO copy taken before pending
	// migrations; "<dir of the db>/backups" when empty.
	SnapshotDir string
	// Logger receives migration notices; slog.Default() when nil.
	Logger *slog.Logger
	// OneShot says the process serves a single request (CGI): prepared
	// statements are not kept for reuse, since there is no next request
	// and keeping them costs a second prepare.
	OneShot bool
	// Statements, when set, counts every statement and transaction by the
	// class its context carries (dbstat): db_statements_total on /metrics.
	Statements *dbstat.Counter
}

// DB is the SQLite store. It implements store.Store.
type DB struct {
	path   string
	w      *sql.DB // exactly one connection: SQLite has one writer anyway
	r      *sql.DB // query-only pool
	wc, rc stmtCache
	now    func() time.Time
	opts   Options
	log    *slog.Logger
	woken  chan struct{} // signalled after a commit that enqueued jobs

	// pending holds queue metric deltas from committed transactions that
	// did not write metrics themselves (enqueues: an extra statement in
	// every enqueue would cost a fifth of its time). The next transaction
	// that writes metrics anyway (a claim or an ack) carries them, and
	// Close flushes what is left.
	pmu     sync.Mutex
	pending metrics

	full atomic.Bool // the last write found the disk full (noteFull)

	breaker writeBreaker // sheds writes while the writer fails or is saturated
}

var _ store.Store = (*DB)(nil)

// Open opens (creating if needed) the database at path and applies pending
// migrations. A database whose schema is newer than this binary is refused.
func Open(ctx context.Context, path string, o Options) (*DB, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Readers <= 0 {
		o.Readers = max(4, 2*runtime.GOMAXPROCS(0))
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.SnapshotDir == "" {
		o.SnapshotDir = filepath.Join(filepath.Dir(path), "backups")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	db := &DB{path: abs, now: o.Now, opts: o, log: o.Logger, woken: make(chan struct{}, 1)}
	db.breaker.now = o.Now
	privateFiles(abs, o.Logger)

	busy := fmt.Sprint(o.BusyTimeout.Milliseconds())
	base := "file:" + (&url.URL{Path: abs}).EscapedPath() + "?_busy_timeout=" + busy + "&_foreign_keys=1"
	// auto_vacuum only takes effect on a new file; incremental mode lets the
	// queue's clean-up give pages back without a full VACUUM.
	db.w, err = sql.Open("sqlite", base+"&_journal_mode=WAL&_synchronous=NORMAL&_auto_vacuum=INCREMENTAL&_txlock=immediate"+fmt.Sprintf("&_pragma=cache_size(-%d)", WriterCacheKiB))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	db.w.SetMaxOpenConns(1)
	db.w.SetMaxIdleConns(1)
	db.w.SetConnMaxIdleTime(0)
	db.r, err = sql.Open("sqlite", base+"&_query_only=1&_txlock=deferred"+fmt.Sprintf("&_pragma=cache_size(-%d)", ReaderCacheKiB))
	if err != nil {
		db.w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	db.r.SetMaxOpenConns(o.Readers)
	db.r.SetMaxIdleConns(o.Readers)
	db.wc.db, db.rc.db = db.w, db.r
	db.wc.off, db.rc.off = o.OneShot, o.OneShot

	if err := db.migrateRetrying(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// migrateRetrying runs migrate, again while it finds the database busy:
// several processes opening a new file at once (a burst of CGI requests
// on a fresh or upgraded site) race to switch it to WAL and create the
// schema, and SQLite answers some of those steps SQLITE_BUSY at once,
// without waiting on the busy timeout. Each migration re-checks the
// version in its own transaction, so a retry applies nothing twice.
func (db *DB) migrateRetrying(ctx context.Context) error {
	deadline := time.Now().Add(db.opts.BusyTimeout)
	for wait := 5 * time.Millisecond; ; wait *= 2 {
		err := db.migrate(ctx)
		if err == nil || !isBusy(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// isBusy reports whether err is SQLite's "database is busy".
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_BUSY || se.Code()&0xff == sqlite3.SQLITE_LOCKED)
}

// privateFiles makes the database and its -wal/-shm readable by their owner
// only. A new database is created 0600 here, before SQLite opens it: SQLite
// creates -wal and -shm with the mode of the database file, whatever the
// umask, so the mode of the first file decides all three. Files an older
// murlog left group- or world-readable are tightened with one log line.
// Failures are left to the open that follows (or logged, for a file this
// user cannot chmod).
func privateFiles(path string, log *slog.Logger) {
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	}
	var fixed []string
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(p, st.Mode().Perm()&0o700); err != nil {
			log.Warn("database file is readable by other users and cannot be made private", "file", p, "mode", st.Mode().Perm().String(), "err", err)
			continue
		}
		fixed = append(fixed, fmt.Sprintf("%s (was %s)", filepath.Base(p), st.Mode().Perm()))
	}
	if len(fixed) > 0 {
		log.Info("made database files private (mode 0600)", "dir", filepath.Dir(path), "files", fixed)
	}
}

// Path returns the absolute path of the database file.
func (db *DB) Path() string { return db.path }

// Close closes both pools.
func (db *DB) Close() error {
	if db.hasPending() {
		// Best effort: losing a few enqueue counts is not worth failing Close.
		db.Update(context.Background(), func(st store.Tx) error { return st.(*tx).flushMetrics(metrics{}) })
	}
	db.wc.close()
	db.rc.close()
	return errors.Join(db.r.Close(), db.w.Close())
}

// View runs fn in a read transaction on a pooled query-only connection.
func (db *DB) View(ctx context.Context, fn func(store.Tx) error) error {
	return db.run(ctx, db.r, &db.rc, &sql.TxOptions{ReadOnly: true}, fn)
}

// Update runs fn in a BEGIN IMMEDIATE transaction on the writer
// connection, unless the write breaker refuses it first (breaker.go).
func (db *DB) Update(ctx context.Context, fn func(store.Tx) error) error {
	if err := db.breaker.enter(); err != nil {
		db.opts.Statements.Drop(dbstat.ShieldWriteBreaker)
		return err
	}
	err := db.run(ctx, db.w, &db.wc, nil, fn)
	db.breaker.leave(err)
	return err
}

func (db *DB) run(ctx context.Context, pool *sql.DB, cache *stmtCache, opts *sql.TxOptions, fn func(store.Tx) error) (err error) {
	// BEGIN and its COMMIT or ROLLBACK are statements too: a read that
	// opens a transaction and asks nothing still touched the database.
	db.opts.Statements.Add(dbstat.Of(ctx), 2)
	stx, err := pool.BeginTx(ctx, opts)
	if err != nil {
		err = mapErr(err)
		db.noteFull(err)
		return err
	}
	t := &tx{ctx: ctx, db: db, tx: stx, cache: cache, now: db.now().UTC().Truncate(time.Microsecond), write: pool == db.w}
	// Runs last: the connection is back in the pool by then.
	defer func() { cache.prepareMissed(t.missed) }()
	defer func() {
		if p := recover(); p != nil {
			stx.Rollback()
			panic(p)
		}
	}()
	if err := fn(t); err != nil {
		stx.Rollback()
		db.addPending(t.carried)
		db.noteFull(err)
		return err
	}
	if err := stx.Commit(); err != nil {
		db.addPending(t.carried)
		err = mapErr(err)
		db.noteFull(err)
		return err
	}
	if pool == db.w && db.full.CompareAndSwap(true, false) {
		db.log.Info("database writes work again: the disk has room", "path", db.path)
	}
	db.addPending(t.later)
	if t.enqueued || t.marks {
		db.wake()
	}
	return nil
}

// noteFull logs the first write to find the disk full, once: every write
// fails the same way until there is room again (the next write to commit
// says so), and a line per write, retry or job would bury the log.
func (db *DB) noteFull(err error) {
	if errors.Is(err, store.ErrDiskFull) && db.full.CompareAndSwap(false, true) {
		db.log.Error("the disk is full: writes fail (and are answered unavailable) until there is room; reads go on",
			"path", db.path, "err", err)
	}
}

// CapGrowth lets the database file grow by at most pages more pages
// (PRAGMA max_page_count on the writer connection, which keeps it while
// the connection lives): past that, writes fail as on a full disk. The
// tests of a full disk use it where they cannot fill a real one.
func (db *DB) CapGrowth(ctx context.Context, pages int) error {
	return db.Update(ctx, func(st store.Tx) error {
		t := st.(*tx)
		var n int64
		if err := t.queryRow("PRAGMA page_count", nil, &n); err != nil {
			return err
		}
		t.db.opts.Statements.Add(dbstat.Of(t.ctx), 1)
		_, err := t.tx.ExecContext(t.ctx, fmt.Sprintf("PRAGMA max_page_count = %d", n+int64(pages)))
		return mapErr(err)
	})
}

func (db *DB) addPending(m metrics) {
	if len(m) == 0 {
		return
	}
	db.pmu.Lock()
	defer db.pmu.Unlock()
	if db.pending == nil {
		db.pending = metrics{}
	}
	for k, v := range m {
		db.pending[k] += v
	}
}

// takePending returns and clears the pending deltas (nil when none).
func (db *DB) takePending() metrics {
	db.pmu.Lock()
	defer db.pmu.Unlock()
	p := db.pending
	db.pending = nil
	return p
}

// Snapshot writes a consistent copy of the database to dst with VACUUM INTO.
// dst must not exist.
func (db *DB) Snapshot(ctx context.Context, dst string) error {
	db.opts.Statements.Add(dbstat.Of(ctx), 1)
	if _, err := db.w.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("sqlite: snapshot to %s: %w", dst, mapErr(err))
	}
	return nil
}

// tx implements store.Tx over one *sql.Tx.
type tx struct {
	ctx      context.Context
	tx       *sql.Tx
	cache    *stmtCache
	now      time.Time
	missed   []string // queries to add to the cache once the connection is free
	enqueued bool     // wake workers after commit
	write    bool     // a writer transaction (Update)
	// marks is set when a writer used a table whose triggers mark public
	// documents dirty (migration 016): the marks enqueue the rebuild job
	// in SQL, so the worker is woken as for jobs enqueued from Go.
	marks   bool
	db      *DB
	later   metrics // metric deltas to hand to db.pending after commit
	carried metrics // db.pending taken into this transaction; given back if it fails
}

// marked notes that a writer touched a table whose triggers may mark
// public documents dirty.
func (t *tx) marked() { t.marks = t.marks || t.write }

func (t *tx) Now() time.Time                         { return t.now }
func (t *tx) Settings() store.Settings               { t.marked(); return settings{t} }
func (t *tx) Personas() store.Personas               { t.marked(); return personas{t} }
func (t *tx) Posts() store.Posts                     { t.marked(); return posts{t} }
func (t *tx) Sessions() store.Sessions               { return sessions{t} }
func (t *tx) Tokens() store.Tokens                   { return tokens{t} }
func (t *tx) LoginAttempts() store.LoginAttemptsRepo { return loginAttempts{t} }
func (t *tx) TwoFactor() store.TwoFactor             { return twoFactor{t} }
func (t *tx) Jobs() store.Jobs                       { return jobs{t} }
func (t *tx) DomainFailures() store.DomainFailures   { return domainFailures{t} }
func (t *tx) SignatureSchemes() store.SignatureSchemes {
	return signatureSchemes{t}
}
func (t *tx) FanoutProgress() store.FanoutProgress { return fanoutProgress{t} }
func (t *tx) RemoteActors() store.RemoteActors     { return remoteActors{t} }
func (t *tx) Follows() store.Follows               { return follows{t} }
func (t *tx) Followers() store.Followers           { t.marked(); return followers{t} }
func (t *tx) RemotePosts() store.RemotePosts       { return remotePosts{t} }
func (t *tx) Interactions() store.Interactions     { return interactions{t} }
func (t *tx) Blocks() store.Blocks                 { return blocks{t} }
func (t *tx) DomainBlocks() store.DomainBlocks     { return domainBlocks{t} }
func (t *tx) Notifications() store.Notifications   { return notifications{t} }
func (t *tx) Deliveries() store.Deliveries         { return deliveries{t} }
func (t *tx) Pins() store.Pins                     { t.marked(); return pins{t} }
func (t *tx) Tombstones() store.Tombstones         { return tombstones{t} }
func (t *tx) Timeline() store.Timeline             { return timeline{t} }
func (t *tx) InboxItems() store.InboxItems         { return inboxItems{t} }
func (t *tx) PubConfigs() store.PubConfigs         { t.marked(); return pubConfigs{t} }
func (t *tx) PublicPosts() store.PublicPosts       { return publicPosts{t} }
func (t *tx) QuoteAuthorizations() store.QuoteAuthorizations {
	return quoteAuthorizations{t}
}

// stmt returns the prepared statement for query bound to this transaction.
// Statements are prepared once per connection and reused, which saves the
// parse on every call (a large share of a point query's cost in SQLite).
//
// A query not yet in the cache is prepared on the transaction itself for
// this use and added to the cache after the transaction ends: preparing on
// the pool now could wait for a connection this transaction holds (the
// writer pool has exactly one).
func (t *tx) stmt(query string) (*sql.Stmt, error) {
	t.db.opts.Statements.Add(dbstat.Of(t.ctx), 1) // every use of a statement runs it once
	if s, ok := t.cache.m.Load(query); ok {
		return t.tx.StmtContext(t.ctx, s.(*sql.Stmt)), nil
	}
	if !t.cache.off {
		t.missed = append(t.missed, query)
	}
	return t.tx.PrepareContext(t.ctx, query)
}

func (t *tx) exec(query string, args ...any) (sql.Result, error) {
	s, err := t.stmt(query)
	if err != nil {
		return nil, mapErr(err)
	}
	res, err := s.Exec(args...)
	if err != nil {
		return nil, mapErr(err)
	}
	return res, nil
}

func (t *tx) query(query string, args ...any) (*sql.Rows, error) {
	s, err := t.stmt(query)
	if err != nil {
		return nil, mapErr(err)
	}
	rows, err := s.Query(args...)
	if err != nil {
		return nil, mapErr(err)
	}
	return rows, nil
}

// queryRow runs a one-row query and scans it; sql.ErrNoRows is returned as
// is so the caller can name what was not found.
func (t *tx) queryRow(query string, args []any, dest ...any) error {
	return t.queryRowContext(context.Background(), query, args, dest...)
}

// queryRowContext is queryRow under ctx: when ctx ends while SQLite is
// computing the row, the driver interrupts it and ctx's error is returned.
func (t *tx) queryRowContext(ctx context.Context, query string, args []any, dest ...any) error {
	s, err := t.stmt(query)
	if err != nil {
		return mapErr(err)
	}
	if err := s.QueryRowContext(ctx, args...).Scan(dest...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return mapErr(err)
	}
	return nil
}

// Every LIMIT taken from a parameter is written LIMIT CAST(? AS INTEGER),
// never LIMIT ?: since SQLite 3.47 a bare LIMIT ? lets the planner read the
// bound value, which marks the statement to be compiled again on its first
// step after the value is bound. A CGI process prepares each statement once
// and cold, so every list query on a page (recent posts, neighbours, the
// page menu) was compiled twice; the cast keeps the value a run-time one.
// TestLimitIsNeverABareParameter holds the rule.

// stmtCache holds one *sql.Stmt per query text for a pool.
type stmtCache struct {
	db  *sql.DB
	off bool     // OneShot: never fill the cache
	m   sync.Map // string → *sql.Stmt
	mu  sync.Mutex
}

// prepareMissed prepares queries a finished transaction used uncached.
// Failures only mean the next use prepares again.
func (c *stmtCache) prepareMissed(qs []string) {
	if len(qs) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, q := range qs {
		if _, ok := c.m.Load(q); ok {
			continue
		}
		if s, err := c.db.Prepare(q); err == nil {
			c.m.Store(q, s)
		}
	}
}

func (c *stmtCache) close() {
	c.m.Range(func(k, v any) bool {
		v.(*sql.Stmt).Close()
		c.m.Delete(k)
		return true
	})
}

// mapErr turns driver errors into the shared vocabulary: uniqueness into
// EConflict, lock contention into EUnavailable (retryable), "database or
// disk is full" into store.ErrDiskFull, the rest into EInternal with the
// cause kept for the log.
// errClosed marks the error of a database already closed.
var errClosed = errors.New("closed")

func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		code := se.Code()
		switch {
		case code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return &murlog.Error{Code: murlog.EConflict, Message: "already exists", Err: err}
		case code&0xff == sqlite3.SQLITE_BUSY || code&0xff == sqlite3.SQLITE_LOCKED:
			return &murlog.Error{Code: murlog.EUnavailable, Message: "database is busy, try again", RetryAfter: time.Second, Err: err}
		case code&0xff == sqlite3.SQLITE_READONLY || code&0xff == sqlite3.SQLITE_CANTOPEN:
			return &murlog.Error{Code: murlog.EUnavailable, Message: "database is not writable", Err: err}
		case code&0xff == sqlite3.SQLITE_FULL || code == sqlite3.SQLITE_IOERR_SHMSIZE:
			// SHMSIZE: the -shm file a new connection needs could not be
			// given its pages, which on a full disk is the first thing
			// a new process (a CGI request) meets.
			return fmt.Errorf("%w: %w", store.ErrDiskFull, err)
		case code&0xff == sqlite3.SQLITE_IOERR || code&0xff == sqlite3.SQLITE_NOTADB || code&0xff == sqlite3.SQLITE_CORRUPT:
			// The file cannot be read (a failing disk, permissions taken
			// away, a file replaced): unavailable, which readers of the
			// public site meet only on a cold miss (package prerender).
			return &murlog.Error{Code: murlog.EUnavailable, Message: "database cannot be read", RetryAfter: 30 * time.Second, Err: err}
		}
	}
	if err.Error() == "sql: database is closed" { // database/sql's errDBClosed is not exported
		return &murlog.Error{Code: murlog.EUnavailable, Message: "database is closed", RetryAfter: 30 * time.Second,
			Err: fmt.Errorf("%w: %w", errClosed, err)}
	}
	return murlog.Internal(err)
}

// one runs a one-row query and scans it with scan; no row is an
// ENotFound naming what.
func one[T any](t *tx, what, query string, scan func(interface{ Scan(...any) error }) (T, error), args ...any) (T, error) {
	var zero T
	s, err := t.stmt(query)
	if err != nil {
		return zero, mapErr(err)
	}
	v, err := scan(s.QueryRow(args...))
	if errors.Is(err, sql.ErrNoRows) {
		return zero, murlog.NotFound(what)
	}
	if err != nil {
		return zero, mapErr(err)
	}
	return v, nil
}

// notFound maps sql.ErrNoRows to an ENotFound naming what.
func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return murlog.NotFound(what)
	}
	return err
}

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(v int64) time.Time { return time.UnixMicro(v).UTC() }

func nullMicros(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMicro()
}

func fromNullMicros(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMicros(v.Int64)
	return &t
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ensureDir makes sure dir exists for snapshots.
func ensureDir(dir string) error { return os.MkdirAll(dir, 0o700) }
