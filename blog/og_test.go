package blog_test

import (
	"bytes"
	"image/png"
	"io/fs"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/theme"
	xhtml "golang.org/x/net/html"
)

// headTags returns a page's <meta property|name> contents by key.
func headTags(t *testing.T, page string) map[string]string {
	t.Helper()
	z := xhtml.NewTokenizer(strings.NewReader(page))
	out := map[string]string{}
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return out
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			tok := z.Token()
			if tok.Data != "meta" {
				continue
			}
			var key, content string
			for _, a := range tok.Attr {
				switch a.Key {
				case "property", "name":
					key = a.Val
				case "content":
					content = a.Val
				}
			}
			if key != "" {
				out[key] = content
			}
		}
	}
}

func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// TestEveryPageHasOGImage: every public page (post, site, tag, search,
// not found, gone) has an absolute og:image and an og:description: the
// persona's avatar when there is one, else the theme's default social
// image, a 1200×630 PNG served under its hashed name (inherited by a
// theme that extends default, replaced by one that ships its own); a
// site page whose persona wrote no texts says "Posts by <name>"; the
// card follows the image.
func TestEveryPageHasOGImage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := e.note("a note about #tea")
	gone := e.note("soon deleted")
	if err := e.posts.Delete(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	e.update(func(tx store.Tx) error {
		e.alice.Summary = "" // no texts at all: the default description
		return tx.Personas().Update(e.alice)
	})
	pages := map[string]string{"post": e.postPath(n), "site": "/", "persona site": "/@alice", "tag": "/tags/tea",
		"search": "/search?q=note", "not found": "/nowhere", "gone": e.postPath(gone)}
	check := func(label, wantImage, wantCard string) string {
		t.Helper()
		var image string
		for kind, path := range pages {
			r := e.get(path, "Accept", "text/html")
			m := headTags(t, r.body)
			if !absoluteURL(m["og:image"]) || m["twitter:image"] != m["og:image"] || m["og:description"] == "" {
				t.Errorf("%s: %s page %s: og:image %q, twitter:image %q, og:description %q; want an absolute image and a description",
					label, kind, path, m["og:image"], m["twitter:image"], m["og:description"])
			}
			if wantImage != "" && m["og:image"] != wantImage {
				t.Errorf("%s: %s page og:image %q; want %q", label, kind, m["og:image"], wantImage)
			}
			if m["twitter:card"] != wantCard {
				t.Errorf("%s: %s page twitter:card %q; want %q", label, kind, m["twitter:card"], wantCard)
			}
			if kind == "site" && m["og:description"] != "Posts by alice" {
				t.Errorf("%s: site page og:description %q; want %q", label, m["og:description"], "Posts by alice")
			}
			if u := m["og:url"]; u != "" && !absoluteURL(u) {
				t.Errorf("%s: %s page og:url %q is not absolute", label, kind, u)
			}
			if image == "" {
				image = m["og:image"]
			} else if m["og:image"] != image {
				t.Errorf("%s: %s page og:image %q; want the same image as the others, %q", label, kind, m["og:image"], image)
			}
		}
		return image
	}
	image := check("default theme", "", "summary_large_image")
	if !strings.HasPrefix(image, "https://blog.example/themes/default/og-image.") {
		t.Fatalf("default og:image = %q; want the default theme's hashed og-image.png", image)
	}
	r := e.get(image)
	if r.status != 200 || r.header.Get("Content-Type") != "image/png" {
		t.Fatalf("GET %s = %d %s; want the PNG", image, r.status, r.header.Get("Content-Type"))
	}
	cfg, err := png.DecodeConfig(strings.NewReader(r.body))
	if err != nil || cfg.Width != 1200 || cfg.Height != 630 {
		t.Errorf("the default social image is %dx%d, %v; want a 1200×630 PNG", cfg.Width, cfg.Height, err)
	}
	if _, err := png.Decode(strings.NewReader(r.body)); err != nil {
		t.Errorf("the default social image does not decode: %v", err)
	}
	e.config(func(c *murlog.PubConfig) { c.DesignTheme = "dark" })
	check("dark theme (extends default)", image, "summary_large_image")

	// An article's own image comes first; an avatar before the default.
	e.config(func(c *murlog.PubConfig) {})
	a := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "Pictures", Content: "![a cat](https://img.example/cat.png)\n\nA cat."})
	if m := headTags(t, e.get(e.postPath(a)).body); m["og:image"] != "https://img.example/cat.png" || m["twitter:card"] != "summary_large_image" {
		t.Errorf("article with an image: og:image %q, card %q; want its image, large", m["og:image"], m["twitter:card"])
	}
	e.update(func(tx store.Tx) error {
		e.alice.AvatarPath = "avatars/alice.png"
		return tx.Personas().Update(e.alice)
	})
	delete(pages, "gone") // the error pages say the same; keep the run short
	check("avatar", "https://blog.example/media/avatars/alice.png", "summary")
}

// TestThemeShipsItsOwnSocialImage: a theme that lists its own
// og-image.png in its files is the one its pages show.
func TestThemeShipsItsOwnSocialImage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.note("hello")
	mapfs := fstest.MapFS{}
	shipped := shippedThemes(t)
	fs.WalkDir(shipped, "default", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(shipped, p)
			mapfs[p] = &fstest.MapFile{Data: b}
		}
		return nil
	})
	own, _ := fs.ReadFile(shipped, "default/assets/og-image.png")
	own = append(bytes.Clone(own), 0) // other bytes, another hash (PNG readers stop at IEND)
	mapfs["mine/theme.json"] = &fstest.MapFile{Data: []byte(`{"name":"mine","version":"1","extends":"default","templates":[],"partials":[],
		"assets":{"css":["style.css"],"js":[],"files":["analytics.js","og-image.png"]},"client_partials":[]}`)}
	mapfs["mine/assets/og-image.png"] = &fstest.MapFile{Data: own}
	l := &blog.Loader{Site: e.site, Store: e.db, Themes: theme.NewSet(mapfs, theme.Options{Log: quiet}), Log: quiet, Now: e.clock.Now}
	e.srv = httptest.NewServer(blog.NewHandler(l))
	t.Cleanup(e.srv.Close)
	e.config(func(c *murlog.PubConfig) { c.DesignTheme = "mine" })
	m := headTags(t, e.get("/").body)
	if !strings.HasPrefix(m["og:image"], "https://blog.example/themes/mine/og-image.") {
		t.Fatalf("og:image of a theme with its own image = %q; want /themes/mine/og-image.<hash>.png", m["og:image"])
	}
	if r := e.get(m["og:image"]); r.status != 200 || r.body != string(own) {
		t.Errorf("GET %s = %d; want the theme's own image", m["og:image"], r.status)
	}
}
