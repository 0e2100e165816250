package app

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

// TestNoSpawnWhileAWorkerRuns: a CGI request that finds jobs waiting
// starts no worker while one holds the lock (it will get to them), so a
// busy site does not start a process per request only for it to yield.
func TestNoSpawnWhileAWorkerRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "data"), 0o700)
	ini := filepath.Join(dir, config.FileName)
	os.WriteFile(ini, []byte("data_dir = ./data\nmedia_path = ./media\n"), 0o600)
	a, err := New(context.Background(), Options{ConfigPath: ini, Getenv: func(string) string { return "" },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Store().Update(context.Background(), func(tx store.Tx) error {
		return tx.Jobs().Enqueue(queue.NewJob("queue.noop", []byte("{}")))
	}); err != nil {
		t.Fatal(err)
	}
	lock, err := lockWorker(filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := a.spawnWorker(context.Background()); err != nil {
		t.Fatalf("spawnWorker: %v", err)
	}
	// spawnWorker opens worker.log just before it starts a process.
	if _, err := os.Stat(filepath.Join(dir, "data", "worker.log")); !os.IsNotExist(err) {
		t.Error("a worker was spawned although another holds the lock")
	}
	if _, err := lockWorker(filepath.Join(dir, "data")); err != ErrLocked {
		t.Errorf("second lock = %v; want ErrLocked", err)
	}
}
