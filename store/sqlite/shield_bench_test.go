package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/murlog/murlog/store"
)

// BenchmarkShieldHit is the price of the persistent shield under CGI: one
// write transaction holding one upsert of a block's count, as every
// login, inbox, search and public-API request pays there. "cgi" opens
// the store as a CGI process does (statements not kept), "serve" keeps
// them; "cgi-open" adds opening and closing the database around each
// hit, the whole of what a process that did nothing else would spend.
// Keys cycle over 256 blocks, so most hits update a row and some insert.
//
//	go test -run '^$' -bench ShieldHit ./store/sqlite/
func BenchmarkShieldHit(b *testing.B) {
	ctx := context.Background()
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	w := now.Truncate(time.Minute)
	hit := func(b *testing.B, db *DB, i int) {
		err := db.Update(ctx, func(tx store.Tx) error {
			_, err := tx.ShieldCounters().Hit(fmt.Sprintf("inbox:198.51.%d.0/24", i%256), w, 1)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, oneShot := range []bool{true, false} {
		name := "serve"
		if oneShot {
			name = "cgi"
		}
		b.Run(name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), FileName)
			db, err := Open(ctx, path, Options{Now: func() time.Time { return now }, Logger: quiet, OneShot: oneShot})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			i := 0
			for b.Loop() {
				hit(b, db, i)
				i++
			}
		})
	}
	b.Run("cgi-open", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), FileName)
		db, err := Open(ctx, path, Options{Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
		i := 0
		for b.Loop() {
			db, err := Open(ctx, path, Options{Now: func() time.Time { return now }, Logger: quiet, OneShot: true})
			if err != nil {
				b.Fatal(err)
			}
			hit(b, db, i)
			db.Close()
			i++
		}
	})
}
