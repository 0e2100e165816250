package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

func TestPublicPostsContract(t *testing.T) {
	storetest.PublicPosts(t, func(t *testing.T) store.Store { return MustOpen(t, nil) })
}

// indexState is what the 008 triggers maintain, read straight from the
// tables: the tags of each post and the FTS rows of each post.
type indexState struct {
	tags map[string][]string // post id → sorted tags
	fts  map[string]string   // post id → "title|source" as indexed
}

func readIndexes(t *testing.T, db *DB) indexState {
	t.Helper()
	st := indexState{tags: map[string][]string{}, fts: map[string]string{}}
	rows, err := db.r.Query("SELECT post_id, tag FROM post_tags ORDER BY post_id, tag")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, tag string
		rows.Scan(&id, &tag)
		st.tags[id] = append(st.tags[id], tag)
	}
	rows.Close()
	rows, err = db.r.Query(`SELECT s.post_id, f.title, f.source FROM posts_fts f JOIN post_search_ids s ON s.rowid = f.rowid`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, title, source string
		rows.Scan(&id, &title, &source)
		st.fts[id] = title + "|" + source
	}
	rows.Close()
	var stale int
	db.r.QueryRow("SELECT count(*) FROM post_tags t JOIN posts p ON p.id = t.post_id WHERE t.pub_at IS NOT p.published_at").Scan(&stale)
	if stale != 0 {
		t.Errorf("%d post_tags rows whose pub_at differs from the post's published_at", stale)
	}
	var ids, fts int
	db.r.QueryRow("SELECT (SELECT count(*) FROM post_search_ids), (SELECT count(*) FROM posts_fts)").Scan(&ids, &fts)
	if ids != len(st.fts) || fts != len(st.fts) {
		t.Errorf("post_search_ids %d rows, posts_fts %d rows, %d joined; want one each per post", ids, fts, len(st.fts))
	}
	if _, err := db.w.Exec("INSERT INTO posts_fts (posts_fts, rank) VALUES ('integrity-check', 1)"); err != nil {
		t.Errorf("FTS integrity-check: %v", err)
	}
	return st
}

// search runs PublicPosts.Search for one term over every persona.
func search(t *testing.T, db *DB, now time.Time, terms ...string) []string {
	t.Helper()
	var ids []string
	err := db.View(context.Background(), func(tx store.Tx) error {
		ps, err := tx.PublicPosts().Search(store.SearchQuery{Terms: terms, Now: now, Limit: 100})
		for _, p := range ps {
			ids = append(ids, p.ID)
		}
		return err
	})
	if err != nil {
		t.Fatalf("Search(%q): %v", terms, err)
	}
	return ids
}

func mustUpdate(t *testing.T, db *DB, fn func(store.Tx) error) {
	t.Helper()
	if err := db.Update(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func TestPublicIndexesFollowPosts(t *testing.T) {
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	db := MustOpen(t, func() time.Time { return now })
	per := storetest.NewPersona("alice", true, now)
	pub := now.Add(-time.Hour)
	p := storetest.NewPost(per.ID, &pub, murlog.VisibilityPublic, now)
	p.Title, p.Source, p.Tags = "Alpha", "東京タワーに登った", []string{"Go", "go", "Rust"}
	q := storetest.NewPost(per.ID, &pub, murlog.VisibilityPublic, now)
	q.Source, q.Tags = "other", nil
	mustUpdate(t, db, func(tx store.Tx) error {
		if err := tx.Personas().Create(per); err != nil {
			return err
		}
		if err := tx.Posts().Create(p); err != nil {
			return err
		}
		return tx.Posts().Create(q)
	})
	st := readIndexes(t, db)
	if !slices.Equal(st.tags[p.ID], []string{"go", "rust"}) || len(st.tags[q.ID]) != 0 || st.fts[p.ID] != "Alpha|東京タワーに登った" || st.fts[q.ID] != "|other" {
		t.Errorf("after create: %+v; want tags go, rust and the title and source indexed", st)
	}

	// Tags change: post_tags follows; a content-only change leaves both alone.
	p.Tags, p.Content = []string{"Zig"}, "<p>changed</p>"
	mustUpdate(t, db, func(tx store.Tx) error { return tx.Posts().Update(p) })
	st = readIndexes(t, db)
	if !slices.Equal(st.tags[p.ID], []string{"zig"}) || st.fts[p.ID] != "Alpha|東京タワーに登った" {
		t.Errorf("after a tags change: %+v; want only zig, text unchanged", st)
	}
	if got := search(t, db, now, "東京タワー"); !slices.Equal(got, []string{p.ID}) {
		t.Errorf("search before the text change = %v; want the post", got)
	}

	// Unpublishing and republishing moves the tag rows' copy of published_at.
	for _, at := range []*time.Time{nil, &now} {
		p.PublishedAt = at
		mustUpdate(t, db, func(tx store.Tx) error { return tx.Posts().Update(p) })
		readIndexes(t, db)
		var got []*murlog.Post
		db.View(context.Background(), func(tx store.Tx) (err error) {
			got, err = tx.PublicPosts().List(store.PublicQuery{Tag: "zig", Now: now, Limit: 5})
			return err
		})
		if (len(got) == 1) != (at != nil) {
			t.Errorf("tag page with published_at %v = %d posts", at, len(got))
		}
	}

	// A writer setting only published_at (posts.Update sets every column,
	// which fires any UPDATE OF trigger) must move it too.
	if _, err := db.w.Exec("UPDATE posts SET published_at = ? WHERE id = ?", micros(pub), p.ID); err != nil {
		t.Fatal(err)
	}
	readIndexes(t, db)
	// The same for a writer setting only the text.
	if _, err := db.w.Exec("UPDATE posts SET source = ? WHERE id = ?", "札幌の雪", p.ID); err != nil {
		t.Fatal(err)
	}
	if got := search(t, db, now, "札幌の"); !slices.Equal(got, []string{p.ID}) {
		t.Errorf("search after a source-only update = %v; want the post", got)
	}

	// Title and source change: the old words are gone, the new ones found.
	p.Title, p.Source = "Beta", "大阪城を見た"
	mustUpdate(t, db, func(tx store.Tx) error { return tx.Posts().Update(p) })
	st = readIndexes(t, db)
	if st.fts[p.ID] != "Beta|大阪城を見た" {
		t.Errorf("after a text change: fts %q; want the new text", st.fts[p.ID])
	}
	if got := search(t, db, now, "東京タワー"); len(got) != 0 {
		t.Errorf("old text still found: %v", got)
	}
	if got := search(t, db, now, "大阪城"); !slices.Equal(got, []string{p.ID}) {
		t.Errorf("new text search = %v; want the post", got)
	}
	if got := search(t, db, now, "beta"); !slices.Equal(got, []string{p.ID}) {
		t.Errorf("new title search = %v; want the post", got)
	}

	// Delete: both indexes drop the post.
	mustUpdate(t, db, func(tx store.Tx) error { return tx.Posts().Delete(p.ID) })
	st = readIndexes(t, db)
	if len(st.tags) != 0 || len(st.fts) != 1 || st.fts[q.ID] == "" {
		t.Errorf("after delete: %+v; want only the other post's text", st)
	}

	// Deleting the persona cascades to its posts, and the triggers fire.
	if _, err := db.w.Exec("DELETE FROM personas WHERE id = ?", per.ID); err != nil {
		t.Fatal(err)
	}
	if st = readIndexes(t, db); len(st.tags) != 0 || len(st.fts) != 0 {
		t.Errorf("after the persona's delete: %+v; want empty indexes", st)
	}
}

// TestSearchSurvivesVacuum deletes posts in the middle of the table so that
// VACUUM renumbers the implicit rowids of posts, then checks every search
// still finds the right posts: the FTS rowids must come from
// post_search_ids, not from posts.
func TestSearchSurvivesVacuum(t *testing.T) {
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	db := MustOpen(t, func() time.Time { return now })
	per := storetest.NewPersona("alice", true, now)
	var ps []*murlog.Post
	mustUpdate(t, db, func(tx store.Tx) error {
		if err := tx.Personas().Create(per); err != nil {
			return err
		}
		for i := range 60 {
			pub := now.Add(-time.Duration(60-i) * time.Minute)
			p := storetest.NewPost(per.ID, &pub, murlog.VisibilityPublic, now)
			p.Source = fmt.Sprintf("word%03d 番号%03d", i, i)
			if err := tx.Posts().Create(p); err != nil {
				return err
			}
			ps = append(ps, p)
		}
		for i := 0; i < 40; i++ { // keep 40…59
			if err := tx.Posts().Delete(ps[i].ID); err != nil {
				return err
			}
		}
		return nil
	})
	// SQLite documents that VACUUM may renumber the rowids of a table
	// without an INTEGER PRIMARY KEY (posts); current versions happen to
	// keep them, so this checks the outcome, whatever VACUUM does.
	if _, err := db.w.Exec("VACUUM"); err != nil {
		t.Fatalf("VACUUM: %v", err)
	}
	readIndexes(t, db)
	for i := 40; i < 60; i++ {
		for _, term := range []string{fmt.Sprintf("word%03d", i), fmt.Sprintf("番号%03d", i)} {
			if got := search(t, db, now, term); !slices.Equal(got, []string{ps[i].ID}) {
				t.Errorf("after VACUUM, search %q = %v; want %s", term, got, ps[i].ID)
			}
		}
	}
	if got := search(t, db, now, "word010"); len(got) != 0 {
		t.Errorf("a deleted post is found after VACUUM: %v", got)
	}
	if got := search(t, db, now, "word"); len(got) != 20 {
		t.Errorf("search word = %d posts; want 20", len(got))
	}
}

// TestMigration008Backfills runs 008 on a database that already has posts
// (as an upgrade does) and checks that both indexes are filled.
func TestMigration008Backfills(t *testing.T) {
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	db := MustOpen(t, func() time.Time { return now })
	ctx := context.Background()
	for _, q := range []string{
		"DROP TABLE pub_configs", "DROP TABLE post_tags", "DROP TABLE posts_fts", "DROP TABLE post_search_ids",
		"DROP TRIGGER post_tags_insert", "DROP TRIGGER post_tags_update", "DROP TRIGGER post_tags_delete",
		"DROP TRIGGER posts_fts_insert", "DROP TRIGGER posts_fts_update", "DROP TRIGGER posts_fts_delete",
		"DELETE FROM schema_version WHERE version = 8",
	} {
		if _, err := db.w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	per := storetest.NewPersona("alice", true, now)
	pub := now.Add(-time.Hour)
	var ids []string
	mustUpdate(t, db, func(tx store.Tx) error {
		if err := tx.Personas().Create(per); err != nil {
			return err
		}
		for i, tags := range [][]string{{"Go", "GO"}, nil, {"x"}} {
			p := storetest.NewPost(per.ID, &pub, murlog.VisibilityPublic, now)
			p.Source, p.Tags = fmt.Sprintf("old post %d ですね", i), tags
			if err := tx.Posts().Create(p); err != nil {
				return err
			}
			ids = append(ids, p.ID)
		}
		return nil
	})
	// Back to before 009 too, and before every later migration, so that
	// all of them are applied again in order.
	for _, q := range append(undo016[:len(undo016):len(undo016)], "ALTER TABLE posts DROP COLUMN excerpt", "ALTER TABLE posts DROP COLUMN image",
		"DROP TABLE totp", "DROP TABLE totp_recovery_codes",
		"DROP TABLE post_old_slugs", "DROP INDEX posts_slug", "DROP INDEX posts_pages",
		"ALTER TABLE posts DROP COLUMN slug", "ALTER TABLE posts DROP COLUMN page",
		"DROP INDEX queue_jobs_lease", "ALTER TABLE queue_jobs DROP COLUMN lease_until",
		"DROP TABLE signature_schemes", "DROP TABLE artifact_dirty", "DROP TABLE shield_counters", "DELETE FROM schema_version WHERE version >= 9") {
		if _, err := db.w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.applyMigrations(ctx, migrationFiles); err != nil {
		t.Fatalf("re-applying 008 and 009: %v", err)
	}
	st := readIndexes(t, db)
	if !slices.Equal(st.tags[ids[0]], []string{"go"}) || len(st.tags[ids[1]]) != 0 || !slices.Equal(st.tags[ids[2]], []string{"x"}) {
		t.Errorf("backfilled tags = %v", st.tags)
	}
	if got := search(t, db, now, "post 1 で"); !slices.Equal(got, []string{ids[1]}) {
		t.Errorf("backfilled search = %v; want the second post", got)
	}
	if got := search(t, db, now, "ですね"); len(got) != 3 {
		t.Errorf("backfilled search of the common words = %v; want all three", got)
	}
}

func TestSearchLongAndOddTerms(t *testing.T) {
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	db := MustOpen(t, func() time.Time { return now })
	per := storetest.NewPersona("alice", true, now)
	pub := now.Add(-time.Hour)
	long := strings.Repeat("長い文章です。", 1500) // 10,500 runes
	p := storetest.NewPost(per.ID, &pub, murlog.VisibilityPublic, now)
	p.Source = long + ` 100% done_ok "x" a'b`
	mustUpdate(t, db, func(tx store.Tx) error {
		if err := tx.Personas().Create(per); err != nil {
			return err
		}
		return tx.Posts().Create(p)
	})
	for _, tc := range []struct {
		terms []string
		hit   bool
	}{
		{[]string{long[:len(long)-len("。")]}, true}, // 10,499 runes: the index finds its start, a scan the rest
		{[]string{long[:len(long)-len("。")] + "x"}, false},
		{[]string{"長い文章です。" + strings.Repeat("x", 10000)}, false},
		{[]string{strings.Repeat("x", 10000)}, false},
		{[]string{"%"}, true}, {[]string{"_"}, true}, {[]string{"%d"}, false}, {[]string{"0%"}, true},
		{[]string{"e_"}, true}, {[]string{"a'b"}, true}, {[]string{"'"}, true}, {[]string{`"x"`}, true},
		{[]string{"-"}, false}, {[]string{"^"}, false}, {[]string{"NOT"}, false},
	} {
		got := search(t, db, now, tc.terms...)
		if (len(got) == 1) != tc.hit {
			t.Errorf("Search(%.20q) = %v; want hit %v", tc.terms, got, tc.hit)
		}
	}
	// Control characters and text that is not UTF-8 are refused: SQLite
	// would cut a text at NUL and search for something else.
	for _, term := range []string{"\x00", "a\x00b", "x\x1fy", "\x7f", "\u0085", "bad\xff"} {
		err := db.View(context.Background(), func(tx store.Tx) error {
			_, err := tx.PublicPosts().Search(store.SearchQuery{Terms: []string{term}, Now: now, Limit: 5})
			return err
		})
		if murlog.ErrorCode(err) != murlog.EInvalid {
			t.Errorf("Search(%q) err = %v; want invalid", term, err)
		}
	}
}

func TestPubConfigs(t *testing.T) {
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	db := MustOpen(t, func() time.Time { return now })
	ctx := context.Background()
	per := storetest.NewPersona("alice", true, now)
	mustUpdate(t, db, func(tx store.Tx) error { return tx.Personas().Create(per) })
	get := func() (*murlog.PubConfig, error) {
		var c *murlog.PubConfig
		err := db.View(ctx, func(tx store.Tx) error {
			var err error
			c, err = tx.PubConfigs().Get(per.ID)
			return err
		})
		return c, err
	}
	if c, err := get(); murlog.ErrorCode(err) != murlog.ENotFound {
		t.Errorf("Get with no row = %+v, %v; want not_found", c, err)
	}
	c := murlog.DefaultPubConfig(per.ID)
	c.SiteName, c.Subtitle, c.Author, c.Introduction, c.DesignTheme = "Site", "Sub", "Me", "Hello\nthere", "dark"
	c.ShowServiceHeader, c.SideRecent, c.SidePopular, c.Extensions, c.UpdatedAt = false, 7, 0, `{"share":{"x":true}}`, now
	mustUpdate(t, db, func(tx store.Tx) error { return tx.PubConfigs().Put(c) })
	if got, err := get(); err != nil || *got != *c {
		t.Errorf("Get after Put = %+v, %v; want %+v", got, err, c)
	}
	c2 := *c
	c2.SiteName, c2.ShowServiceHeader, c2.ShowPagination, c2.SideRecent, c2.Extensions, c2.UpdatedAt = "Renamed", true, false, 3, "", now.Add(time.Hour)
	mustUpdate(t, db, func(tx store.Tx) error { return tx.PubConfigs().Put(&c2) })
	want := c2
	want.Extensions = "{}" // "" is stored as the empty object
	if got, err := get(); err != nil || *got != want {
		t.Errorf("Get after a second Put = %+v, %v; want %+v", got, err, want)
	}
	var n int
	db.r.QueryRow("SELECT count(*) FROM pub_configs").Scan(&n)
	if n != 1 {
		t.Errorf("%d rows after two Puts; want 1", n)
	}
	big := c2
	big.Extensions = `{"x":"` + strings.Repeat("a", 4096) + `"}`
	err := db.Update(ctx, func(tx store.Tx) error { return tx.PubConfigs().Put(&big) })
	if murlog.ErrorCode(err) != murlog.EInvalid {
		t.Errorf("Put with %d characters of extensions err = %v; want invalid", len(big.Extensions), err)
	}
	if got, _ := get(); got == nil || *got != want {
		t.Errorf("after the refused Put, Get = %+v; want the previous row", got)
	}
}
