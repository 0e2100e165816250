package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// MustOpen opens a migrated database file in a temporary directory.
func MustOpen(tb testing.TB, now func() time.Time) *DB {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), FileName)
	if err := os.WriteFile(path, migratedImage(tb), 0o600); err != nil {
		tb.Fatal(err)
	}
	db, err := Open(context.Background(), path, Options{Now: now, Logger: quiet})
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

var (
	imageOnce sync.Once
	image     []byte
	imageErr  error
)

// migratedImage is the file of a database migrated once per test binary:
// migrating costs most of a second under -race, copying a few
// milliseconds (store/sqlite/sqlitetest does the same for other
// packages, which this package's own tests cannot import). The tests of
// migrations open new files with Open.
func migratedImage(tb testing.TB) []byte {
	imageOnce.Do(func() {
		dir, err := os.MkdirTemp("", "murlog-sqlite-")
		if err != nil {
			imageErr = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, FileName)
		db, err := Open(context.Background(), path, Options{Logger: quiet})
		if err == nil {
			err = db.Close()
		}
		if err == nil {
			image, err = os.ReadFile(path)
		}
		if err == nil {
			if _, serr := os.Stat(path + "-wal"); serr == nil {
				err = errors.New("closing the migrated database left a WAL file")
			}
		}
		imageErr = err
	})
	if imageErr != nil {
		tb.Fatalf("a migrated database: %v", imageErr)
	}
	return image
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store { return MustOpen(t, now) })
}

func TestOpenConfiguresSQLite(t *testing.T) {
	db := MustOpen(t, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		pool *sql.DB
		q    string
		want string
	}{
		{db.w, "PRAGMA journal_mode", "wal"},
		{db.w, "PRAGMA foreign_keys", "1"},
		{db.w, "PRAGMA busy_timeout", "5000"},
		{db.w, "PRAGMA synchronous", "1"},
		{db.w, "PRAGMA auto_vacuum", "2"},
		{db.r, "PRAGMA query_only", "1"},
		{db.r, "PRAGMA foreign_keys", "1"},
		{db.r, "PRAGMA busy_timeout", "5000"},
		// Both keep a smaller page cache than SQLite's 2,000 KiB
		// (ReaderCacheKiB, WriterCacheKiB).
		{db.r, "PRAGMA cache_size", fmt.Sprint(-ReaderCacheKiB)},
		{db.w, "PRAGMA cache_size", fmt.Sprint(-WriterCacheKiB)},
	} {
		var got string
		if err := tc.pool.QueryRowContext(ctx, tc.q).Scan(&got); err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.q, got, err, tc.want)
		}
	}
	if n := db.w.Stats().MaxOpenConnections; n != 1 {
		t.Errorf("writer pool max = %d; want 1", n)
	}
	if n := db.r.Stats().MaxOpenConnections; n < 4 {
		t.Errorf("reader pool max = %d; want at least 4", n)
	}
}

func TestViewIsReadOnly(t *testing.T) {
	db := MustOpen(t, nil)
	err := db.View(context.Background(), func(tx store.Tx) error { return tx.Settings().Set("x", "y") })
	if err == nil {
		t.Fatal("a write inside View succeeded; want the query-only connection to refuse it")
	}
}

// TestReadersDoNotQueue holds a read transaction open and checks that
// other reads and a write still proceed: reads are not funnelled through
// one connection, and WAL lets the writer work beside readers.
func TestReadersDoNotQueue(t *testing.T) {
	db := MustOpen(t, nil)
	ctx := context.Background()
	hold := make(chan struct{})
	held := make(chan struct{})
	go db.View(ctx, func(tx store.Tx) error {
		tx.Settings().Get("x")
		close(held)
		<-hold
		return nil
	})
	<-held
	defer close(hold)
	tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- db.View(tctx, func(tx store.Tx) error { _, err := tx.Settings().GetMany("a"); return err })
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		errs <- db.Update(tctx, func(tx store.Tx) error { return tx.Settings().Set("k", "v") })
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a read or write blocked behind an open read transaction: %v", err)
		}
	}
}

func TestMigrationsAreIdempotent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		db, err := Open(ctx, path, Options{Logger: quiet})
		if err != nil {
			t.Fatalf("open #%d: %v", i+1, err)
		}
		v, err := db.SchemaVersion(ctx)
		if err != nil || v != LatestVersion() {
			t.Errorf("open #%d: version %d, %v; want %d", i+1, v, err, LatestVersion())
		}
		var rows int
		db.r.QueryRowContext(ctx, "SELECT count(*) FROM schema_version").Scan(&rows)
		if rows != LatestVersion() {
			t.Errorf("open #%d: %d schema_version rows; want %d", i+1, rows, LatestVersion())
		}
		db.Close()
	}
	if _, err := os.Stat(filepath.Join(dir, "backups")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a snapshot was taken although no migration was pending (stat err %v)", err)
	}
}

func TestConcurrentOpensMigrateOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := Open(context.Background(), path, Options{Logger: quiet})
			if err == nil {
				db.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Open: %v", err)
		}
	}
	db, err := Open(context.Background(), path, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows int
	db.r.QueryRow("SELECT count(*) FROM schema_version").Scan(&rows)
	if rows != LatestVersion() {
		t.Errorf("schema_version has %d rows after 8 concurrent opens; want %d", rows, LatestVersion())
	}
}

// withExtra returns the embedded migrations plus extra files.
func withExtra(t *testing.T, extra map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		b, _ := migrationFiles.ReadFile("migrations/" + pad(m.Version) + "_" + m.Name + ".sql")
		fsys["migrations/"+pad(m.Version)+"_"+m.Name+".sql"] = &fstest.MapFile{Data: b}
	}
	for k, v := range extra {
		fsys["migrations/"+k] = &fstest.MapFile{Data: []byte(v)}
	}
	return fsys
}

func pad(v int) string { return fmt.Sprintf("%03d", v) }

func TestPendingMigrationTakesSnapshotFirst(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	db := MustOpen(t, func() time.Time { return now })
	ctx := context.Background()
	db.Update(ctx, func(tx store.Tx) error { return tx.Settings().Set("domain", "example.com") })
	next := LatestVersion() + 1
	fsys := withExtra(t, map[string]string{pad(next) + "_add_widgets.sql": "CREATE TABLE widgets (id INTEGER PRIMARY KEY);"})
	if err := db.applyMigrations(ctx, fsys); err != nil {
		t.Fatalf("applying migration %d: %v", next, err)
	}
	snaps, _ := filepath.Glob(filepath.Join(db.opts.SnapshotDir, "*.db"))
	if len(snaps) != 1 {
		t.Fatalf("snapshots = %v; want exactly one", snaps)
	}
	snap, err := Open(ctx, snaps[0], Options{Logger: quiet, SnapshotDir: t.TempDir()})
	if err != nil {
		t.Fatalf("the snapshot does not open: %v", err)
	}
	defer snap.Close()
	var d string
	snap.View(ctx, func(tx store.Tx) error { d, err = tx.Settings().Get("domain"); return err })
	if d != "example.com" {
		t.Errorf("snapshot domain = %q; want the data from before the migration", d)
	}
	var n int
	if err := snap.r.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'widgets'").Scan(&n); err != nil || n != 0 {
		t.Errorf("snapshot has the new table (n=%d, %v); want the pre-migration schema", n, err)
	}
	if v, _ := db.SchemaVersion(ctx); v != next {
		t.Errorf("version after migrating = %d; want %d", v, next)
	}
}

func TestFailedMigrationLeavesNothing(t *testing.T) {
	db := MustOpen(t, nil)
	ctx := context.Background()
	next := LatestVersion() + 1
	fsys := withExtra(t, map[string]string{pad(next) + "_broken.sql": "CREATE TABLE half (id INTEGER); INSERT INTO nowhere VALUES (1);"})
	err := db.applyMigrations(ctx, fsys)
	if err == nil || !strings.Contains(err.Error(), "nothing of it was applied") {
		t.Fatalf("broken migration err = %v; want a clear failure", err)
	}
	var n int
	db.r.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'half'").Scan(&n)
	if n != 0 {
		t.Error("the broken migration's first statement was kept; want the whole migration rolled back")
	}
	if v, _ := db.SchemaVersion(ctx); v != LatestVersion() {
		t.Errorf("version = %d after a failed migration; want %d", v, LatestVersion())
	}
}

func TestNewerDatabaseIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := Open(context.Background(), path, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	db.w.Exec("INSERT INTO schema_version (version, name, applied_at) VALUES (999, 'future', 0)")
	db.Close()
	_, err = Open(context.Background(), path, Options{Logger: quiet})
	if err == nil {
		t.Fatal("Open of a database from a newer murlog succeeded")
	}
	if murlog.ErrorCode(err) != murlog.EUnavailable || !strings.Contains(err.Error(), "schema version 999, newer than this murlog") {
		t.Errorf("err = %v; want a clear 'newer than this murlog' refusal", err)
	}
}

func TestParseMigrationName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		base    string
		version int
		name    string
		ok      bool
	}{
		{"001_initial.sql", 1, "initial", true},
		{"014_signature_schemes.sql", 14, "signature_schemes", true},
		{"1000_x9__y.sql", 1000, "x9__y", true},
		{"01_x.sql", 0, "", false},
		{"001_X.sql", 0, "", false},
		{"001_.sql", 0, "", false},
		{"001-x.sql", 0, "", false},
		{"0a1_x.sql", 0, "", false},
		{"001_x.sql.bak", 0, "", false},
		{"001_x.SQL", 0, "", false},
		{"001_x-y.sql", 0, "", false},
	} {
		v, name, ok := parseMigrationName(tc.base)
		if v != tc.version || name != tc.name || ok != tc.ok {
			t.Errorf("parseMigrationName(%q) = %d, %q, %v; want %d, %q, %v", tc.base, v, name, ok, tc.version, tc.name, tc.ok)
		}
	}
}

func TestMigrationNames(t *testing.T) {
	for _, tc := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"migrations/1_x.sql": ""}, "NNN_description.sql"},
		{map[string]string{"migrations/001_a.sql": "", "migrations/001_b.sql": ""}, "share version 1"},
	} {
		fsys := fstest.MapFS{}
		for k, v := range tc.files {
			fsys[k] = &fstest.MapFile{Data: []byte(v)}
		}
		if _, err := loadMigrations(fsys); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("loadMigrations(%v) = %v; want an error containing %q", tc.files, err, tc.want)
		}
	}
	ms, err := loadMigrations(migrationFiles)
	if err != nil || len(ms) == 0 || ms[0].Version != 1 {
		t.Fatalf("embedded migrations: %v, %v", ms, err)
	}
	for i := 1; i < len(ms); i++ {
		if ms[i].Version != ms[i-1].Version+1 {
			t.Errorf("migration versions jump from %d to %d", ms[i-1].Version, ms[i].Version)
		}
	}
}

func TestBusyIsUnavailableNotInternal(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	a, err := Open(context.Background(), path, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(context.Background(), path, Options{Logger: quiet, BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	hold, held := make(chan struct{}), make(chan struct{})
	go a.Update(context.Background(), func(tx store.Tx) error {
		tx.Settings().Set("lock", "held")
		close(held)
		<-hold
		return nil
	})
	<-held
	err = b.Update(context.Background(), func(tx store.Tx) error { return tx.Settings().Set("x", "y") })
	close(hold)
	if murlog.ErrorCode(err) != murlog.EUnavailable {
		t.Errorf("write while another process holds the lock: %v; want unavailable (retryable), not internal", err)
	}
}

func TestParseTags(t *testing.T) {
	for _, tags := range [][]string{nil, {"a"}, {"go", "日本語", "x_1"}, {`we"ird`, `back\slash`}, {"a,b", `"`}} {
		got, err := parseTags(tagsJSON(tags))
		if err != nil || strings.Join(got, "|") != strings.Join(tags, "|") || len(got) != len(tags) {
			t.Errorf("parseTags(tagsJSON(%q)) = %q, %v", tags, got, err)
		}
	}
}
