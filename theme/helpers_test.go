package theme_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/blog/meta"
	"github.com/murlog/murlog/theme"
)

// countFS records every file opened through it (fs.ReadFile and
// fs.ReadDir open; fs.Stat on os.DirFS does not).
type countFS struct {
	fsys   fs.FS
	mu     sync.Mutex
	opened map[string]int
}

func newCountFS(fsys fs.FS) *countFS { return &countFS{fsys: fsys, opened: map[string]int{}} }

func (c *countFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opened[name]++
	c.mu.Unlock()
	return c.fsys.Open(name)
}

// Stat keeps existence checks from counting as reads.
func (c *countFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.fsys, name) }

func (c *countFS) count(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opened[name]
}

func (c *countFS) names() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for n := range c.opened {
		out = append(out, n)
	}
	return out
}

// logBuf is a slog logger writing into a buffer, safe for concurrent use.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuf) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

func testFS() fs.FS { return os.DirFS("testdata/themes") }

func newSet(t testing.TB, o theme.Options) (*theme.Set, *logBuf) {
	t.Helper()
	lb := &logBuf{}
	if o.Log == nil {
		o.Log = lb.logger()
	}
	return theme.NewSet(testFS(), o), lb
}

// postPage is a realistic post page context, theme name filled from Info.
func postPage(in theme.Info) *blog.Page {
	content := strings.Repeat(`<p>今日は <a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener">リンク</a> と <code>go test ./...</code> の話。Some English text, too.</p>`+"\n", 12)
	recent := make([]blog.PostLink, 10)
	for i := range recent {
		recent[i] = blog.PostLink{ID: fmt.Sprintf("01J%03d", i), URL: fmt.Sprintf("https://blog.example/@alice/01J%03d", i),
			Title: fmt.Sprintf("最近の投稿 %d", i), Published: "2026-11-30T10:00:00Z", PublishedDisplay: "2026年11月30日"}
	}
	tags := []blog.TagLink{{Name: "go", URL: "https://blog.example/tags/go"}, {Name: "日記", URL: "https://blog.example/tags/%E6%97%A5%E8%A8%98"}}
	post := &blog.PostView{ID: "01JABC", URL: "https://blog.example/@alice/01JABC", Kind: "Article", IsArticle: true,
		Title: "Go と <raymond> で & テーマ", ListTitle: "Go と raymond でテーマ", ContentHTML: content,
		Description: "今日は リンク と go test の話。", Language: "ja", Published: "2026-12-01T09:00:00Z",
		PublishedDisplay: "2026年12月1日", Author: "Alice", AuthorURL: "https://blog.example/@alice", Tags: tags}
	words := blog.Strings{}
	for _, k := range strings.Fields("recent_posts popular_posts older newer next_page first_page newest_first oldest_first rich plain kwic search search_placeholder search_results tags profile share posts followers following powered_by feed no_posts no_hits content_warning show_more home page_not_found gone published updated") {
		words[k] = "«" + k + "»"
	}
	return &blog.Page{
		Kind: "post", IsPost: true, Lang: "ja", Dir: "ltr",
		Theme: blog.NewThemeView(in),
		Site: blog.SiteView{Name: "Alice's <blog>", Subtitle: "日々のこと", URL: "https://blog.example/@alice", Username: "alice",
			ShowSiteName: true, ServiceName: "murlog", ServiceURL: "https://blog.example/", FeedRSS: "https://blog.example/@alice/feed.rss"},
		Meta: meta.Meta{Title: "Go と raymond でテーマ | Alice", Description: "今日は リンク と go test の話。",
			Canonical: post.URL, Tags: []meta.Tag{{Property: "og:title", Content: "Go と raymond"}, {Property: "og:type", Content: "article"},
				{Name: "twitter:card", Content: "summary"}, {Property: "og:url", Content: post.URL}},
			Links:  []meta.Link{{Rel: "alternate", Href: "https://blog.example/@alice/feed.atom", Type: "application/atom+xml", Title: "Alice"}},
			JSONLD: `{"@context":"https://schema.org","@type":"BlogPosting","headline":"Go \u003craymond\u003e"}`},
		T:     words,
		Post:  post,
		Older: &recent[1], Newer: &recent[0],
		Share: &blog.Share{URL: post.URL, Title: post.Title, Buttons: []blog.ShareButton{
			{ID: "x", IsX: true, Label: "X", Href: "https://twitter.com/share?url=x"},
			{ID: "line", IsLINE: true, Label: "LINE", Href: "https://social-plugins.line.me/lineit/share?url=x"}}},
		Sidebar:     &blog.Sidebar{Recent: recent, RecentCount: 10, PopularCount: 5},
		Hydrate:     blog.Hydrate{Username: "alice", PostID: "01JABC", RecentCount: 10, PostsAPI: "/api/pub/personas/alice/posts", Lang: "ja"},
		HydrateJSON: `{"username":"alice","post_id":"01JABC","recent_count":10}`,
	}
}
