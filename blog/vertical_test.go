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
// page and the API show Latin text full-width while the stored post, the
// feed and the metadata keep what the author wrote.
func TestVerticalThemeConvertsForDisplayOnly(t *testing.T) {
	e := newEnv(t)
	a := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "Go 1", Content: "縦書きで ABC を書く"})
	e.clock.Advance(time.Second)
	e.config(func(c *murlog.PubConfig) { c.DesignTheme = verticalTheme(e) })
	p, err := e.loader.PostPage(ctx, "alice", seg(a))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Theme.Vertical || !strings.Contains(p.Post.ContentHTML, "ＡＢＣ") || p.Post.Title != "Ｇｏ\u3000１" {
		t.Errorf("vertical post view: vertical=%v title %q content %q; want full-width text", p.Theme.Vertical, p.Post.Title, p.Post.ContentHTML)
	}
	if r := e.get(e.postPath(a)); !strings.Contains(r.body, "ＡＢＣ") {
		t.Errorf("the vertical post page does not show the converted text")
	}
	// The API is theme-neutral (cacheable for anyone), and the sidebar it
	// hydrates is horizontal in every theme.
	if r := e.get("/api/pub/posts/" + a.ID); strings.Contains(r.body, "ＡＢＣ") || !strings.Contains(r.body, "ABC") {
		t.Errorf("the API post of a vertical site carries the display form: %.300s", r.body)
	}
	if r := e.get("/api/pub/personas/alice/posts"); strings.Contains(r.body, "Ｇｏ") {
		t.Errorf("the API list of a vertical site carries the display form: %.300s", r.body)
	}
	if p.Sidebar == nil || len(p.Sidebar.Recent) == 0 || p.Sidebar.Recent[0].Title != "Go 1" {
		t.Errorf("sidebar recent = %+v; want the stored title (the sidebar is horizontal)", p.Sidebar)
	}
	if p.Meta.Title != "" && strings.Contains(p.Meta.Title, "Ｇｏ") {
		t.Errorf("meta title %q is converted; want the stored text", p.Meta.Title)
	}
	stored, err := e.posts.Get(ctx, a.ID, murlog.AudienceOwner)
	if err != nil || stored.Title != "Go 1" || !strings.Contains(stored.Content, "ABC") {
		t.Errorf("stored post changed: %q %q", stored.Title, stored.Content)
	}
	if r := e.get("/@alice/feed.atom"); strings.Contains(r.body, "ＡＢＣ") {
		t.Errorf("the feed carries the display form")
	}
}

// TestEveryThemeRenders: each shipped theme renders every page kind as
// itself (no fallback to default), with its own stylesheet.
func TestEveryThemeRenders(t *testing.T) {
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
