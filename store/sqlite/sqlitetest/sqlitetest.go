// Package sqlitetest opens real SQLite stores for tests without running
// every migration again: the schema is migrated once per test binary and
// each test gets its own copy of the file. Migrating a new file costs most
// of a second under -race; copying it, a few milliseconds. Tests of the
// migrations themselves open fresh files with sqlite.Open.
package sqlitetest

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/murlog/murlog/store/sqlite"
)

var (
	once  sync.Once
	image map[string][]byte // file name → bytes of a migrated, closed database
	err   error
)

// migrated builds the image once.
func migrated() (map[string][]byte, error) {
	once.Do(func() {
		dir, e := os.MkdirTemp("", "murlog-sqlitetest-")
		if e != nil {
			err = e
			return
		}
		defer os.RemoveAll(dir)
		db, e := sqlite.Open(context.Background(), filepath.Join(dir, sqlite.FileName),
			sqlite.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if e != nil {
			err = e
			return
		}
		if e := db.Close(); e != nil {
			err = e
			return
		}
		image = map[string][]byte{}
		ents, e := os.ReadDir(dir)
		if e != nil {
			err = e
			return
		}
		for _, ent := range ents {
			b, e := os.ReadFile(filepath.Join(dir, ent.Name()))
			if e != nil {
				err = e
				return
			}
			image[ent.Name()] = b
		}
	})
	return image, err
}

// Path writes a migrated database into dir, named as file (sqlite.FileName
// when empty), and returns its path, for a test that opens it itself.
func Path(tb testing.TB, dir, file string) string {
	tb.Helper()
	img, err := migrated()
	if err != nil {
		tb.Fatalf("a migrated database: %v", err)
	}
	if file == "" {
		file = sqlite.FileName
	}
	for name, b := range img {
		// The -wal and -shm files, if closing left any, follow the
		// database's new name.
		name = file + name[len(sqlite.FileName):]
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return filepath.Join(dir, file)
}

// Open opens a copy of the migrated database in a temporary directory of
// the test, closed when the test ends.
func Open(tb testing.TB, o sqlite.Options) *sqlite.DB {
	tb.Helper()
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	db, err := sqlite.Open(context.Background(), Path(tb, tb.TempDir(), ""), o)
	if err != nil {
		tb.Fatalf("sqlite.Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
