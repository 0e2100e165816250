package sqlite

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

// BenchmarkSearchAdversarial runs the crafted searches on 5,000
// adversarial posts, a page of 21 (a KWIC page and one more) in a read
// transaction each, as the search page does: the store's part of the
// figure that blog's BenchmarkSearchAdversarial measures whole.
//
//	go test -run '^$' -bench SearchAdversarial -benchtime 20x ./store/sqlite/
func BenchmarkSearchAdversarial(b *testing.B) {
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	db := MustOpen(b, func() time.Time { return now })
	per := storetest.SeedAdversarial(b, db, now, "alice", 5000, storetest.AdversarialRuns, storetest.AdversarialSize)
	for _, c := range storetest.CraftedSearches {
		terms := strings.FieldsFunc(c.Q, unicode.IsSpace)
		b.Run(c.Name, func(b *testing.B) {
			stopped := 0
			for b.Loop() {
				err := db.View(context.Background(), func(tx store.Tx) error {
					_, err := tx.PublicPosts().Search(store.SearchQuery{PersonaID: per.ID, Terms: terms, Now: now, Limit: 21})
					return err
				})
				if errors.Is(err, store.ErrSearchTooExpensive) {
					stopped++
				} else if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(stopped)/float64(b.N), "stopped/op")
		})
	}
}
