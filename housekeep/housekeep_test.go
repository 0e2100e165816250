package housekeep_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/housekeep"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
)

// TestReapersAreIsolated: a reaper that fails and one that panics do not
// stop the one after them; the run fails naming both, and each logs.
func TestReapersAreIsolated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 4, 10, 12, 30, 0, 0, time.UTC)
	db := sqlitetest.Open(t, sqlite.Options{Now: func() time.Time { return now }})
	for _, w := range []time.Time{now.Add(-3 * time.Hour), now.Add(-time.Hour), now} {
		if err := db.Update(ctx, func(tx store.Tx) error { _, err := tx.ShieldCounters().Hit("k", w, 1); return err }); err != nil {
			t.Fatal(err)
		}
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	err := housekeep.Run(ctx, db, log,
		housekeep.Reaper{Name: "failing", Reap: func(store.Tx, time.Time) (int, error) { return 0, errors.New("boom") }},
		housekeep.Reaper{Name: "panicking", Reap: func(store.Tx, time.Time) (int, error) { panic("bang") }},
		housekeep.Reaper{Name: "shield_counters", Reap: func(tx store.Tx, now time.Time) (int, error) {
			return tx.ShieldCounters().Reap(now.Add(-2 * time.Hour))
		}},
	)
	if err == nil || !strings.Contains(err.Error(), "reaper failing: boom") || !strings.Contains(err.Error(), "reaper panicking: panic: bang") {
		t.Errorf("Run = %v; want the failing and the panicking reaper named", err)
	}
	var left int
	db.Update(ctx, func(tx store.Tx) (err error) { left, err = tx.ShieldCounters().Reap(now.Add(time.Hour)); return err })
	if left != 2 {
		t.Errorf("rows left after the run = %d; want 2 (the one 3 h old reaped by the third reaper)", left)
	}
	for _, want := range []string{`"reaper":"failing"`, `"reaper":"panicking"`, `"reaper":"shield_counters","deleted":1`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no log line with %s:\n%s", want, logs.String())
		}
	}
	// The writer is whole after the panic: a write goes through.
	if err := db.Update(ctx, func(tx store.Tx) error { _, err := tx.ShieldCounters().Hit("k", now, 1); return err }); err != nil {
		t.Errorf("a write after the panicking reaper: %v", err)
	}
}

func TestHourlyJobIsOncePerHour(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 4, 10, 12, 5, 0, 0, time.UTC)
	a, b, c := housekeep.HourlyJob(at), housekeep.HourlyJob(at.Add(50*time.Minute)), housekeep.HourlyJob(at.Add(time.Hour))
	if a.ID != b.ID || a.ID == c.ID || a.Topic != housekeep.Topic {
		t.Errorf("ids %s, %s, %s (topic %s); want the first two equal (one hour), the third apart, topic %s", a.ID, b.ID, c.ID, a.Topic, housekeep.Topic)
	}
}
