package sqlite

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

// marks returns the dirty scopes, sorted, and clears them.
func marks(t *testing.T, db *DB) []string {
	t.Helper()
	var got []string
	mustUpdate(t, db, func(tx store.Tx) error {
		ks, err := tx.DirtyKeys().Newest(store.MaxMarkKeys, time.Time{})
		for _, k := range ks {
			got = append(got, k.Key)
		}
		if err == nil {
			_, err = tx.DirtyKeys().Clear(ks...)
		}
		return err
	})
	slices.Sort(got)
	return got
}

// TestWritesMarkScopes: the triggers of migration 016 mark what each
// write changes on the public side, and nothing for what stays private.
func TestWritesMarkScopes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	db := MustOpen(t, func() time.Time { return now })
	per := storetest.NewPersona("alice", true, now)
	pub := now.Add(-time.Hour)
	p := storetest.NewPost(per.ID, &pub, murlog.VisibilityPublic, now)
	p.Tags, p.Slug = []string{"Go", "日本語"}, "hello"
	draft := storetest.NewPost(per.ID, nil, murlog.VisibilityPublic, now)
	mustUpdate(t, db, func(tx store.Tx) error {
		if err := tx.Personas().Create(per); err != nil {
			return err
		}
		return tx.Posts().Create(draft)
	})
	if got := marks(t, db); len(got) != 0 {
		t.Errorf("a persona and a draft marked %v; want nothing", got)
	}
	mustUpdate(t, db, func(tx store.Tx) error { return tx.Posts().Create(p) })
	want := []string{"persona/" + per.ID, "post/" + p.ID, "tag/Go", "tag/日本語"}
	if got := marks(t, db); !slices.Equal(got, want) {
		t.Errorf("publishing marked %v; want %v", got, want)
	}
	mustUpdate(t, db, func(tx store.Tx) error {
		p.Visibility, p.Slug, p.Tags = murlog.VisibilityFollowers, "renamed", []string{"Go"}
		return tx.Posts().Update(p)
	})
	want = []string{"gone/" + per.ID + "/" + p.ID, "persona/" + per.ID, "post/" + p.ID, "slug/" + per.ID + "/hello", "tag/Go", "tag/日本語"}
	if got := marks(t, db); !slices.Equal(got, want) {
		t.Errorf("making it followers-only marked %v; want %v", got, want)
	}
	mustUpdate(t, db, func(tx store.Tx) error {
		p.Visibility = murlog.VisibilityPublic
		return tx.Posts().Update(p)
	})
	marks(t, db)
	mustUpdate(t, db, func(tx store.Tx) error { return tx.Posts().Delete(p.ID) })
	want = []string{"gone/" + per.ID + "/" + p.ID, "near/" + per.ID + "/" + strconv.FormatInt(micros(pub), 10), "persona/" + per.ID, "slug/" + per.ID + "/renamed", "tag/Go"}
	if got := marks(t, db); !slices.Equal(got, want) {
		t.Errorf("deleting it marked %v; want %v", got, want)
	}
	mustUpdate(t, db, func(tx store.Tx) error {
		if err := tx.Settings().Set(murlog.SettingPasswordHash, "x"); err != nil {
			return err
		}
		return tx.Settings().Set("kill_switches", `{"inbox":false}`)
	})
	if got := marks(t, db); !slices.Equal(got, []string{"runtime"}) {
		t.Errorf("a password and a kill switch marked %v; want only runtime", got)
	}
	mustUpdate(t, db, func(tx store.Tx) error { return tx.Settings().Set("robots_noai", "1") })
	if got := marks(t, db); !slices.Equal(got, []string{"site"}) {
		t.Errorf("a robots setting marked %v; want site", got)
	}
}

// TestMarksEnqueueTheRebuild: a mark makes a rebuild job runnable in the
// same transaction, one per quarter second of writes, and a window's job
// that already ran is made pending again by a later mark.
func TestMarksEnqueueTheRebuild(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	db := MustOpen(t, func() time.Time { return now })
	jobs := func() (n int, state string) {
		t.Helper()
		mustUpdate(t, db, func(st store.Tx) error {
			return st.(*tx).queryRow("SELECT count(*), coalesce(max(state), '') FROM queue_jobs WHERE topic = 'artifacts.rebuild'", nil, &n, &state)
		})
		return
	}
	mustUpdate(t, db, func(tx store.Tx) error { return tx.DirtyKeys().Mark("key:html/index.html", "site") })
	if n, state := jobs(); n < 1 || state != "pending" {
		t.Fatalf("after a mark: %d rebuild jobs, state %q; want one pending", n, state)
	}
	select {
	case <-db.Woken():
	default:
		t.Error("a commit that marked did not wake the worker")
	}
	mustUpdate(t, db, func(st store.Tx) error {
		_, err := st.(*tx).exec("UPDATE queue_jobs SET state = 'done', finished_at = 1 WHERE topic = 'artifacts.rebuild'")
		return err
	})
	// Marked again: the same window's job (or the next window's) is
	// runnable again.
	mustUpdate(t, db, func(tx store.Tx) error { return tx.DirtyKeys().Mark("site") })
	var pending int
	mustUpdate(t, db, func(st store.Tx) error {
		return st.(*tx).queryRow("SELECT count(*) FROM queue_jobs WHERE topic = 'artifacts.rebuild' AND state = 'pending'", nil, &pending)
	})
	if pending != 1 {
		t.Errorf("after a second mark: %d pending rebuild jobs; want 1", pending)
	}
}
