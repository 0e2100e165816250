package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one embedded migrations/NNN_description.sql file. Its
// SQL is read only when it is applied: every process lists the
// migrations to learn the latest version, and reading all of them (28 KB,
// copied twice) was most of that.
type migration struct {
	Version int
	Name    string
	file    string // path in the fs.FS loadMigrations read
}

// parseMigrationName splits NNN_description.sql (three or more digits;
// lower-case letters, digits and underscores) into its parts.
func parseMigrationName(base string) (version int, name string, ok bool) {
	num, rest, ok := strings.Cut(base, "_")
	name, sql := strings.CutSuffix(rest, ".sql")
	if !ok || !sql || len(num) < 3 || name == "" {
		return 0, "", false
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, "", false
		}
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return 0, "", false
		}
	}
	v, err := strconv.Atoi(num)
	return v, name, err == nil
}

// loadMigrations returns the migrations in version order.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	seen := map[int]string{}
	for _, n := range names {
		base := path.Base(n)
		v, name, ok := parseMigrationName(base)
		if !ok {
			return nil, fmt.Errorf("migration %s: name must be NNN_description.sql", base)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %s and %s share version %d", prev, base, v)
		}
		seen[v] = base
		ms = append(ms, migration{Version: v, Name: name, file: n})
	}
	// fs.Glob returns lexical order; zero-padded names make that numeric,
	// but sort by number anyway so "1000_x" after "999_y" stays right.
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].Version < ms[j-1].Version; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
	return ms, nil
}

// LatestVersion is the highest schema version this binary knows.
func LatestVersion() int {
	ms, err := loadMigrations(migrationFiles)
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

// SchemaVersion returns the highest applied migration, 0 for a new file.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	return schemaVersion(ctx, db.r)
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func schemaVersion(ctx context.Context, q querier) (int, error) {
	var v sql.NullInt64
	err := q.QueryRowContext(ctx, "SELECT max(version) FROM schema_version").Scan(&v)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return 0, nil
		}
		return 0, mapErr(err)
	}
	return int(v.Int64), nil
}

// migrate applies pending migrations, each in its own transaction. Before
// touching an existing database it takes a VACUUM INTO snapshot, so a bad
// upgrade can be undone by copying one file back. Several processes may
// start at once (CGI): each migration re-checks the version inside its
// write transaction, so every one is applied exactly once.
func (db *DB) migrate(ctx context.Context) error {
	return db.applyMigrations(ctx, migrationFiles)
}

func (db *DB) applyMigrations(ctx context.Context, fsys fs.FS) error {
	ms, err := loadMigrations(fsys)
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	latest := 0
	if len(ms) > 0 {
		latest = ms[len(ms)-1].Version
	}
	db.opts.Statements.Add(dbstat.Of(ctx), 1)
	current, err := schemaVersion(ctx, db.r)
	if err != nil {
		return fmt.Errorf("sqlite: read schema version of %s: %w", db.path, err)
	}
	if current > latest {
		return &murlog.Error{Code: murlog.EUnavailable, Message: fmt.Sprintf(
			"database %s has schema version %d, newer than this murlog %s understands (%d): install a newer murlog or restore a backup from %s",
			db.path, current, murlog.Version, latest, db.opts.SnapshotDir)}
	}
	if current == latest {
		return nil
	}
	if current > 0 {
		if err := ensureDir(db.opts.SnapshotDir); err != nil {
			return fmt.Errorf("sqlite: snapshot directory: %w", err)
		}
		dst := filepath.Join(db.opts.SnapshotDir, fmt.Sprintf("murlog-v%03d-%s.db", current, db.now().UTC().Format("20060102T150405.000000Z")))
		if err := db.Snapshot(ctx, dst); err != nil {
			return err
		}
		db.log.Info("database snapshot taken before migrating", "snapshot", dst, "from_version", current, "to_version", latest)
	}
	db.opts.Statements.Add(dbstat.Of(ctx), 1)
	if _, err := db.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("sqlite: create schema_version: %w", mapErr(err))
	}
	for _, m := range ms {
		if m.Version <= current {
			continue
		}
		b, err := fs.ReadFile(fsys, m.file)
		if err != nil {
			return fmt.Errorf("sqlite: migration %03d_%s: %w", m.Version, m.Name, err)
		}
		if err := db.applyOne(ctx, m, string(b)); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) applyOne(ctx context.Context, m migration, script string) error {
	count := func() { db.opts.Statements.Add(dbstat.Of(ctx), 1) }
	count() // BEGIN
	count() // and its COMMIT or ROLLBACK
	stx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: migration %03d_%s: %w", m.Version, m.Name, mapErr(err))
	}
	defer stx.Rollback()
	var v sql.NullInt64
	count()
	if err := stx.QueryRowContext(ctx, "SELECT max(version) FROM schema_version").Scan(&v); err != nil {
		return fmt.Errorf("sqlite: migration %03d_%s: %w", m.Version, m.Name, mapErr(err))
	}
	if int(v.Int64) >= m.Version {
		return nil // another process applied it first
	}
	count() // the script, counted as one
	if _, err := stx.ExecContext(ctx, script); err != nil {
		return fmt.Errorf("sqlite: migration %03d_%s failed, nothing of it was applied: %w", m.Version, m.Name, err)
	}
	count()
	if _, err := stx.ExecContext(ctx, "INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)",
		m.Version, m.Name, micros(db.now())); err != nil {
		return fmt.Errorf("sqlite: migration %03d_%s: %w", m.Version, m.Name, mapErr(err))
	}
	if err := stx.Commit(); err != nil {
		return fmt.Errorf("sqlite: migration %03d_%s: commit: %w", m.Version, m.Name, mapErr(err))
	}
	db.log.Info("database migrated", "version", m.Version, "name", m.Name)
	return nil
}
