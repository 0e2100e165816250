package blog_test

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/post"
)

// noFollow fetches path without following a redirect.
func (e *env) noFollow(path string, hdr ...string) resp {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	c := *e.srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	return resp{res.StatusCode, res.Header, ""}
}

// wantRedirect checks that path answers 301 to the site's URL to.
func (e *env) wantRedirect(path, to string) {
	e.t.Helper()
	r := e.noFollow(path, "Accept", "text/html")
	if want := e.site.Base() + to; r.status != http.StatusMovedPermanently || r.header.Get("Location") != want {
		e.t.Errorf("GET %s = %d to %q; want 301 to %s", path, r.status, r.header.Get("Location"), want)
	}
	if r.header.Get("Cache-Control") != "no-cache" || r.header.Get("Vary") != "Accept" {
		e.t.Errorf("GET %s: Cache-Control %q, Vary %q; want no-cache (a slug may be renamed back) and Vary: Accept",
			path, r.header.Get("Cache-Control"), r.header.Get("Vary"))
	}
}

func (e *env) edit(in post.UpdateInput) *murlog.Post {
	e.t.Helper()
	p, err := e.posts.Update(ctx, in)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// TestArticleSlugAddresses: an article's page is at its slug address and
// names it as canonical; its id address and every old slug answer 301
// there; a Japanese slug works percent-encoded; an unknown slug is 404.
func TestArticleSlugAddresses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "Hello World", Content: "the text"})
	e.clock.Advance(time.Second)
	r := e.get("/@alice/hello-world", "Accept", "text/html")
	canonical := `<link rel="canonical" href="https://blog.example/@alice/hello-world">`
	if r.status != 200 || !strings.Contains(r.body, canonical) || !strings.Contains(r.body, "the text") {
		t.Errorf("GET /@alice/hello-world = %d; want the article with %s\n%.500s", r.status, canonical, r.body)
	}
	e.wantRedirect("/@alice/"+a.ID, "/@alice/hello-world")
	if alt := `<link rel="alternate" href="https://blog.example/@alice/` + a.ID + `" type="application/activity+json">`; !strings.Contains(r.body, alt) {
		t.Errorf("the article's page does not point ActivityPub clients to its id: want %s", alt)
	}

	e.edit(post.UpdateInput{ID: a.ID, Slug: ptr("greetings")})
	e.clock.Advance(time.Second)
	e.wantRedirect("/@alice/hello-world", "/@alice/greetings")
	e.wantRedirect("/@alice/"+a.ID, "/@alice/greetings")
	e.edit(post.UpdateInput{ID: a.ID, Slug: ptr("hi")})
	e.wantRedirect("/@alice/hello-world", "/@alice/hi")
	e.wantRedirect("/@alice/greetings", "/@alice/hi")
	if r := e.get("/@alice/hello-world", "Accept", "text/html"); r.status != 200 || !strings.Contains(r.body, "the text") {
		t.Errorf("following the old slug's redirects = %d; want the article", r.status)
	}

	j := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "日本語のタイトル", Content: "本文です"})
	path := "/@alice/" + url.PathEscape(j.Slug)
	if r := e.get(path, "Accept", "text/html"); r.status != 200 || !strings.Contains(r.body, "本文です") ||
		!strings.Contains(r.body, `href="https://blog.example`+path+`"`) {
		t.Errorf("GET %s = %d; want the article, its canonical URL percent-encoded\n%.400s", path, r.status, r.body)
	}
	for _, p := range []string{"/@alice/no-such-slug", "/@alice/" + strings.Repeat("a", murlog.MaxSlug+1), "/@bob/hi", "/@alice/HI"} {
		if r := e.noFollow(p, "Accept", "text/html"); r.status != 404 {
			t.Errorf("GET %s = %d; want 404", p, r.status)
		}
	}
	// A note has no slug: its id address is its page.
	n := e.note("just a note")
	if r := e.noFollow("/@alice/"+n.ID, "Accept", "text/html"); r.status != 200 {
		t.Errorf("GET a note's id address = %d; want 200", r.status)
	}
	// Lists, feeds and the sitemap link the slug address; a feed item's id
	// stays the stable one.
	for _, p := range []string{"/", "/@alice?mode=plain", "/sitemap.xml"} {
		if r := e.get(p, "Accept", "text/html"); !strings.Contains(r.body, "https://blog.example/@alice/hi") {
			t.Errorf("GET %s does not link /@alice/hi\n%.600s", p, r.body)
		}
	}
	var rss struct {
		Items []struct {
			Link string `xml:"link"`
			GUID string `xml:"guid"`
		} `xml:"channel>item"`
	}
	if err := xml.Unmarshal([]byte(e.get("/@alice/feed.rss").body), &rss); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range rss.Items {
		if it.Link == "https://blog.example/@alice/hi" {
			found = it.GUID == "https://blog.example/@alice/"+a.ID
		}
	}
	if !found {
		t.Errorf("RSS items %+v; want the article linked at its slug with its id address as guid", rss.Items)
	}
}

// TestPagesInTheMenuOnly: a page is in the menu of every page in every
// theme and in the sitemap, at its slug; it is absent from the site page,
// tag pages, feeds, search, the sidebar, the public API's lists and the
// neighbours of posts, and its own page has no neighbours and no date.
func TestPagesInTheMenuOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "First post", Content: "before #all pagetext"})
	e.clock.Advance(time.Second)
	about := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "About me", Content: "pagetext #all", Page: true})
	e.clock.Advance(time.Second)
	e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "Contact", Content: "write to me", Page: true, Slug: "contact"})
	e.clock.Advance(time.Second)
	last := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "Last post", Content: "after #all pagetext"})
	e.clock.Advance(time.Second)
	const aboutURL = "https://blog.example/@alice/about-me"
	menu := `<li class="nav-page"><a href="` + aboutURL + `">About me</a></li>`

	for _, name := range e.loader.Themes.Names() {
		e.config(func(c *murlog.PubConfig) { c.DesignTheme = name })
		for _, p := range []string{"/", "/@alice", e.postPath(first), "/tags/all", "/search?q=pagetext", "/@alice/search?q=x", "/@alice/" + murlog.NewID()} {
			r := e.get(p, "Accept", "text/html")
			if !strings.Contains(r.body, menu) || !strings.Contains(r.body, `href="https://blog.example/@alice/contact">Contact</a>`) {
				t.Errorf("theme %s: GET %s has no menu with the pages\n%.1500s", name, p, r.body)
			}
			if p != e.postPath(first) && strings.Contains(strings.ReplaceAll(r.body, menu, ""), "about-me") {
				t.Errorf("theme %s: GET %s shows the page outside the menu", name, p)
			}
		}
	}
	e.config(func(c *murlog.PubConfig) {})
	r := e.get("/@alice/about-me", "Accept", "text/html")
	if r.status != 200 || !strings.Contains(r.body, `<a href="`+aboutURL+`" aria-current="page">About me</a>`) {
		t.Errorf("the page's own page = %d; want it, marked current in the menu\n%.1500s", r.status, r.body)
	}
	if strings.Contains(r.body, "post-neighbours") || strings.Contains(r.body, "dt-published") {
		t.Errorf("the page's own page shows neighbours or a date")
	}
	if strings.Contains(r.body, `type="application/activity+json"`) {
		t.Errorf("the page's own page links an ActivityPub document, which a page does not have")
	}
	if r := e.get(e.postPath(last), "Accept", "text/html"); !strings.Contains(r.body, `neighbour-older"><a href="https://blog.example/@alice/first-post"`) {
		t.Errorf("the last post's older neighbour is not the first post (pages are skipped)")
	}
	for _, p := range []string{"/@alice/feed.rss", "/@alice/feed.atom", "/tags/all/feed.rss", "/api/pub/personas/alice/posts",
		"/api/pub/posts/by-ids?ids=" + about.ID + "," + first.ID} {
		if r := e.get(p); r.status != 200 || strings.Contains(r.body, "about-me") || strings.Contains(r.body, about.ID) {
			t.Errorf("GET %s = %d lists the page\n%.500s", p, r.status, r.body)
		}
	}
	if r := e.get("/api/pub/posts/" + about.ID); r.status != 200 || !strings.Contains(r.body, aboutURL) || strings.Contains(r.body, "older_id") {
		t.Errorf("the page in the public API = %d %.300s; want it, without neighbours", r.status, r.body)
	}
	if r := e.get("/sitemap.xml"); !strings.Contains(r.body, "<loc>"+aboutURL+"</loc>") {
		t.Errorf("the sitemap does not list the page\n%.800s", r.body)
	}
	p, err := e.loader.PostPage(ctx, "alice", seg(last))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range p.Sidebar.Recent {
		if l.ID == about.ID {
			t.Errorf("the sidebar lists the page")
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestSlugPageIsKept: a resident server keeps the article it found by
// slug, so its page reads no row in the steady state, until the write's
// Invalidate.
func TestSlugPageIsKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.loader.SiteTTL = time.Hour
	a := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "Hello", Content: "kept text"})
	if r := e.noFollow("/@alice/hello", "Accept", "text/html"); r.status != 200 {
		t.Fatalf("GET /@alice/hello = %d", r.status)
	}
	e.edit(post.UpdateInput{ID: a.ID, Slug: ptr("renamed")}) // behind the cache's back: no Invalidate
	if r := e.noFollow("/@alice/hello", "Accept", "text/html"); r.status != 200 {
		t.Errorf("GET /@alice/hello before Invalidate = %d; want the kept page (200)", r.status)
	}
	e.loader.Invalidate()
	e.wantRedirect("/@alice/hello", "/@alice/renamed")
}
