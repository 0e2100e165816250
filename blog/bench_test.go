package blog_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/markup"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/storetest"
	"github.com/murlog/murlog/theme"
)

// benchBlog is a file database of n posts of one persona (notes and
// articles of about 1,000 bytes, two tags each) and the blog over it.
func benchBlog(b *testing.B, n int) (*blog.Loader, []string) {
	b.Helper()
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), sqlite.FileName), sqlite.Options{Now: clock, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	words := strings.Fields("今日は 東京で ご飯を 食べた。 雨が 降っている。 the quick brown fox jumps over the lazy dog servers and federation")
	rng := rand.New(rand.NewPCG(1, 2))
	per := storetest.NewPersona("alice", true, now)
	var ids []string
	err = db.Update(ctx, func(tx store.Tx) error {
		if err := tx.Personas().Create(per); err != nil {
			return err
		}
		for i := range n {
			pub := now.Add(-time.Duration(n-i) * time.Hour)
			p := storetest.NewPost(per.ID, &pub, murlog.VisibilityPublic, now)
			var sb strings.Builder
			for sb.Len() < 1000 {
				sb.WriteString(words[rng.IntN(len(words))])
				sb.WriteByte(' ')
			}
			p.Source, p.Content = sb.String(), "<p>"+sb.String()+"</p>"
			p.Excerpt = markup.PlainTextPrefix(p.Content, murlog.ExcerptLen) // as the post service stores it
			if i%3 == 0 {
				p.Kind, p.Title = murlog.KindArticle, fmt.Sprintf("Article %d", i)
			}
			p.Tags = []string{"go", "diary"}
			if err := tx.Posts().Create(p); err != nil {
				return err
			}
			ids = append(ids, p.ID)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return &blog.Loader{Site: murlog.Site{Scheme: "https", Domain: "blog.example"}, Store: db,
		Themes: theme.NewSet(shippedThemes(b), theme.Options{Log: quiet}), Log: quiet, Now: clock, TextCache: 2048, SiteTTL: time.Minute}, ids
}

// BenchmarkBlog measures the figures on a 5,000-post file DB:
//
//	go test -run '^$' -bench Blog -benchmem ./blog/
func BenchmarkBlog(b *testing.B) {
	l, ids := benchBlog(b, 5000)
	id := ids[len(ids)/2]
	b.Run("LoadPostPage", func(b *testing.B) {
		for b.Loop() {
			if _, err := l.PostPage(ctx, "alice", id); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("LoadSitePagePlain", func(b *testing.B) {
		for b.Loop() {
			if _, err := l.SitePage(ctx, blog.SiteQuery{Mode: blog.ModePlain}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The baseline of the loads: one read transaction reading one post by
	// its key (what a page cannot do with less), to compare days.
	b.Run("BaselineReadOnePost", func(b *testing.B) {
		for b.Loop() {
			err := l.Store.View(ctx, func(tx store.Tx) error {
				_, err := tx.PublicPosts().Get(id, l.Now())
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	// The same loads with nothing kept between pages (CGI, or every
	// page's first visit): persona, settings, lists and texts all read.
	cold := &blog.Loader{Site: l.Site, Store: l.Store, Themes: l.Themes, Log: quiet, Now: l.Now}
	b.Run("LoadPostPageCold", func(b *testing.B) {
		for b.Loop() {
			if _, err := cold.PostPage(ctx, "alice", id); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("LoadSitePagePlainCold", func(b *testing.B) {
		for b.Loop() {
			if _, err := cold.SitePage(ctx, blog.SiteQuery{Mode: blog.ModePlain}); err != nil {
				b.Fatal(err)
			}
		}
	})
	p, err := l.PostPage(ctx, "alice", id)
	if err != nil {
		b.Fatal(err)
	}
	blog.RenderPage(l.Themes, p) // parse the templates once
	b.Run("RenderPostPage", func(b *testing.B) {
		for b.Loop() {
			blog.RenderPage(l.Themes, p)
		}
	})
	h := blog.NewHandler(l)
	for _, c := range []struct{ name, path string }{{"ServePostPage", "/@alice/" + id}, {"ServeSitePagePlain", "/?mode=plain"}} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatalf("GET %s = %d", c.path, w.Code)
				}
			}
		})
	}
}
