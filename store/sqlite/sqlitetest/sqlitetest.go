// Package sqlitetest hands tests migrated SQLite database files quickly.
// Building the schema runs every migration, which under -race costs a
// quarter of a second to over a second a file (SQLite's transpiled C is
// slow under the race detector); a contract suite opening a fresh file per
// case paid that a hundred times. A Template builds the file once per test
// binary and copies its bytes for each test: the copy is the same file a
// fresh Open would leave, and opening it still runs Open's checks.
package sqlitetest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Template is a database file built once, by Build, on first use. The
// zero value with Build set is ready; share one per test binary.
type Template struct {
	// Build creates a migrated database at path and closes it (so its
	// write-ahead log is checkpointed into the file).
	Build func(path string) error

	once sync.Once
	data []byte
	err  error
}

// CopyTo writes the template's file to dst (mode 0600, as Open makes it),
// unless dst exists: a test reopening its database keeps what it wrote.
func (tp *Template) CopyTo(tb testing.TB, dst string) {
	tb.Helper()
	tp.once.Do(func() {
		dir, err := os.MkdirTemp("", "murlog-sqlitetest-*")
		if err != nil {
			tp.err = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "template.db")
		if tp.err = tp.Build(path); tp.err != nil {
			return
		}
		if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
			tp.err = fmt.Errorf("%s-wal is not empty after Build: close the database in Build", path)
			return
		}
		tp.data, tp.err = os.ReadFile(path)
	})
	if tp.err != nil {
		tb.Fatalf("sqlitetest: building the template database: %v", tp.err)
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return
	}
	if err == nil {
		_, err = f.Write(tp.data)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		tb.Fatalf("sqlitetest: %v", err)
	}
}
