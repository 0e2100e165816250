package migrate_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
)

var ctx = context.Background()

// quiet drops the databases' logs.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// schema is the migrated database openDB copies: the contract suite opens
// two files per case, and migrating each under -race cost most of its run.
var schema = sqlitetest.Template{Build: func(path string) error {
	db, err := sqlite.Open(ctx, path, sqlite.Options{Logger: quiet})
	if err != nil {
		return err
	}
	return db.Close()
}}

// openDB opens a migrated SQLite database file named name in dir; now is
// its clock (time.Now when nil).
func openDB(t testing.TB, dir, name string, now func() time.Time) *sqlite.DB {
	t.Helper()
	path := filepath.Join(dir, name)
	schema.CopyTo(t, path)
	db, err := sqlite.Open(ctx, path, sqlite.Options{Now: now, Logger: quiet})
	if err != nil {
		t.Fatalf("Open %s: %v", name, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// managed returns the queue over db's embedded engine.
func managed(db *sqlite.DB) *queue.Managed {
	return queue.New(db.Queue(), queue.Options{Poll: 20 * time.Millisecond})
}

// pair opens two SQLite queues, old and new, in two database files.
func pair(t testing.TB, now func() time.Time) (oldDB, newDB *sqlite.DB, oldQ, newQ *queue.Managed) {
	return pairWith(t, now, queue.Options{Poll: 20 * time.Millisecond})
}

// pairWith is pair with the queues built with o.
func pairWith(t testing.TB, now func() time.Time, o queue.Options) (oldDB, newDB *sqlite.DB, oldQ, newQ *queue.Managed) {
	t.Helper()
	dir := t.TempDir()
	oldDB, newDB = openDB(t, dir, "old.db", now), openDB(t, dir, "new.db", now)
	return oldDB, newDB, queue.New(oldDB.Queue(), o), queue.New(newDB.Queue(), o)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// counts returns a queue's job counts by state, for one topic ("" for all).
func counts(t testing.TB, in queue.Inspector, topic string) map[queue.State]int {
	t.Helper()
	cs, err := in.Counts(ctx)
	must(t, err)
	out := map[queue.State]int{}
	for _, c := range cs {
		if topic == "" || c.Topic == topic {
			out[c.State] += c.N
		}
	}
	return out
}

// stateOf returns the state of job id in a queue ("" when it is not there).
func stateOf(t testing.TB, in queue.Inspector, id string) queue.State {
	t.Helper()
	for _, st := range []queue.State{queue.StatePending, queue.StateScheduled, queue.StateRunning, queue.StateDone, queue.StateDead} {
		cursor := ""
		for {
			page, err := in.List(ctx, queue.ListQuery{State: st, Before: cursor, Limit: 100})
			must(t, err)
			for _, info := range page {
				if info.ID == id {
					return st
				}
			}
			if len(page) < 100 {
				break
			}
			cursor = page[len(page)-1].ID
		}
	}
	return ""
}

func jobs(topic string, n int) []queue.Job {
	js := make([]queue.Job, n)
	for i := range js {
		js[i] = queue.NewJob(topic, []byte(`{}`))
	}
	return js
}
