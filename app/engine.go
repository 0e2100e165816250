package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/worker"
)

// engine is what db_driver names: the ledger (store.Store) and what lives
// in the same database beside it — the embedded job queue that
// transactional enqueue writes, the run-once ledger of a queue migration,
// the stored metrics. openEngine is the one place that names a store
// adapter; everything else in murlog sees these ports.
type engine struct {
	store  store.Store
	queue  queue.Engine // the embedded queue; queue.New makes it a Queue
	ledger worker.Ledger
	stats  engineStats
	// runnable reports cheaply whether a job is runnable now: what a CGI
	// request asks before it spawns a worker.
	runnable func(ctx context.Context) (bool, error)
	// health reports whether the engine can take writes now.
	health func(ctx context.Context) error
	// vacuum gives free pages back to the file system; nil for an engine
	// that needs no such maintenance.
	vacuum worker.Vacuumer
	close  func() error
	// writeBreakerOpen reports whether writes are being refused for
	// failing (the write_breaker_open gauge); nil for an engine without.
	writeBreakerOpen func() bool
}

// engineStats are the stored counters and gauges behind /metrics.
type engineStats interface {
	Samples(ctx context.Context) ([]queue.Sample, error)
	SetGauge(ctx context.Context, name string, v float64) error
}

// Drivers murlog knows by name. Only sqlite is in this build; postgres is
// the planned multi-process engine, named here so that choosing it says so
// rather than calling it a typo.
const (
	DriverSQLite   = "sqlite"
	DriverPostgres = "postgres"
)

// openEngine opens the database that driver names at dsn (for sqlite, the
// file path) and migrates it.
func (a *App) openEngine(ctx context.Context, driver, dsn string) (*engine, error) {
	switch driver {
	case DriverSQLite:
		db, err := sqlite.Open(ctx, dsn, sqlite.Options{Now: a.opts.Now, Logger: a.log, OneShot: a.opts.OneShot,
			Statements: &a.stmts})
		if err != nil {
			return nil, err
		}
		q := db.Queue()
		return &engine{store: db, queue: q, ledger: db.Ledger(), stats: q,
			runnable: q.HasRunnable, health: func(ctx context.Context) error { return sqliteHealth(ctx, db) },
			vacuum: db, close: db.Close, writeBreakerOpen: db.WriteBreakerOpen}, nil
	case DriverPostgres:
		return nil, fmt.Errorf("db_driver = %q is not available in this build yet: use %q (the default)", driver, DriverSQLite)
	default:
		return nil, fmt.Errorf("db_driver = %q is not a known driver (known: %s)", driver, DriverSQLite)
	}
}

// sqliteHealth checks that the database file can take writes: two
// access(2) calls, because a database whose folder or file turned
// read-only (or vanished) still answers reads while every write would
// fail; then that the schema answers.
func sqliteHealth(ctx context.Context, db *sqlite.DB) error {
	if unix.Access(filepath.Dir(db.Path()), unix.W_OK|unix.X_OK) != nil || unix.Access(db.Path(), unix.R_OK|unix.W_OK) != nil {
		return murlog.Errorf(murlog.EUnavailable, "database is not writable")
	}
	if _, err := db.SchemaVersion(ctx); err != nil {
		return murlog.Errorf(murlog.EUnavailable, "database unavailable")
	}
	return nil
}

// openQueueDSN opens the secondary queue of a provider migration
// (queue_dual_write): "sqlite:<path>" is the embedded queue of another
// SQLite file.
func (a *App) openQueueDSN(ctx context.Context, dsn string) (*engine, error) {
	driver, rest, ok := strings.Cut(dsn, ":")
	if !ok {
		return nil, fmt.Errorf("queue %q: want driver:location", dsn)
	}
	return a.openEngine(ctx, driver, rest)
}

// SchemaVersion is the newest database schema this binary's default
// engine knows, for `murlog version`.
func SchemaVersion() int { return sqlite.LatestVersion() }
