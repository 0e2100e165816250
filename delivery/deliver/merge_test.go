package deliver

import (
	"context"
	"slices"
	"sort"
	"testing"
)

// TestMerged walks merged pages of followers' inboxes and extras that
// overlap them, before, between and after, with every page size: each
// inbox comes once, in order.
func TestMerged(t *testing.T) {
	t.Parallel()
	base := []string{"https://b/inbox", "https://d/inbox", "https://f/inbox", "https://h/inbox"}
	extras := []string{"https://h/inbox", "https://a/inbox", "", "https://d/inbox", "https://z/inbox", "https://e/inbox", "https://a/inbox"}
	want := []string{"https://a/inbox", "https://b/inbox", "https://d/inbox", "https://e/inbox", "https://f/inbox", "https://h/inbox", "https://z/inbox"}
	followers := func(_ context.Context, after string, limit int) ([]string, error) {
		i := sort.Search(len(base), func(i int) bool { return base[i] > after })
		return base[i:min(len(base), i+limit)], nil
	}
	for _, b := range []pager{followers, nil} {
		for limit := 1; limit <= 8; limit++ {
			pages := merged(b, extras)
			var got []string
			for after := ""; ; {
				page, err := pages(context.Background(), after, limit)
				if err != nil {
					t.Fatal(err)
				}
				if len(page) == 0 {
					break
				}
				if len(page) > limit {
					t.Fatalf("page of %d for limit %d", len(page), limit)
				}
				for _, r := range page {
					got = append(got, r.Inbox)
				}
				after = page[len(page)-1].ID
			}
			w := want
			if b == nil {
				w = []string{"https://a/inbox", "https://d/inbox", "https://e/inbox", "https://h/inbox", "https://z/inbox"}
			}
			if !slices.Equal(got, w) {
				t.Errorf("limit %d, followers %v: walked %v; want %v", limit, b != nil, got, w)
			}
		}
	}
}
