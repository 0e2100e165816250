package blog_test

import (
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/post"
)

// verticalTheme is a vertical-rl theme of the set: the shipped
// "vertical", or the theme package's test theme before the designs land.
func verticalTheme(e *env) string {
	for _, name := range []string{"vertical", "tategaki"} {
		if e.loader.Themes.Exists(name) && e.loader.Themes.Info(name).Vertical {
			return name
		}
	}
	e.t.Fatal("no vertical theme in the set")
	return ""
}

// TestVerticalThemeConvertsForDisplayOnly: with a vertical theme, the
// page keeps Latin words as written (set sideways) and stands short digit
// groups upright — a pair as tate-chu-yoko, one digit full-width — while
// the API, the stored post, the feed and the metadata keep what the author
// wrote.
func TestVerticalThemeConvertsForDisplayOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "第3回 Go", Content: "縦書きで ABC を12月に書く"})
	e.clock.Advance(time.Second)
	e.config(func(c *murlog.PubConfig) { c.DesignTheme = verticalTheme(e) })
	p, err := e.loader.PostPage(ctx, "alice", seg(a))
	if err != nil {
		t.Fatal(err)
	}
	const tcy = `<span class="tcy">12</span>月`
	if !p.Theme.Vertical || !strings.Contains(p.Post.ContentHTML, "縦書きで ABC を"+tcy) || p.Post.Title != "第３回 Go" {
		t.Errorf("vertical post view: vertical=%v title %q content %q; want Latin as written, 12 upright", p.Theme.Vertical, p.Post.Title, p.Post.ContentHTML)
	}
	if r := e.get(e.postPath(a)); !strings.Contains(r.body, tcy) {
		t.Errorf("the vertical post page does not show the converted text")
	}
	// The API is theme-neutral (cacheable for anyone), and the sidebar it
	// hydrates is horizontal in every theme.
	if r := e.get("/api/pub/posts/" + a.ID); strings.Contains(r.body, "tcy") || !strings.Contains(r.body, "を12月に") {
		t.Errorf("the API post of a vertical site carries the display form: %.300s", r.body)
	}
	if r := e.get("/api/pub/personas/alice/posts"); strings.Contains(r.body, "第３回") {
		t.Errorf("the API list of a vertical site carries the display form: %.300s", r.body)
	}
	if p.Sidebar == nil || len(p.Sidebar.Recent) == 0 || p.Sidebar.Recent[0].Title != "第3回 Go" {
		t.Errorf("sidebar recent = %+v; want the stored title (the sidebar is horizontal)", p.Sidebar)
	}
	if p.Meta.Title != "" && strings.Contains(p.Meta.Title, "第３回") {
		t.Errorf("meta title %q is converted; want the stored text", p.Meta.Title)
	}
	stored, err := e.posts.Get(ctx, a.ID, murlog.AudienceOwner)
	if err != nil || stored.Title != "第3回 Go" || !strings.Contains(stored.Content, "を12月に") {
		t.Errorf("stored post changed: %q %q", stored.Title, stored.Content)
	}
	if r := e.get("/@alice/feed.atom"); strings.Contains(r.body, "tcy") || strings.Contains(r.body, "第３回") {
		t.Errorf("the feed carries the display form")
	}
}

// TestEveryThemeRenders: each shipped theme renders every page kind as
// itself (no fallback to default), with its own stylesheet.
func TestEveryThemeRenders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := e.note("a note for every theme #all")
	names := e.loader.Themes.Names()
	if len(names) < 2 {
		t.Fatalf("themes = %v; want the shipped set", names)
	}
	for _, name := range names {
		e.config(func(c *murlog.PubConfig) { c.DesignTheme = name })
		for _, path := range []string{"/", "/@alice?mode=plain", e.postPath(n), "/tags/all", "/search?q=note", "/@alice/" + murlog.NewID()} {
			p := e.get(path, "Accept", "text/html")
			if p.status != 200 && p.status != 404 || !strings.Contains(p.body, "/themes/") || !strings.Contains(p.body, "</html>") {
				t.Errorf("theme %s: GET %s = %d; want a complete page\n%.300s", name, path, p.status, p.body)
			}
		}
		if info := e.loader.Themes.Info(name); info.Name != name {
			t.Errorf("theme %s resolves to %s; want itself", name, info.Name)
		}
		pages := map[string]func() (*blog.Page, error){
			"site":   func() (*blog.Page, error) { return e.loader.SitePage(ctx, blog.SiteQuery{Mode: "plain"}) },
			"post":   func() (*blog.Page, error) { return e.loader.PostPage(ctx, "alice", n.ID) },
			"tag":    func() (*blog.Page, error) { return e.loader.TagPage(ctx, "all", "", false, "") },
			"search": func() (*blog.Page, error) { return e.loader.SearchPage(ctx, "", "note", "", "") },
			"error":  func() (*blog.Page, error) { return e.loader.ErrorPage(ctx, 404) },
		}
		for kind, load := range pages {
			p, err := load()
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := e.loader.Themes.Render(p.Theme.Name, p.Kind, p); !ok || p.Theme.Name != name && kind != "error" {
				t.Errorf("theme %s: the %s page fell back (rendered by %s)", name, kind, p.Theme.Name)
			}
		}
	}
}

// TestLongWordsMayBreak: a long address shown as a link's text, and a
// long word, get break opportunities on the page (any theme), for display
// only.
func TestLongWordsMayBreak(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const u = "https://example.com/a/very/long/path/that/must/not/overflow"
	n := e.note("read " + u + " and Donaudampfschifffahrtsgesellschaft today")
	r := e.get(e.postPath(n))
	if !strings.Contains(r.body, ">https://<wbr>example<wbr>.com/<wbr>a/<wbr>very/") || !strings.Contains(r.body, `href="`+u+`"`) ||
		!strings.Contains(r.body, "Donaudam<wbr>pfschiff<wbr>") {
		t.Errorf("the post page shows the address or the word without break opportunities:\n%.2000s", r.body)
	}
	stored, err := e.posts.Get(ctx, n.ID, murlog.AudienceOwner)
	if err != nil || strings.Contains(stored.Content, "<wbr>") {
		t.Errorf("stored post changed: %q, %v", stored.Content, err)
	}
}
