package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/internal/fedtest"
)

// The themes shipped in web/themes, each loaded in the browser.
var blogThemes = []struct {
	name     string
	vertical bool
}{{"default", false}, {"newspaper", false}, {"whiteboard", false}, {"dark", false}, {"vertical", true}}

// The featured image of the test article. No request leaves the machine:
// blog.mjs answers every non-loopback request itself, images with a 1×1
// PNG, so the page loads it without an error.
const blogImage = "https://images.murlog.test/tiny.png"

// A Latin word longer than a phone's line, in the test articles.
const blogLongWord = "Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherung"

// The measurement id set on the runs with analytics.
const blogGA = "G-MURLOGTEST1"

// TestBlogInBrowser loads the public blog of a real `murlog serve` in
// Debian's headless chromium (driven by playwright-core, e2e/browser/
// blog.mjs) for every shipped theme at 360 and 1280 px: the site page, an
// article with share buttons and a featured image, a note, a Japanese
// article, a tag page, a search page, a 404 and a 410 — no console errors,
// no CSP violations, no layout shift from hydration, share buttons and
// widget scripts only where enabled, vertical writing in the vertical
// theme, no overflow at 360 px, JSON-LD and Open Graph that say what the
// page is. At both widths no text box may lie where no scrolling brings
// it (the articles hold long Latin words, long addresses, code blocks and
// tables), placeholders fit their inputs, a tag page shows each tag of a
// post once, a vertical box that scrolls sideways starts at its right edge
// with a cue, and justified text has no wide gaps (checks.mjs, reach).
// Then the Nu HTML Checker (vnu.jar) validates every page's HTML.
// Screenshots are kept in $MURLOG_ARTIFACTS/blog-browser (default
// e2e/browser/artifacts/blog-browser).
//
// One browser loads every run, a few pages at a time (blog.mjs --serve;
// MURLOG_BROWSER_PAGES sets how many, 4 by default), and it launches while
// the site starts. MURLOG_BROWSER_THEMES=default,vertical limits the run
// to those themes (while working on one). It skips when node, chromium, java or e2e/browser/node_modules are
// missing, except with CI=true, where that is a failure (.ci/run installs
// them).
func TestBlogInBrowser(t *testing.T) {
	t.Parallel()
	tools := requireBrowserTools(t)
	art := browserArtifacts(t, tools.root, "blog-browser")
	t.Logf("screenshots, saved pages and reports: %s", art)
	// The browser starts while the site does; it loads every run.
	bb := startBlogBrowser(t, tools, art)

	// The themes of this working tree (the binary embeds the same files).
	p := fedtest.StartProcess(t, fedtest.NewNames(), apachetest.Murlog(t), fedtest.Options{Username: "alice",
		Env: map[string]string{"MURLOG_THEMES_DIR": filepath.Join(tools.root, "web", "themes"),
			// The search budget is wall time: under the whole suite's load a
			// search the page runs once could overrun the 50 ms default and
			// answer "too expensive" (seen in CI). What the budget refuses
			// is tested in the store and blog packages.
			"MURLOG_SEARCH_BUDGET_MS": "1000"}})
	// The server's log is kept with the screenshots; its warnings and
	// errors are shown when the test fails.
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(art, "murlog.log"), []byte(p.Logs.String()), 0o644)
		if t.Failed() {
			t.Logf("murlog serve's last warnings and errors (all in %s):\n%s", filepath.Join(art, "murlog.log"),
				strings.Join(fedtest.Warnings(p, 30), "\n"))
		}
	})
	c := newBlogContent(t, p)
	warmSearch(t, p, c.pages(false)[5].Path)

	for _, th := range blogThemes {
		if only := os.Getenv("MURLOG_BROWSER_THEMES"); only != "" && !slices.Contains(strings.Split(only, ","), th.name) {
			continue
		}
		// Share buttons and analytics on: every post page has the share
		// area and loads the enabled widgets; other pages have none.
		// An id murlog does not know is kept and ignored; the rest show in
		// the fixed order whatever order they are stored in.
		c.setPublication(t, th.name, []string{"hatena", "line", "mastodon", "facebook", "x"}, blogGA)
		runBlogPages(t, bb, art, blogSpec{Base: p.Base, Theme: th.name, Run: "share", Vertical: th.vertical,
			Share: []string{"x", "facebook", "line", "hatena"}, GA: blogGA, Pages: c.pages(true)})
		// None enabled: no share area, no widget or analytics script.
		c.setPublication(t, th.name, nil, "")
		runBlogPages(t, bb, art, blogSpec{Base: p.Base, Theme: th.name, Run: "plain", Vertical: th.vertical,
			Pages: c.plainPages()})
	}
	if err := bb.close(); err != nil {
		t.Errorf("blog.mjs: %v", err)
	}
	validateHTML(t, tools, art)
}

// warmSearch asks for the search page until it answers 200, eight at
// once so that every read connection of the pool (four on two cores) has
// searched. The first search on a connection opens its full-text index,
// and on a loaded machine that alone can outlast the store's search
// budget (50 ms of wall time), which the page then rightly refuses with a
// 400; the browser loads four pages at a time, each on any connection,
// and is there to see the page, not a cold index.
func warmSearch(t *testing.T, p *fedtest.Instance, path string) {
	t.Helper()
	fedtest.Eventually(t, "the search page answering 200 on every connection", func() (bool, string) {
		const n = 8
		c := p.NewClient()
		var wg sync.WaitGroup
		statuses, bodies := make([]int, n), make([][]byte, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				if statuses[i], _, bodies[i], err = c.Get(context.Background(), path); err != nil {
					bodies[i] = []byte(err.Error())
				}
			}()
		}
		wg.Wait()
		for i, st := range statuses {
			if st != http.StatusOK {
				return false, fmt.Sprintf("%d %.300s", st, bodies[i])
			}
		}
		return true, ""
	}, p)
}

// blogSpec is blog.mjs's pages.json.
type blogSpec struct {
	Base     string     `json:"base,omitempty"` // the site (blog.mjs --serve)
	Theme    string     `json:"theme"`
	Run      string     `json:"run"`
	Vertical bool       `json:"vertical"`
	Widths   []int      `json:"widths"`
	Share    []string   `json:"share"`
	GA       string     `json:"ga"`
	Pages    []blogPage `json:"pages"`
}

// blogPage is one page blog.mjs loads and what it must be.
type blogPage struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	ID      string `json:"id,omitempty"` // a post page's post id
	Kind    string `json:"kind"`         // site, post, tag, search, error
	Status  int    `json:"status,omitempty"`
	Title   string `json:"title,omitempty"`
	Image   string `json:"image,omitempty"`
	Share   bool   `json:"share"`   // the share area is expected (when buttons are enabled)
	Hydrate bool   `json:"hydrate"` // a [data-murlog-hydrate="recent"] list is expected
	JSONLD  string `json:"jsonld,omitempty"`
}

// blogContent is what the test wrote through the API.
type blogContent struct {
	p                     *fedtest.Instance
	article, note, ja     localPost
	articleTitle, jaTitle string
	gonePath              string
}

func newBlogContent(t *testing.T, p *fedtest.Instance) *blogContent {
	t.Helper()
	c := &blogContent{p: p, articleTitle: "Seen in a browser", jaTitle: "縦書きで読む記事"}
	// Oldest first, so that the article has neighbours on both sides.
	p.Call(t, "posts.create", map[string]any{"kind": "note", "content": "A short note for the sidebar, tagged #murlog and #browser."}, &c.note)
	p.Call(t, "posts.create", map[string]any{"kind": "article", "title": c.articleTitle, "language": "en",
		"content": "An article with a **featured image** and tags #murlog #browser.\n\n" +
			"![A one-pixel image](" + blogImage + ")\n\n" +
			"## A section\n\nA paragraph long enough to wrap at 360 pixels: the quick brown fox jumps over the lazy dog, " +
			"and a long URL https://example.com/a/very/long/path/that/must/not/overflow/the/page/at/three/hundred/sixty/pixels wraps too.\n\n" +
			"Long words break rather than overflow: " + blogLongWord + " and pneumonoultramicroscopicsilicovolcanoconiosis.\n\n" +
			"```\ncode block that is wider than a phone screen, and must scroll inside its own box rather than the page\n```\n\n" +
			"| Column | A rather long column heading | Address |\n|---|---|---|\n" +
			"| 1 | a table wider than a phone screen scrolls inside its box | https://example.com/a/table/cell/with/a/long/address |\n"}, &c.article)
	p.Call(t, "posts.create", map[string]any{"kind": "article", "title": c.jaTitle, "language": "ja",
		"content": "日本語の記事です。縦書きのテーマでは JavaScript や " + blogLongWord + " のような Latin の単語は横に寝かせて読み、" +
			"12月3日や第1回のような短い数字は縦に立てます。2026年は横向きです。本当!?\n\n" +
			"長い URL も列からはみ出しません: https://example.com/a/very/long/path/that/must/not/overflow/the/column\n\n" +
			"```\nfunc main() { fmt.Println(\"a code block wider than the column, read horizontally\") }\n```\n\n" +
			"| 項目 | 説明 |\n|---|---|\n| 縦書き | 表は横書きのまま、列の中でスクロールします(a table stays horizontal) |\n\n" +
			"吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。 #murlog"}, &c.ja)
	var gone localPost
	p.Call(t, "posts.create", map[string]any{"kind": "note", "content": "A note that is deleted."}, &gone)
	p.Call(t, "posts.delete", map[string]any{"id": gone.ID}, nil)
	c.gonePath = urlPath(t, gone.URL)
	for _, lp := range []localPost{c.note, c.article, c.ja} {
		if lp.URL == "" {
			t.Fatalf("posts.create returned no url: %+v", lp)
		}
	}
	return c
}

// setPublication switches the persona's theme, share buttons and Google
// Analytics id through site.update_settings (the primary persona's
// publication settings).
func (c *blogContent) setPublication(t *testing.T, theme string, share []string, ga string) {
	t.Helper()
	if share == nil {
		share = []string{}
	}
	ext := map[string]any{"shareButtons": share}
	if ga != "" {
		ext["analytics"] = map[string]any{"googleAnalytics": map[string]any{"measurementId": ga}}
	}
	c.p.Call(t, "site.update_settings", map[string]any{"publication": map[string]any{
		"site_name": "A blog in a browser", "subtitle": "murlog's themes, tested",
		"introduction": "Pages of every theme, loaded by headless Chromium.",
		"design_theme": theme, "show_side_recent": 5, "extensions": ext}}, nil)
}

// pages lists every page kind; share says whether post pages expect the
// share area.
func (c *blogContent) pages(share bool) []blogPage {
	return []blogPage{
		{Name: "site", Path: "/", Kind: "site", JSONLD: "ProfilePage"},
		{Name: "post", Path: c.path(c.article), ID: c.article.ID, Kind: "post", Title: c.articleTitle, Image: blogImage, Share: share, Hydrate: true, JSONLD: "BlogPosting"},
		{Name: "note", Path: c.path(c.note), ID: c.note.ID, Kind: "post", Share: share, Hydrate: true, JSONLD: "BlogPosting"},
		{Name: "ja", Path: c.path(c.ja), ID: c.ja.ID, Kind: "post", Title: c.jaTitle, Share: share, Hydrate: true, JSONLD: "BlogPosting"},
		{Name: "tag", Path: "/tags/murlog", Kind: "tag"},
		{Name: "search", Path: "/search?q=" + url.QueryEscape("murlog"), Kind: "search"},
		{Name: "404", Path: "/@alice/doesnotexist", Kind: "error", Status: 404},
		{Name: "410", Path: c.gonePath, Kind: "error", Status: 410},
	}
}

// plainPages are the pages loaded with no share button and no analytics.
func (c *blogContent) plainPages() []blogPage {
	all := c.pages(false)
	return []blogPage{renamed(all[0], "site-plain"), renamed(all[1], "post-plain")}
}

func renamed(p blogPage, name string) blogPage {
	p.Name = name
	return p
}

func (c *blogContent) path(lp localPost) string { return strings.TrimPrefix(lp.URL, c.p.Base) }

func urlPath(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("post url %q: %v", raw, err)
	}
	return u.Path
}

// runBlogPages has bb load spec at 360 and 1280 px; its output (one line
// per page load, the failures under each) is logged, and a failed load
// fails the test.
func runBlogPages(t *testing.T, bb *blogBrowser, art string, spec blogSpec) {
	t.Helper()
	spec.Widths = []int{360, 1280}
	out, err := bb.run(spec)
	t.Logf("theme %s (%s):\n%s", spec.Theme, spec.Run, out)
	if err != nil {
		t.Errorf("theme %s (%s): blog.mjs: %v (report: %s)", spec.Theme, spec.Run, err,
			filepath.Join(art, spec.Theme+"-"+spec.Run+"-report.json"))
	}
}

// runBlogMJS writes spec as art/<theme>-<run>-pages.json and runs
// blog.mjs on it against base, returning its output.
func runBlogMJS(tools browserTools, base, art string, spec blogSpec) ([]byte, error) {
	pages, err := writeBlogSpec(art, spec)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tools.node, filepath.Join(tools.dir, "blog.mjs"), base, art, pages)
	cmd.Dir = tools.dir
	cmd.Env = append(os.Environ(), "MURLOG_CHROMIUM="+tools.chromium)
	return cmd.CombinedOutput()
}
