package sqlite

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

// TestSearchRunsAreCheap: posts made of long runs of one letter or
// pattern, searched with 200 of it (every trigram of the term in every
// post, and no match) or with the runs themselves (a match in every
// post). A phrase of 198 trigrams over such posts costs FTS5 198 passes
// over each post's positions: 120 posts of runs of x took 0.4 s before
// issue 15, 5,000 took seconds. Now the search is linear in the text it
// reads, under a budget; each search must answer within the budget and
// 200 ms (under -race the budget is 20 times longer, see race.go).
func TestSearchRunsAreCheap(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	db := MustOpen(t, func() time.Time { return now })
	xs := storetest.SeedAdversarial(t, db, now, "xs", 120, storetest.AdversarialRuns[:1], func(int) int { return 3000 })
	mixed := storetest.SeedAdversarial(t, db, now, "mixed", 12, storetest.AdversarialRuns[:4], func(int) int { return 3000 })
	for _, c := range []struct {
		persona string
		term    string
		hits    int
	}{
		{xs.ID, strings.Repeat("x", 200), 0},
		{xs.ID, strings.Repeat("x", 199) + "y", 21},
		{mixed.ID, strings.Repeat("x", 200), 0},
		{mixed.ID, strings.Repeat("ー", 200), 0},
		{mixed.ID, strings.Repeat("ab", 100), 0},
		{mixed.ID, strings.Repeat("ж", 200), 0},
		{mixed.ID, strings.Repeat("x", 199) + "y", 3},
		{mixed.ID, strings.Repeat("ー", 199) + "。", 3},
		{mixed.ID, strings.Repeat("ab", 99) + "c", 3},
		{mixed.ID, "Ж" + strings.Repeat("Ж", 198), 3}, // folded: the runs are "Жжж…"
	} {
		start := time.Now()
		var got []*murlog.Post
		err := db.View(context.Background(), func(tx store.Tx) (err error) {
			got, err = tx.PublicPosts().Search(store.SearchQuery{PersonaID: c.persona, Terms: []string{c.term}, Now: now, Limit: 21})
			return err
		})
		took := time.Since(start)
		if bound := defaultSearchBudget + 200*time.Millisecond; took > bound {
			t.Errorf("Search(%.12q… %d characters) took %v; want it within %v (the budget is %v)", c.term, len([]rune(c.term)), took, bound, defaultSearchBudget)
		}
		if errors.Is(err, store.ErrSearchTooExpensive) {
			t.Logf("Search(%.12q…) stopped at the budget after %v (a slow machine)", c.term, took)
			continue
		}
		if err != nil || len(got) != c.hits {
			t.Errorf("Search(%.12q…) = %d posts, %v; want %d", c.term, len(got), err, c.hits)
		}
	}
	// The budget, on the same posts (seeding is most of the time under
	// -race, where SQLite's transpiled C runs many times slower): a
	// search past its budget is stopped and answers ErrSearchTooExpensive;
	// a search whose request ended answers that context's error, not a
	// verdict on the query.
	q := store.SearchQuery{PersonaID: xs.ID, Terms: []string{"xy"}, Now: now, Limit: 21, Budget: time.Nanosecond}
	err := db.View(context.Background(), func(tx store.Tx) error { _, err := tx.PublicPosts().Search(q); return err })
	if !errors.Is(err, store.ErrSearchTooExpensive) || murlog.ErrorCode(err) != murlog.EInvalid {
		t.Errorf("Search with a budget of 1 ns err = %v; want ErrSearchTooExpensive (invalid)", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	q.Budget = 0
	err = db.View(ctx, func(tx store.Tx) error {
		cancel()
		_, err := tx.PublicPosts().Search(q)
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Search after the request ended err = %v; want context.Canceled", err)
	}
}
