package sqlite_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/internal/tmpfs"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/storetest"
)

// TestFullDiskIsErrDiskFull on a real 3 MiB tmpfs: a write that finds no
// room is store.ErrDiskFull (unavailable, "the disk is full"), rolled back
// whole, logged once however many writes fail; reads go on; with room
// again writes work; and a new connection that cannot even make its -shm
// file (a CGI process on a disk full to the last byte) says the same.
func TestFullDiskIsErrDiskFull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tmpfs.Mount(t, dir, "3m")
	var log strings.Builder
	path := filepath.Join(dir, sqlite.FileName)
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{Logger: newLogger(&log)})
	if err != nil {
		t.Fatal(err)
	}
	alice := storetest.NewPersona("alice", true, nowUTC())
	if err := db.Update(context.Background(), func(tx store.Tx) error { return tx.Personas().Create(alice) }); err != nil {
		t.Fatal(err)
	}
	filler := tmpfs.Fill(t, dir)
	for i := range 3 {
		err := db.Update(context.Background(), func(tx store.Tx) error {
			p := storetest.NewPost(alice.ID, nil, murlog.VisibilityPublic, nowUTC())
			p.Content = strings.Repeat("x", 200_000)
			if err := tx.Posts().Create(p); err != nil {
				return err
			}
			return tx.Settings().Set("half", "written")
		})
		if !errors.Is(err, store.ErrDiskFull) || murlog.ErrorCode(err) != murlog.EUnavailable || murlog.ErrorMessage(err) != "the disk is full" {
			t.Fatalf("write %d on a full disk = %v; want store.ErrDiskFull, unavailable \"the disk is full\"", i+1, err)
		}
	}
	if err := db.View(context.Background(), func(tx store.Tx) error {
		if _, err := tx.Personas().Get(alice.ID); err != nil {
			return err
		}
		if v, err := tx.Settings().Get("half"); murlog.ErrorCode(err) != murlog.ENotFound {
			t.Errorf("a setting of a refused write = %q, %v; want none (rolled back whole)", v, err)
		}
		return nil
	}); err != nil {
		t.Errorf("read on a full disk: %v", err)
	}
	if n := strings.Count(log.String(), "the disk is full: writes fail"); n != 1 {
		t.Errorf("%d log lines say the disk is full after 3 refused writes; want 1\n%s", n, log.String())
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(context.Background(), func(tx store.Tx) error { return tx.Settings().Set("room", "again") }); err != nil {
		t.Fatalf("write with room again: %v", err)
	}
	if !strings.Contains(log.String(), "writes work again") {
		t.Errorf("no log line says writes work again:\n%s", log.String())
	}
	// Closed cleanly, the -wal and -shm go; a new process on a disk full
	// to the last byte cannot make them.
	db.Close()
	filler = tmpfs.Fill(t, dir)
	if _, err := sqlite.Open(context.Background(), path, sqlite.Options{Logger: newLogger(&log)}); !errors.Is(err, store.ErrDiskFull) {
		t.Errorf("Open on a disk full to the last byte = %v; want store.ErrDiskFull", err)
	}
	os.Remove(filler)
}

// newLogger logs text lines into b.
func newLogger(b *strings.Builder) *slog.Logger {
	return slog.New(slog.NewTextHandler(&lockedBuilder{b: b}, nil))
}

type lockedBuilder struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func nowUTC() time.Time { return time.Now().UTC() }
