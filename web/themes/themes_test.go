package themes_test

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/theme"
)

// The shipped themes render every page through the real theme loader
// (theme.Set on this folder) without a fallback, escape user text, and
// produce HTML that keeps the page rules: unique ids, labelled inputs,
// alt on images, no inline style, script or handler (the CSP forbids
// them). With VNU_JAR set to a vnu.jar the pages also go through the Nu
// HTML Checker.

var shipped = []string{"default", "newspaper", "whiteboard", "dark", "vertical"}

const escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"

func TestThemesRender(t *testing.T) {
	var logs bytes.Buffer
	set := theme.NewSet(os.DirFS("."), theme.Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	names := set.Names()
	for _, name := range shipped {
		if !set.Exists(name) {
			t.Errorf("theme %s does not exist (names: %v)", name, names)
		}
	}
	out := t.TempDir()
	if d := os.Getenv("THEMES_OUT"); d != "" {
		out = d // keep the pages (screenshots, a manual look)
	}
	for _, name := range shipped {
		info := set.Info(name)
		if info.Name != name {
			t.Fatalf("Info(%s) fell back to %s: %s", name, info.Name, logs.String())
		}
		if info.Vertical != (name == "vertical") {
			t.Errorf("%s: Vertical = %v", name, info.Vertical)
		}
		if len(info.Stylesheets) == 0 || len(info.Scripts) != 3 {
			t.Fatalf("%s: assets %v %v", name, info.Stylesheets, info.Scripts)
		}
		if name != "default" {
			// Inherited assets keep default's URL: one cached copy.
			if !strings.HasPrefix(info.Stylesheets[0], "/themes/default/style.") ||
				len(info.Stylesheets) != 2 || !strings.HasPrefix(info.Stylesheets[1], "/themes/"+name+"/"+name+".") {
				t.Errorf("%s: stylesheets %v", name, info.Stylesheets)
			}
		}
		for i, base := range []string{"handlebars.runtime.min.", "templates.", "hydrate."} {
			if !strings.HasPrefix(info.Scripts[i], "/themes/default/"+base) {
				t.Errorf("%s: script %d is %s", name, i, info.Scripts[i])
			}
		}
		if u := set.AssetURL(name, "analytics.js"); !strings.HasPrefix(u, "/themes/default/analytics.") {
			t.Errorf("%s: analytics.js at %q", name, u)
		}
		tv := blog.NewThemeView(info)
		ps := pages(tv)
		files := make([]string, 0, len(ps))
		for file := range ps {
			files = append(files, file)
		}
		sort.Strings(files)
		for _, file := range files {
			tmpl, _, _ := strings.Cut(file, "-")
			b, ok := set.Render(name, tmpl, ps[file])
			if !ok {
				t.Fatalf("%s %s: fallback: %s", name, file, logs.String())
			}
			path := filepath.Join(out, name+"-"+file+".html")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			checkPage(t, name+" "+file, tv, ps[file], string(b))
		}
	}
	if logs.Len() > 0 {
		t.Errorf("the loader logged: %s", logs.String())
	}
	t.Logf("pages in %s", out)
	vnu(t, out)
}

// checkPage checks what every page must hold and what its kind adds.
func checkPage(t *testing.T, what string, tv blog.ThemeView, p *blog.Page, s string) {
	t.Helper()
	must := func(sub string) {
		t.Helper()
		if !strings.Contains(s, sub) {
			t.Errorf("%s: missing %q", what, sub)
		}
	}
	mustNot := func(sub string) {
		t.Helper()
		if strings.Contains(s, sub) {
			t.Errorf("%s: unexpected %q", what, sub)
		}
	}
	must("<!DOCTYPE html>")
	must(`<html lang="en" dir="ltr">`)
	must(`<meta charset="utf-8">`)
	must(`<meta name="viewport"`)
	must("<title>")
	// Every hashed asset carries the SRI value of its bytes (the theme
	// package's tests check the values against what is served).
	for _, css := range tv.CSS {
		if !strings.HasPrefix(css.Integrity, "sha256-") {
			t.Errorf("%s: %s has integrity %q; want sha256-…", what, css.URL, css.Integrity)
		}
		must(`<link rel="stylesheet" href="` + css.URL + `" integrity="` + css.Integrity + `">`)
	}
	for _, js := range tv.JS {
		if !strings.HasPrefix(js.Integrity, "sha256-") {
			t.Errorf("%s: %s has integrity %q; want sha256-…", what, js.URL, js.Integrity)
		}
		must(`<script defer src="` + js.URL + `" integrity="` + js.Integrity + `"></script>`)
	}
	must(`<link rel="canonical" href="` + p.Meta.Canonical + `">`)
	must(`<meta name="robots" content="` + p.Meta.Robots + `">`)
	for _, m := range p.Meta.Tags {
		if m.Name != "" {
			must(`<meta name="` + escapeAttr(m.Name) + `" content="` + escapeAttr(m.Content) + `">`)
		} else {
			must(`<meta property="` + escapeAttr(m.Property) + `" content="` + escapeAttr(m.Content) + `">`)
		}
	}
	for _, l := range p.Meta.Links {
		must(`<link rel="` + escapeAttr(l.Rel) + `" href="` + escapeAttr(l.Href) + `"`)
	}
	must(`<link rel="me" href="https://example.org/alice">`)
	must(`property="og:title" content="`)
	if p.Meta.JSONLD != "" {
		must(`<script type="application/ld+json">` + p.Meta.JSONLD + `</script>`)
	}
	if p.Meta.GA != nil {
		must(`<script async src="https://www.googletagmanager.com/gtag/js?id=G-TEST123"></script>`)
	} else {
		mustNot("googletagmanager")
	}
	if p.HydrateJSON != "" {
		must(`<script type="application/json" id="murlog-data">` + p.HydrateJSON + `</script>`)
	}
	must(`<div class="service-bar"><a href="https://blog.example/">murlog</a></div>`)
	must("Alice&apos;s " + escaped)
	mustNot("<script>alert(1)")
	must("Powered by")
	must(`href="https://blog.example/@alice/feed.atom"`)

	switch p.Kind {
	case "site":
		must(`<h1 class="site-name">`)
		must(`alt="Alice ` + escaped + `"`)
		must(`<a href="https://example.org/alice" rel="me">example.org/alice</a>`)
		must(`aria-current="true"`)
		must(`rel="next"`)
		if p.Mode.IsPlain {
			must(`<li class="post-plain">`)
			must(`Morning walk by the river &amp; ` + escaped)
			mustNot(`<article`)
		} else {
			must(`<h2 class="post-title p-name"><a href="https://blog.example/@alice/01JART">` + escaped + ` Notes on tea</a></h2>`)
			must(`<details class="content-warning">`)
			must(`<summary>food</summary>`)
			must(`<img src="https://blog.example/media/tea.jpg" alt="A cup of tea"`)
			must(`<time class="dt-published" datetime="2026-11-29T20:00:00Z">Nov 29, 2026</time>`)
		}
		mustNot(`class="share`)
	case "post":
		if p.Post.IsArticle {
			must(`<h1 class="post-title p-name">` + escaped + ` Notes on tea</h1>`)
			must(`<section class="comments" data-murlog-slot="comments" hidden></section>`)
			must(`rel="tag">#日本茶</a>`)
		} else {
			mustNot(`data-murlog-slot="comments"`)
		}
		must(`<ul class="recent-list" data-murlog-hydrate="recent"><li><a href="https://blog.example/@alice/01JNOTE">Morning walk ` + escaped + `</a>`)
		must(`<section class="sidebar-section sidebar-popular" data-murlog-slot="popular" hidden></section>`)
		must(`href="https://blog.example/@alice/01JOLD"`)
		checkShare(t, what, tv, p, s)
	case "tag":
		must(`<h1>#tea` + escaped + `</h1>`)
		must(`href="https://blog.example/tags/tea/feed.rss"`)
		must(`<li class="post-plain">`)
	case "search":
		must(`action="https://blog.example/@alice/search" method="get"`)
		must(`<label for="search-q">`)
		must(`value="` + escapeAttr(p.Search.Query) + `"`)
		switch {
		case p.Search.Refused:
			must(`<p class="search-notice search-refused" role="alert">This search is too long: use at most 200 characters.</p>`)
			mustNot(`class="search-results"`)
		case p.Search.NoHits:
			must("Nothing found.")
			mustNot(`class="search-notice`)
		default:
			must(`<li>…Green <mark>tea</mark> from Uji…</li>`)
			must(`<li>…a &lt;b&gt;cup&lt;/b&gt; of <mark>tea</mark>…</li>`)
			mustNot("……")
			mustNot(`class="search-notice`)
		}
	case "error":
		must("<h1>" + p.Error.Title + "</h1>")
		must(p.Error.Message)
		must(`<a href="https://blog.example/@alice">Home</a>`)
		mustNot(`<aside`)
	}
	checkMarkup(t, what, s)
}

// checkShare: the seed's widgets in horizontal themes, compact links in
// the vertical one; in both the fixed order X, Facebook, LINE, Hatena.
func checkShare(t *testing.T, what string, tv blog.ThemeView, p *blog.Page, s string) {
	t.Helper()
	if p.Share == nil {
		if strings.Contains(s, `class="share`) {
			t.Errorf("%s: a share area without share buttons", what)
		}
		return
	}
	order := []string{`class="share-x"`, `class="share-facebook"`, `class="share-line"`, `class="share-hatena"`}
	last := -1
	for _, o := range order {
		i := strings.Index(s, o)
		if i < last {
			t.Errorf("%s: share button %s missing or out of order", what, o)
		}
		last = i
	}
	if tv.Vertical {
		for _, c := range []string{"share-icon-x", "share-icon-facebook", "share-icon-line", "share-icon-hatena", `class="hatena-star"`} {
			if !strings.Contains(s, c) {
				t.Errorf("%s: missing %s", what, c)
			}
		}
		for _, c := range []string{"twitter-share-button", "<iframe", "hatena-bookmark-button"} {
			if strings.Contains(s, c) {
				t.Errorf("%s: vertical share has the widget %s", what, c)
			}
		}
		return
	}
	for _, c := range []string{
		`<a class="twitter-share-button" href="https://twitter.com/share?url=https%3A%2F%2Fblog.example%2F%40alice%2F01JART&amp;text=Notes%20on%20tea" data-url="https://blog.example/@alice/01JART" data-text="` + escaped + ` Notes on tea"`,
		`<iframe class="share-facebook-frame" src="https://www.facebook.com/plugins/share_button.php?href=https%3A%2F%2Fblog.example%2F%40alice%2F01JART&amp;layout=button_count&amp;size=small&amp;width=102&amp;height=20" width="102" height="20" title="Share on Facebook" loading="lazy"></iframe>`,
		`href="https://social-plugins.line.me/lineit/share?url=https%3A%2F%2Fblog.example%2F%40alice%2F01JART&amp;text=Notes%20on%20tea"`,
		`class="hatena-bookmark-button"`,
		`data-hatena-bookmark-url="https://blog.example/@alice/01JART"`,
		`<span class="hatena-star" data-hatena-star-url="https://blog.example/@alice/01JART">`,
	} {
		if !strings.Contains(s, c) {
			t.Errorf("%s: missing %s", what, c)
		}
	}
}

func escapeAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}

// checkMarkup parses the page and checks the rules the CSP and the Nu
// checker care about.
func checkMarkup(t *testing.T, what, s string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	ids := map[string]int{}
	var labels, labelled []string
	var inputs []string
	landmarks := map[string]int{}
	var walk func(n *html.Node, inA bool)
	walk = func(n *html.Node, inA bool) {
		if n.Type == html.ElementNode {
			attrs := map[string]string{}
			for _, a := range n.Attr {
				attrs[a.Key] = a.Val
				if a.Key == "style" || strings.HasPrefix(a.Key, "on") {
					t.Errorf("%s: <%s %s=…> (inline style or handler)", what, n.Data, a.Key)
				}
			}
			if id, ok := attrs["id"]; ok {
				ids[id]++
			}
			switch n.Data {
			case "script":
				typ := attrs["type"]
				if _, src := attrs["src"]; !src && typ != "application/json" && typ != "application/ld+json" {
					t.Errorf("%s: an inline script", what)
				}
			case "img":
				if _, ok := attrs["alt"]; !ok {
					t.Errorf("%s: <img src=%q> without alt", what, attrs["src"])
				}
			case "label":
				labels = append(labels, attrs["for"])
			case "input", "select", "textarea":
				if attrs["type"] != "hidden" {
					inputs = append(inputs, attrs["id"])
				}
			case "a":
				if inA {
					t.Errorf("%s: a link inside a link", what)
				}
				if _, ok := attrs["href"]; !ok {
					t.Errorf("%s: <a> without href", what)
				}
				inA = true
			case "header", "main", "aside", "footer", "nav":
				landmarks[n.Data]++
				if n.Data == "nav" && attrs["aria-label"] == "" {
					t.Errorf("%s: <nav> without aria-label", what)
				}
			case "h1", "h2", "h3", "h4", "h5", "h6":
				if strings.TrimSpace(text(n)) == "" {
					t.Errorf("%s: empty <%s>", what, n.Data)
				}
			}
			if v, ok := attrs["aria-labelledby"]; ok {
				labelled = append(labelled, v)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inA)
		}
	}
	walk(doc, false)
	for id, n := range ids {
		if n > 1 {
			t.Errorf("%s: id %q used %d times", what, id, n)
		}
	}
	for _, id := range append(labels, labelled...) {
		if ids[id] == 0 {
			t.Errorf("%s: label or aria-labelledby names missing id %q", what, id)
		}
	}
	for _, id := range inputs {
		found := false
		for _, l := range labels {
			found = found || (id != "" && l == id)
		}
		if !found {
			t.Errorf("%s: input %q without a label", what, id)
		}
	}
	if landmarks["main"] != 1 || landmarks["footer"] == 0 || landmarks["header"] == 0 {
		t.Errorf("%s: landmarks %v", what, landmarks)
	}
}

func text(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(text(c))
	}
	return b.String()
}

// vnu runs the Nu HTML Checker on the pages when VNU_JAR names its jar
// (npm vnu-jar); errors fail the test, warnings do not.
func vnu(t *testing.T, dir string) {
	jar := os.Getenv("VNU_JAR")
	if jar == "" {
		t.Log("VNU_JAR not set: the Nu HTML Checker is skipped")
		return
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	cmd := exec.Command("java", append([]string{"-jar", jar, "--errors-only"}, files...)...)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("Nu HTML Checker: %v\n%s", err, msg)
	}
}

// BenchmarkRender renders the default theme's post page and a site page
// (rich, two posts) from a loaded model: the render half of the issue's
// post-page budget.
func BenchmarkRender(b *testing.B) {
	set := theme.NewSet(os.DirFS("."), theme.Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	info := set.Info("default")
	ps := pages(blog.NewThemeView(info))
	for _, file := range []string{"post", "site"} {
		b.Run(file, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, ok := set.Render("default", file, ps[file]); !ok {
					b.Fatal("fallback")
				}
			}
		})
	}
}

// BenchmarkColdRender is the CGI case: a new one-shot Set per page (as
// each CGI process has), reading theme.json, hashing the assets, parsing
// and compiling only the templates the page uses, then rendering. The
// -cached runs decode the templates from a parse cache directory filled
// before the timing, as every CGI request after the first does.
func BenchmarkColdRender(b *testing.B) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	info := theme.NewSet(os.DirFS("."), theme.Options{Log: quiet}).Info("default")
	ps := pages(blog.NewThemeView(info))
	cache := theme.DirCache(b.TempDir())
	for _, c := range []struct {
		file  string
		cache theme.ParseCache
	}{{"post", nil}, {"site", nil}, {"post-cached", cache}, {"site-cached", cache}} {
		file, _, _ := strings.Cut(c.file, "-")
		if c.cache != nil {
			theme.NewSet(os.DirFS("."), theme.Options{Log: quiet, OneShot: true, ParseCache: c.cache}).Render("default", file, ps[file])
		}
		b.Run(c.file, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				set := theme.NewSet(os.DirFS("."), theme.Options{Log: quiet, OneShot: true, ParseCache: c.cache})
				set.Info("default")
				if _, ok := set.Render("default", file, ps[file]); !ok {
					b.Fatal("fallback")
				}
			}
		})
	}
}
