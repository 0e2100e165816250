package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

// benchWords make the ~1 KB posts of the page benchmark: Japanese without
// spaces and English. "ラーメン" and "京都" are put into 2% of the posts
// each, so a search must look past many posts for ten hits.
var benchWords = strings.Fields(`今日は 東京で 美味しい ご飯を 食べた。 雨が 降っている。 新しい 本を 読んだ。
	電車が 遅れた。 the quick brown fox jumps over lazy dog while writing some notes about servers
	and federation ActivityPub SQLite indexes pages themes`)

// seedBlog writes n posts of one persona into a file database: notes and
// articles, a few tags each, one in 20 unlisted and one in 50 a draft. It
// returns the listed ids newest first.
func seedBlog(b *testing.B, n int) (*DB, string, []string) {
	b.Helper()
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	db, err := Open(context.Background(), filepath.Join(b.TempDir(), FileName), Options{Now: func() time.Time { return now }, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	rng := rand.New(rand.NewPCG(1, 2))
	per := storetest.NewPersona("alice", true, now)
	tags := []string{"go", "diary", "food", "travel", "tech", "Books"}
	var listed []string
	err = db.Update(context.Background(), func(tx store.Tx) error {
		if err := tx.Personas().Create(per); err != nil {
			return err
		}
		for i := range n {
			pub := now.Add(-time.Duration(n-i) * time.Hour)
			p := storetest.NewPost(per.ID, &pub, murlog.VisibilityPublic, now)
			var sb strings.Builder
			for sb.Len() < 1000 {
				sb.WriteString(benchWords[rng.IntN(len(benchWords))])
				if rng.IntN(3) == 0 {
					sb.WriteByte(' ')
				}
			}
			if rng.IntN(50) == 0 {
				sb.WriteString("ラーメン")
			}
			if rng.IntN(50) == 0 {
				sb.WriteString("京都")
			}
			p.Source, p.Content = sb.String(), "<p>"+sb.String()+"</p>"
			if i%3 == 0 {
				p.Kind, p.Title = murlog.KindArticle, fmt.Sprintf("Article %d", i)
			}
			p.Tags = []string{tags[rng.IntN(len(tags))], tags[rng.IntN(len(tags))]}
			switch {
			case i%50 == 7:
				p.PublishedAt = nil
			case i%20 == 3:
				p.Visibility = murlog.VisibilityUnlisted
			}
			if err := tx.Posts().Create(p); err != nil {
				return err
			}
			if p.PublicAt(now) && p.Visibility == murlog.VisibilityPublic {
				listed = append(listed, p.ID)
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for i, j := 0, len(listed)-1; i < j; i, j = i+1, j-1 {
		listed[i], listed[j] = listed[j], listed[i]
	}
	return db, per.ID, listed
}

// BenchmarkPublicPages measures each query a page model makes, one read
// transaction per operation as the blog does:
//
//	go test -run '^$' -bench PublicPages -benchtime 2000x -benchmem ./store/sqlite/
func BenchmarkPublicPages(b *testing.B) {
	db, personaID, listed := seedBlog(b, 5000)
	now := db.now()
	ctx := context.Background()
	mid := listed[len(listed)/2]
	var midPost *murlog.Post
	db.View(ctx, func(tx store.Tx) (err error) { midPost, err = tx.PublicPosts().Get(mid, now); return err })
	ids := make([]string, store.MaxByIDs)
	for i := range ids {
		ids[i] = listed[(i*241)%len(listed)]
	}
	run := func(name string, want int, fn func(store.PublicPosts) (int, error)) {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var n int
				err := db.View(ctx, func(tx store.Tx) (err error) { n, err = fn(tx.PublicPosts()); return err })
				if err != nil || (want >= 0 && n != want) {
					b.Fatalf("%s: %d results, %v; want %d", name, n, err, want)
				}
			}
		})
	}
	list := func(q store.PublicQuery) func(store.PublicPosts) (int, error) {
		return func(pp store.PublicPosts) (int, error) { ps, err := pp.List(q); return len(ps), err }
	}
	search := func(term string) func(store.PublicPosts) (int, error) {
		return func(pp store.PublicPosts) (int, error) {
			ps, err := pp.Search(store.SearchQuery{PersonaID: personaID, Terms: []string{term}, Now: now, Limit: 10})
			return len(ps), err
		}
	}
	run("Get", 1, func(pp store.PublicPosts) (int, error) { _, err := pp.Get(mid, now); return 1, err })
	run("Neighbours", 2, func(pp store.PublicPosts) (int, error) {
		o, n, err := pp.Neighbours(midPost, now)
		if o == nil || n == nil {
			return 0, err
		}
		return 2, err
	})
	run("ListFirst6", 6, list(store.PublicQuery{PersonaID: personaID, Now: now, Limit: 6}))
	run("ListDeep6", 6, list(store.PublicQuery{PersonaID: personaID, Now: now, After: listed[4000], Limit: 6}))
	run("ListDeep6Oldest", 6, list(store.PublicQuery{PersonaID: personaID, Now: now, After: listed[len(listed)-4000], Oldest: true, Limit: 6}))
	run("ListTagFirst6", 6, list(store.PublicQuery{PersonaID: personaID, Tag: "books", Now: now, Limit: 6}))
	run("ListTagDeep6", 6, list(store.PublicQuery{PersonaID: personaID, Tag: "books", Now: now, After: listed[4000], Limit: 6}))
	run("ByIDs20", -1, func(pp store.PublicPosts) (int, error) { ps, err := pp.ByIDs(ids, now); return len(ps), err })
	run("Search3plus", 10, search("ラーメン"))
	run("SearchCommon3plus", 10, search("SQLite"))
	run("Search2char", 10, search("京都"))
	run("Sitemap1000", 1000, func(pp store.PublicPosts) (int, error) { es, err := pp.Sitemap(now, 1000); return len(es), err })
	run("NextPublication", -1, func(pp store.PublicPosts) (int, error) { _, err := pp.NextPublication(now); return 0, err })
}
