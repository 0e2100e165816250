package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// TestMigrationSiteNameOnce: a site upgraded from when the site-wide
// title and description stood beside the primary persona's site name and
// introduction keeps what the owner typed, in the one place left: a value
// only the old key had moves (cut to the new limit), one the persona had
// already stays, and the old keys are gone.
func TestMigrationSiteNameOnce(t *testing.T) {
	t.Parallel()
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	at := -1
	for i, m := range ms {
		if m.Name == "site_name_once" {
			at = i
		}
	}
	if at < 0 {
		t.Fatal("no migration named site_name_once")
	}
	before := fstest.MapFS{}
	for _, m := range ms[:at] {
		name := "migrations/" + pad(m.Version) + "_" + m.Name + ".sql"
		b, _ := migrationFiles.ReadFile(name)
		before[name] = &fstest.MapFile{Data: b}
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name              string
		title, descr      string
		row               bool // the primary persona has a settings row
		rowName, rowIntro string
		wantName          string
		wantIntro         string
		wantRow           bool
	}{
		{name: "moved into a new row", title: "  Alice's log  ", descr: "About\nthis site", wantName: "Alice's log", wantIntro: "About\nthis site", wantRow: true},
		{name: "cut to the new limits", title: strings.Repeat("名", 60), descr: strings.Repeat("説", 1200),
			wantName: strings.Repeat("名", 50), wantIntro: strings.Repeat("説", 1000), wantRow: true},
		{name: "the persona's own values stay", title: "Old", descr: "Old text", row: true, rowName: "New", rowIntro: "New text",
			wantName: "New", wantIntro: "New text", wantRow: true},
		{name: "only the empty one is filled", title: "Old", descr: "Old text", row: true, rowName: "New",
			wantName: "New", wantIntro: "Old text", wantRow: true},
		{name: "nothing to move makes no row", title: "  ", wantRow: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The database as the migrations before this one left it.
			path := filepath.Join(t.TempDir(), FileName)
			raw, err := sql.Open("sqlite", "file:"+path+"?_foreign_keys=1")
			if err != nil {
				t.Fatal(err)
			}
			old := &DB{path: path, w: raw, r: raw, now: time.Now, log: quiet}
			if err := old.applyMigrations(ctx, before); err != nil {
				t.Fatal(err)
			}
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := raw.ExecContext(ctx, q, args...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			exec(`INSERT INTO personas (id, username, is_primary, public_key_pem, private_key_pem, created_at, updated_at)
				VALUES ('p1', 'alice', 1, 'pub', 'priv', 0, 0), ('p2', 'bob', 0, 'pub', 'priv', 0, 0)`)
			exec(`INSERT INTO settings (key, value) VALUES ('site_title', ?), ('site_description', ?), ('site_language', 'ja')`, tc.title, tc.descr)
			if tc.row {
				exec(`INSERT INTO pub_configs (persona_id, site_name, introduction, updated_at) VALUES ('p1', ?, ?, 0)`, tc.rowName, tc.rowIntro)
			}
			raw.Close()
			// Opening it applies the rest.
			db, err := Open(ctx, path, Options{Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			err = db.View(ctx, func(tx store.Tx) error {
				c, err := tx.PubConfigs().Get("p1")
				switch {
				case !tc.wantRow:
					if murlog.ErrorCode(err) != murlog.ENotFound {
						t.Errorf("settings row %+v, %v; want none", c, err)
					}
				case err != nil:
					t.Errorf("no settings row: %v", err)
				default:
					want := murlog.DefaultPubConfig("p1")
					want.SiteName, want.Introduction, want.UpdatedAt = tc.wantName, tc.wantIntro, c.UpdatedAt
					if *c != *want {
						t.Errorf("settings = %+v\nwant %+v", c, want)
					}
				}
				if _, err := tx.PubConfigs().Get("p2"); murlog.ErrorCode(err) != murlog.ENotFound {
					t.Errorf("another persona got a settings row: %v", err)
				}
				m, err := tx.Settings().GetMany("site_title", "site_description", "site_language")
				if err != nil || len(m) != 1 || m["site_language"] != "ja" {
					t.Errorf("settings after the migration = %v, %v; want only site_language", m, err)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
