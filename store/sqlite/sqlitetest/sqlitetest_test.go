package sqlitetest_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"

	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
	"github.com/murlog/murlog/store/storetest"
)

// TestCopiesAreMigratedAndApart: a copy opens without migrating (no
// "database migrated" line), and what one test writes another never sees.
func TestCopiesAreMigratedAndApart(t *testing.T) {
	var logs bytes.Buffer
	a := sqlitetest.Open(t, sqlite.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if strings.Contains(logs.String(), "migrated") {
		t.Errorf("opening a copy migrated again:\n%s", logs.String())
	}
	b := sqlitetest.Open(t, sqlite.Options{})
	p := storetest.NewPersona("alice", true, time.Now())
	if err := a.Update(context.Background(), func(tx store.Tx) error { return tx.Personas().Create(p) }); err != nil {
		t.Fatal(err)
	}
	err := b.View(context.Background(), func(tx store.Tx) error {
		_, err := tx.Personas().GetByUsername("alice")
		return err
	})
	if murlog.ErrorCode(err) != murlog.ENotFound {
		t.Errorf("another copy's persona lookup = %v; want not found", err)
	}
}
