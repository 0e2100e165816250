package sqlite

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/murlog/murlog/store"
)

// TestNewDatabaseIsPrivate opens a new database under the usual umask 022
// (the one Apache and a login shell give): the database and the -wal and
// -shm SQLite creates beside it must still be 0600.
func TestNewDatabaseIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), FileName)
	db, err := Open(context.Background(), path, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A write makes sure -wal and -shm exist.
	if err := db.Update(context.Background(), func(tx store.Tx) error { return tx.Settings().Set("k", "v") }); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
			continue
		}
		if m := st.Mode().Perm(); m != 0o600 {
			t.Errorf("%s mode %v; want 0600", filepath.Base(p), m)
		}
	}
}

// TestOpenTightensLooseFiles: a database an older murlog left 0644 is made
// 0600 at open, with one log line saying what was fixed.
func TestOpenTightensLooseFiles(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), FileName)
	db, err := Open(context.Background(), path, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	os.Chmod(path, 0o644)
	os.WriteFile(path+"-wal", nil, 0o644) // a leftover -wal from a crashed process
	var logs bytes.Buffer
	db, err = Open(context.Background(), path, Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, p := range []string{path, path + "-wal"} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s after Open: %v, mode %v; want 0600", filepath.Base(p), err, st.Mode().Perm())
		}
	}
	if n := strings.Count(logs.String(), "made database files private"); n != 1 || !strings.Contains(logs.String(), "murlog.db (was -rw-r--r--)") {
		t.Errorf("log = %s; want one line naming murlog.db and its old mode", logs.String())
	}
}
