package sqlite

import (
	"strings"
	"testing"
	"time"
)

// TestSlugQueriesUseTheirIndexes: an article found by its slug, and the
// checks of a new slug, read the slug indexes, never a scan of the posts.
func TestSlugQueriesUseTheirIndexes(t *testing.T) {
	t.Parallel()
	db := MustOpen(t, nil)
	for _, tc := range []struct {
		name string
		q    string
		args []any
	}{
		{"BySlug", bySlug, []any{"p", "hello", time.Now().UnixMicro()}},
		{"SlugOwner", slugOwner, []any{"p", "hello"}},
		{"TakenSlugs", takenSlugs, []any{"p", "hello", "hello-", "hello."}},
	} {
		if p := queryPlan(t, db, tc.q, tc.args...); !strings.Contains(p, "posts_slug") || strings.Contains(p, "SCAN posts") {
			t.Errorf("%s plan = %q; want the posts_slug index and no scan of posts", tc.name, p)
		}
	}
}

// queryPlan is SQLite's EXPLAIN QUERY PLAN of q, its steps joined by "; ".
func queryPlan(t *testing.T, db *DB, q string, args ...any) string {
	t.Helper()
	rows, err := db.r.Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var a, b, c int
		var d string
		if err := rows.Scan(&a, &b, &c, &d); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, d)
	}
	return strings.Join(plan, "; ")
}
