package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBlogBrowserHarness runs blog.mjs on hand-written pages served by a
// loopback server: one that does everything right, which must pass, and
// one that breaks each rule TestBlogInBrowser relies on (and a tag page
// that shows a tag twice), which must fail with each of those failures —
// so a check that stopped seeing its fault would be noticed. The good page
// holds a vertical box that scrolls sideways, its text far into negative x
// and reachable: the reach check must let it be.
func TestBlogBrowserHarness(t *testing.T) {
	t.Parallel()
	tools := requireBrowserTools(t)
	srv := httptest.NewServer(harnessSite())
	defer srv.Close()
	art := t.TempDir()
	spec := blogSpec{Theme: "harness", Run: "check", Widths: []int{360}, Share: []string{"x", "hatena"}, Pages: []blogPage{
		{Name: "good", Path: "/good", Kind: "post", Title: "Hello", Image: blogImage, Share: true, Hydrate: true, JSONLD: "BlogPosting"},
		{Name: "bad", Path: "/bad", Kind: "post", Title: "Hello", Image: blogImage, Share: false, Hydrate: true, JSONLD: "BlogPosting"},
		{Name: "tag", Path: "/tags/murlog", Kind: "tag"},
	}}
	out, err := runBlogMJS(tools, srv.URL, art, spec)
	if err == nil {
		t.Fatalf("blog.mjs passed a page that breaks every rule:\n%s", out)
	}
	var report struct {
		Results []struct {
			Page     string   `json:"page"`
			Failures []string `json:"failures"`
		} `json:"results"`
	}
	b, rerr := os.ReadFile(filepath.Join(art, "harness-check-report.json"))
	if rerr != nil || json.Unmarshal(b, &report) != nil || len(report.Results) != 3 {
		t.Fatalf("blog.mjs wrote no readable report (%v): %v\n%s", err, rerr, out)
	}
	got := map[string]string{}
	for _, r := range report.Results {
		got[r.Page] = strings.Join(r.Failures, "\n")
	}
	if got["good"] != "" {
		t.Errorf("the good page failed:\n%s", got["good"])
	}
	for _, want := range []string{
		"console error: broken on purpose",
		"page error: Error: thrown on purpose",
		"CSP violation: script-src-elem blocked inline",
		"layout shift", "during hydration",
		"share buttons on a page that must have none: x",
		"external script requested that this page must not load: https://platform.twitter.com/widgets.js",
		"is in the server's HTML",
		"horizontal overflow at 360 px",
		"no JSON-LD BlogPosting",
		"og:image null, want the featured image",
		"no og:image (every page has one", "no og:description",
		"X-Content-Type-Options",
		`text outside the page's scrollable area at 360 px: "off the page"`,
		`"cut off at the foot" at`, "cut off by div.clip (y)",
		`the placeholder "Search this whole site" of input.narrow is clipped at 360 px`,
		"justified text leaves a",
		"div.tate scrolls sideways but does not start at its right edge",
		"div.tate scrolls sideways", "with no cue that there is more",
		"vertical text sets Latin upright full-width (ＡＢＣ)", "vertical text splits short Latin words across lines: Latinate",
	} {
		if !strings.Contains(got["bad"], want) {
			t.Errorf("the bad page's failures do not say %q:\n%s", want, got["bad"])
		}
	}
	if !strings.Contains(got["tag"], "a tag page shows #murlog 2 times in its post #1") {
		t.Errorf("the tag page that shows a tag twice fails with:\n%s", got["tag"])
	}
	if t.Failed() {
		t.Logf("blog.mjs:\n%s", out)
	}

	// The Nu checker passes the good page blog.mjs saved and names the
	// error of a broken one.
	broken := filepath.Join(art, "broken.html")
	if err := os.WriteFile(broken, []byte("<!DOCTYPE html><html lang=en><head><title>x</title></head><body><p><div></p></body></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	errs, err := vnuErrors(tools, []string{filepath.Join(art, "harness-good.html"), broken})
	if err != nil {
		t.Fatal(err)
	}
	if len(errs["harness-good.html"]) > 0 {
		t.Errorf("Nu HTML Checker on the good page: %s", strings.Join(errs["harness-good.html"], "\n"))
	}
	if !strings.Contains(strings.Join(errs["broken.html"], "\n"), "No “p” element in scope") {
		t.Errorf("Nu HTML Checker on a broken page: %q; want the stray </p>", errs["broken.html"])
	}
}

// harnessSite serves the two pages of TestBlogBrowserHarness with a CSP
// like the blog's, their script and a stand-in for the public read API.
func harnessSite() http.Handler {
	const csp = "default-src 'none'; script-src 'self' https://platform.twitter.com https://b.st-hatena.com; style-src 'self'; " +
		"img-src 'self' https: data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
	mux := http.NewServeMux()
	mux.HandleFunc("/api/pub/personas/alice/posts", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"posts":[]}`)
	})
	mux.HandleFunc("/site.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, `body{margin:0} .wide{width:900px} .tall{height:400px}
.off{position:relative;left:-400px} .clip{overflow:hidden;height:1.5em;width:8rem} .clip span{display:block;margin-top:3em}
.narrow{width:4rem} .justify{width:300px;text-align:justify;font-size:16px}
.tate{writing-mode:vertical-rl;overflow-x:auto;overflow-y:hidden;height:8em;width:200px} .short{writing-mode:vertical-rl;height:2em;word-break:break-all}
.cue{background:linear-gradient(to right,#fff 40%,transparent) left/2rem 100% no-repeat local,radial-gradient(farthest-side at 0 50%,rgba(0,0,0,.3),transparent) left/1rem 100% no-repeat scroll}`)
	})
	// The script hydrates like hydrate.js: fetch, then say so, then load
	// the widgets of the share area. On the bad page it also pushes the
	// content down, logs an error and throws.
	mux.HandleFunc("/site.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		// The bad page waits two frames before it pushes the content down:
		// a shift before the first paint is no shift to Chromium, and on a
		// loaded machine the API can answer before anything was painted.
		fmt.Fprint(w, `const painted = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
fetch('/api/pub/personas/alice/posts?limit=5').then((r) => r.json()).then(async () => {
  const bad = location.pathname === '/bad';
  if (bad) { await painted(); const d = document.createElement('div'); d.className = 'tall'; document.body.prepend(d); }
  document.documentElement.dataset.murlogHydrated = 'done';
  if (document.querySelector('.twitter-share-button')) for (const u of ['https://platform.twitter.com/widgets.js', 'https://b.st-hatena.com/js/bookmark_button.js']) {
    const s = document.createElement('script'); s.src = u; document.head.append(s);
  }
  if (bad) document.querySelector('.tate').scrollLeft = -100;
  if (bad) { console.error('broken on purpose'); throw new Error('thrown on purpose'); }
});`)
	})
	page := func(w http.ResponseWriter, r *http.Request, bad bool) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", csp)
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		if !bad {
			h.Set("X-Content-Type-Options", "nosniff")
		}
		u := "http://" + r.Host + r.URL.Path
		head := fmt.Sprintf(`<link rel="canonical" href="%[1]s"><meta property="og:title" content="Hello"><meta property="og:type" content="article">
<meta property="og:url" content="%[1]s"><meta property="og:image" content="%[2]s"><meta property="og:description" content="Text.">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"BlogPosting","headline":"Hello","datePublished":"2026-01-01T00:00:00Z","author":{"@type":"Person","name":"alice"},"url":"%[1]s","image":"%[2]s"}</script>`, u, blogImage)
		// A vertical box that scrolls sideways: its end is far into
		// negative x, and reachable.
		tate := strings.Repeat("縦書きの文章は右から左へ読み進める。", 12)
		extra := `<input type="search" placeholder="Search"><div class="tate cue"><p>` + tate + `</p></div>`
		if bad {
			head = `<link rel="canonical" href="` + u + `"><meta property="og:title" content="Hello"><meta property="og:type" content="article"><meta property="og:url" content="` + u + `">`
			extra = `<script>document.title = 'inline';</script><script src="https://platform.twitter.com/widgets.js"></script><p class="wide">wide</p>` +
				`<p class="off">off the page</p><div class="clip"><span>cut off at the foot</span></div>` +
				`<input type="search" class="narrow" placeholder="Search this whole site">` +
				`<p class="justify">Some words then <a href="https://example.com/">https://example.com/aVeryLongAddress/here</a> and more words to end the paragraph with.</p>` +
				`<div class="tate"><p>` + tate + `ＡＢＣと書く。</p></div><p class="short">Latinate</p>`
		}
		fmt.Fprintf(w, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Hello</title>
%s<link rel="stylesheet" href="/site.css"><script defer src="/site.js"></script></head>
<body><header>blog</header>%s<main><article><h1>Hello</h1><p>Text.</p></article>
<section class="share"><a class="twitter-share-button" href="https://twitter.com/intent/tweet?url=%s" data-url="%s">X</a>
<a class="hatena-bookmark-button" href="https://b.hatena.ne.jp/entry/panel/?url=%s" data-hatena-bookmark-url="%s">B!</a></section>
<ul data-murlog-hydrate="recent"><li>a post</li></ul></main></body></html>`, head, extra, u, u, u, u)
	}
	// A tag page whose post shows its tag in its text and again in a list.
	mux.HandleFunc("/tags/murlog", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", csp)
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("X-Content-Type-Options", "nosniff")
		fmt.Fprint(w, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>#murlog</title>
<link rel="stylesheet" href="/site.css"></head>
<body><main><h1>#murlog</h1><article><p>A post about <a href="/tags/murlog" rel="tag">#murlog</a>.</p>
<ul><li><a href="/tags/murlog" rel="tag">#murlog</a></li></ul></article></main></body></html>`)
	})
	mux.HandleFunc("/good", func(w http.ResponseWriter, r *http.Request) { page(w, r, false) })
	mux.HandleFunc("/bad", func(w http.ResponseWriter, r *http.Request) { page(w, r, true) })
	return mux
}
