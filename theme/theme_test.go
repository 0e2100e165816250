package theme_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/murlog/murlog/theme"
)

func TestRenderPost(t *testing.T) {
	s, lb := newSet(t, theme.Options{})
	in := s.Info("default")
	out, ok := s.Render("default", "post", postPage(in))
	if !ok {
		t.Fatalf("Render(default, post) used a fallback; log:\n%s", lb)
	}
	html := string(out)
	for _, want := range []string{
		`<html lang="ja" dir="ltr">`,
		`<h1><a href="https://blog.example/@alice/01JABC">Go と &lt;raymond&gt; で &amp; テーマ</a></h1>`, // text escaped
		`<code>go test ./...</code>`, // _html written raw
		`<a class="site-name" href="https://blog.example/@alice">Alice&apos;s &lt;blog&gt;</a>`,
		`<h2>«recent_posts»</h2><ul data-murlog-hydrate="recent"><li><a href="https://blog.example/@alice/01J000">最近の投稿 0</a>`, // @root.t inside a partial with a context
		`<a class="share-line" href=`, // the eq helper
		`<section data-murlog-slot="popular" hidden></section>`,
		`<script type="application/json" id="murlog-data">{"username":"alice"`,
		`<meta property="og:title" content="Go と raymond">`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("post page lacks %q\n%s", want, html)
		}
	}
	if !regexp.MustCompile(`<link rel="stylesheet" href="/themes/default/style\.[0-9a-f]{10}\.css">`).MatchString(html) {
		t.Errorf("post page lacks the hashed stylesheet:\n%s", html)
	}
	if lb.String() != "" {
		t.Errorf("a good render logged:\n%s", lb)
	}
}

func TestInfoAndExtends(t *testing.T) {
	s, lb := newSet(t, theme.Options{})
	hashed := func(theme, base, ext string) *regexp.Regexp {
		return regexp.MustCompile(`^/themes/` + theme + `/` + base + `\.[0-9a-f]{10}\.` + ext + `$`)
	}
	for _, tc := range []struct {
		name     string
		vertical bool
		css, js  []*regexp.Regexp
	}{
		{"default", false, []*regexp.Regexp{hashed("default", "style", "css")}, []*regexp.Regexp{hashed("default", "hydrate", "js")}},
		// dark adds a stylesheet; the inherited ones keep default's URL.
		{"dark", false, []*regexp.Regexp{hashed("default", "style", "css"), hashed("dark", "dark", "css")}, []*regexp.Regexp{hashed("default", "hydrate", "js")}},
		// tategaki replaces style.css (same name) and inherits through dark.
		{"tategaki", true, []*regexp.Regexp{hashed("tategaki", "style", "css"), hashed("dark", "dark", "css")}, []*regexp.Regexp{hashed("default", "hydrate", "js")}},
	} {
		in := s.Info(tc.name)
		if in.Name != tc.name || in.Vertical != tc.vertical || len(in.Stylesheets) != len(tc.css) || len(in.Scripts) != len(tc.js) {
			t.Errorf("Info(%s) = %+v; want name %s, vertical %v, %d stylesheets, %d scripts", tc.name, in, tc.name, tc.vertical, len(tc.css), len(tc.js))
			continue
		}
		for i, re := range tc.css {
			if !re.MatchString(in.Stylesheets[i]) {
				t.Errorf("Info(%s).Stylesheets[%d] = %q; want %s", tc.name, i, in.Stylesheets[i], re)
			}
		}
		for i, re := range tc.js {
			if !re.MatchString(in.Scripts[i]) {
				t.Errorf("Info(%s).Scripts[%d] = %q; want %s", tc.name, i, in.Scripts[i], re)
			}
		}
	}
	if a, b := s.Info("default").Scripts[0], s.Info("tategaki").Scripts[0]; a != b {
		t.Errorf("inherited script URL %q differs from the provider's %q", b, a)
	}
	// dark's header partial overrides default's inside default's post page.
	out, ok := s.Render("dark", "post", postPage(s.Info("dark")))
	if !ok || !strings.Contains(string(out), `<header class="site dark">`) || !strings.Contains(string(out), `<article class="post Article"`) {
		t.Errorf("Render(dark, post) ok=%v; want default's post page with dark's header:\n%s", ok, out)
	}
	// tategaki's own post page, dark's header (grandparent chain).
	out, ok = s.Render("tategaki", "post", postPage(s.Info("tategaki")))
	if !ok || !strings.Contains(string(out), `<main class="tate">`) || !strings.Contains(string(out), `(dark)`) {
		t.Errorf("Render(tategaki, post) ok=%v; want tategaki's page with dark's header:\n%s", ok, out)
	}
	// An inherited page template: tategaki has no site.hbs.
	if _, ok := s.Render("tategaki", "site", postPage(s.Info("tategaki"))); !ok {
		t.Errorf("Render(tategaki, site) fell back; log:\n%s", lb)
	}
	if lb.String() != "" {
		t.Errorf("good themes logged:\n%s", lb)
	}
	// Names checks every folder: the broken ones are left out (and logged).
	if got, want := s.Names(), []string{"dark", "default", "execerr", "syntaxerr", "tategaki"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q; want %q", got, want)
	}
}

// TestBrokenThemes: every way a theme.json can lie makes the theme fall
// back to default, with one logged error naming it and the reason.
func TestBrokenThemes(t *testing.T) {
	for _, tc := range []struct{ name, reason string }{
		{"lie-template", `template \"post\" is listed but lie-template/templates/post.hbs is missing`},
		{"lie-partial", `partial \"header\" is listed but`},
		{"lie-asset", `asset \"missing.css\" is listed but`},
		{"wrongname", `theme.json names \"other\", not its folder \"wrongname\"`},
		{"badmode", `writing_mode \"sideways\"`},
		{"badjson", `theme.json: unexpected end of JSON input`},
		{"trailing", `theme.json: invalid character '{' after top-level value`},
		{"loop-a", `extends loop`},
		{"loop-b", `extends loop`},
		{"orphan", `extends \"nope\": no such theme`},
		{"badclient", `client partial \"nope\"`},
		{"nope", `no such theme`},
	} {
		s, lb := newSet(t, theme.Options{})
		for range 3 {
			if in := s.Info(tc.name); in.Name != theme.Default || len(in.Stylesheets) != 1 {
				t.Errorf("Info(%s) = %+v; want default's", tc.name, in)
			}
			out, ok := s.Render(tc.name, "post", postPage(s.Info(tc.name)))
			if ok || !strings.Contains(string(out), `<article class="post Article"`) {
				t.Errorf("Render(%s, post) = ok %v; want default's post page and false:\n%s", tc.name, ok, out)
			}
		}
		log := lb.String()
		lines := strings.Count(log, "theme="+tc.name+" ")
		if lines != 1 || !strings.Contains(log, "level=ERROR") || !strings.Contains(log, tc.reason) {
			t.Errorf("theme %s: %d log lines naming it; want 1 at ERROR with %q:\n%s", tc.name, lines, tc.reason, log)
		}
		if slices.Contains(s.Names(), tc.name) {
			t.Errorf("Names() lists broken theme %s", tc.name)
		}
	}
}

// TestNamesCannotEscape: names that are not theme names never reach the
// file system; they resolve to default.
func TestNamesCannotEscape(t *testing.T) {
	c := newCountFS(testFS())
	s := theme.NewSet(c, theme.Options{Log: (&logBuf{}).logger()})
	for _, name := range []string{"../x", "..", ".", "", "a/b", "default/..", "/etc", `..\x`, "default\x00", "%2e%2e", strings.Repeat("a", 51)} {
		if s.Exists(name) {
			t.Errorf("Exists(%q) = true", name)
		}
		if in := s.Info(name); in.Name != theme.Default {
			t.Errorf("Info(%q).Name = %q; want default", name, in.Name)
		}
		if _, ok := s.Render(name, "post", postPage(theme.Info{})); ok {
			t.Errorf("Render(%q) = ok; want a fallback", name)
		}
		for _, tmpl := range []string{"../post", "partials/head", ""} {
			if _, ok := s.Render("default", tmpl, postPage(theme.Info{})); ok {
				t.Errorf("Render(default, %q) = ok; want a fallback", tmpl)
			}
		}
	}
	for _, n := range c.names() {
		if !strings.HasPrefix(n, "default/") {
			t.Errorf("opened %q: only default's files should have been read", n)
		}
	}
}

func TestRenderErrors(t *testing.T) {
	s, lb := newSet(t, theme.Options{})
	for _, tc := range []struct{ name, log string }{
		{"syntaxerr", "parse syntaxerr/templates/post.hbs"},
		{"execerr", "Helper 'eq' called with wrong number of arguments"},
	} {
		out, ok := s.Render(tc.name, "post", postPage(s.Info(tc.name)))
		if ok || !strings.Contains(string(out), `<article class="post Article"`) {
			t.Errorf("Render(%s, post) ok=%v; want default's post page and false:\n%s", tc.name, ok, out)
		}
		if l := lb.String(); !strings.Contains(l, "theme="+tc.name) || !strings.Contains(l, tc.log) {
			t.Errorf("Render(%s) log lacks %q:\n%s", tc.name, tc.log, l)
		}
	}
	// A page template no theme has: the built-in page.
	out, ok := s.Render("dark", "archive", postPage(theme.Info{}))
	if ok || !strings.Contains(string(out), `<html lang="en">`) || strings.Contains(string(out), "<script") ||
		!strings.Contains(string(out), "&#34;archive&#34;") {
		t.Errorf("Render(dark, archive) ok=%v; want the built-in page naming the page escaped, no script:\n%s", ok, out)
	}
}

// TestDefaultFails: when default itself cannot render, the built-in page.
func TestDefaultFails(t *testing.T) {
	fsys := fstest.MapFS{
		"default/theme.json":         {Data: []byte(`{"name":"default","templates":["post"]}`)},
		"default/templates/post.hbs": {Data: []byte(`{{> missing}}`)},
		"other/theme.json":           {Data: []byte(`{"name":"other","extends":"default","templates":["post"]}`)},
		"other/templates/post.hbs":   {Data: []byte(`{{#each}}`)},
	}
	lb := &logBuf{}
	s := theme.NewSet(fsys, theme.Options{Log: lb.logger()})
	out, ok := s.Render("other", "post", map[string]any{"x": "<y>"})
	if ok || !strings.Contains(string(out), "Page unavailable") {
		t.Errorf("Render = %v, %s; want the built-in page", ok, out)
	}
	if l := lb.String(); !strings.Contains(l, "theme=other") || !strings.Contains(l, `partial \"missing\"`) {
		t.Errorf("log lacks both failures:\n%s", l)
	}
	// A default with no theme.json at all.
	s = theme.NewSet(fstest.MapFS{}, theme.Options{Log: lb.logger()})
	if in := s.Info("x"); in.Name != theme.Default || in.Stylesheets != nil {
		t.Errorf("Info on an empty folder = %+v; want bare default", in)
	}
	if out, ok := s.Render("default", "post", nil); ok || !strings.Contains(string(out), "Page unavailable") {
		t.Errorf("Render on an empty folder = %v, %s; want the built-in page", ok, out)
	}
}

// TestLazy: rendering the post page reads post.hbs and the partials it
// uses, nothing a search page alone needs; the cache keeps later renders
// from reading again unless OneShot.
func TestLazy(t *testing.T) {
	for _, oneShot := range []bool{false, true} {
		c := newCountFS(testFS())
		s := theme.NewSet(c, theme.Options{OneShot: oneShot, Log: (&logBuf{}).logger()})
		for range 2 {
			if _, ok := s.Render("default", "post", postPage(s.Info("default"))); !ok {
				t.Fatal("Render(default, post) fell back")
			}
		}
		want := 1
		if oneShot {
			want = 2
		}
		for _, f := range []string{"post.hbs", "partials/head.hbs", "partials/sidebar-recent.hbs", "partials/share.hbs", "partials/post-rich.hbs"} {
			if n := c.count("default/templates/" + f); n != want {
				t.Errorf("OneShot %v: %s read %d times; want %d", oneShot, f, n, want)
			}
		}
		for _, f := range []string{"search.hbs", "site.hbs", "partials/search-form.hbs", "partials/kwic.hbs", "partials/pager.hbs", "partials/post-plain.hbs"} {
			if n := c.count("default/templates/" + f); n != 0 {
				t.Errorf("OneShot %v: rendering post read %s (%d times)", oneShot, f, n)
			}
		}
		if n := c.count("default/theme.json"); n != 1 {
			t.Errorf("OneShot %v: theme.json read %d times; want 1", oneShot, n)
		}
	}
}

// TestTwoSets: helpers are per template, so two Sets (two apps in one
// process) render side by side.
func TestTwoSets(t *testing.T) {
	a, _ := newSet(t, theme.Options{})
	b, _ := newSet(t, theme.Options{OneShot: true})
	var wg sync.WaitGroup
	for i := range 8 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := s.Render("dark", "post", postPage(s.Info("dark"))); !ok {
				t.Error("concurrent Render(dark, post) fell back")
			}
		}()
	}
	wg.Wait()
}

func TestOpen(t *testing.T) {
	builtin := fstest.MapFS{"default/theme.json": {Data: []byte(`{"name":"default"}`)}, "builtin/theme.json": {Data: []byte(`{"name":"builtin"}`)}}
	if s := theme.Open(filepath.Join(t.TempDir(), "none"), builtin, theme.Options{}); !s.Exists("builtin") {
		t.Error("Open(missing dir) did not use the built-in themes")
	}
	dir, _ := filepath.Abs("testdata/themes")
	if s := theme.Open(dir, builtin, theme.Options{}); s.Exists("builtin") || !s.Exists("tategaki") {
		t.Error("Open(testdata/themes) did not use the folder")
	}
}

func TestServeAsset(t *testing.T) {
	s, _ := newSet(t, theme.Options{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /themes/{theme}/{file}", s.ServeAsset)
	mux.HandleFunc("/", s.ServeAsset) // what a catch-all would pass
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(method, path string, h ...string) (*http.Response, string) {
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		for i := 0; i+1 < len(h); i += 2 {
			req.Header.Set(h[i], h[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	css := s.Info("default").Stylesheets[0]
	res, body := get("GET", css)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/css; charset=utf-8" ||
		res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("GET %s = %d %v", css, res.StatusCode, res.Header)
	}
	hash := regexp.MustCompile(`\.([0-9a-f]{10})\.css$`).FindStringSubmatch(css)[1]
	if res.Header.Get("ETag") != `"`+hash+`"` {
		t.Errorf("ETag = %q; want %q", res.Header.Get("ETag"), hash)
	}
	// url() to listed files become hashed URLs; others stay.
	font := regexp.MustCompile(`url\("(/themes/default/body\.[0-9a-f]{10}\.woff2)"\)`).FindStringSubmatch(body)
	img := regexp.MustCompile(`url\("/themes/default/bg\.[0-9a-f]{10}\.png"\) repeat`).MatchString(body)
	if font == nil || !img || !strings.Contains(body, `url('data:image/gif;base64,R0lGOD')`) ||
		!strings.Contains(body, "url(https://example.com/x.png)") || !strings.Contains(body, "url(img/not-listed.png)") {
		t.Errorf("served CSS not rewritten as expected:\n%s", body)
	}
	if font != nil {
		if res, body := get("GET", font[1]); res.StatusCode != 200 || res.Header.Get("Content-Type") != "font/woff2" || body != "wOF2 fake font bytes\n" {
			t.Errorf("GET %s = %d %q %q", font[1], res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
	// tategaki's CSS points at the font it inherits, at default's URL.
	tcss := s.Info("tategaki").Stylesheets[0]
	if _, body := get("GET", tcss); font == nil || !strings.Contains(body, `url("`+font[1]+`")`) {
		t.Errorf("tategaki CSS does not use default's font URL:\n%s", body)
	}
	if u := s.AssetURL("tategaki", "fonts/body.woff2"); font == nil || u != font[1] {
		t.Errorf("AssetURL(tategaki, fonts/body.woff2) = %q; want default's %v", u, font)
	}
	if u := s.AssetURL("default", "img/not-listed.png"); u != "" {
		t.Errorf("AssetURL of an unlisted file = %q; want \"\"", u)
	}
	if res, body := get("HEAD", css); res.StatusCode != 200 || body != "" {
		t.Errorf("HEAD = %d, %q", res.StatusCode, body)
	}
	if res, _ := get("GET", css, "If-None-Match", `"`+hash+`"`); res.StatusCode != 304 {
		t.Errorf("If-None-Match = %d; want 304", res.StatusCode)
	}
	if res, _ := get("POST", css); res.StatusCode != 405 && res.StatusCode != 404 {
		t.Errorf("POST = %d; want 405 (or the mux's 404)", res.StatusCode)
	}
	for _, p := range []string{
		"/themes/default/style.css",                                          // unhashed
		"/themes/default/style.0123456789.css",                               // stale
		strings.Replace(css, "/default/", "/dark/", 1),                       // not dark's
		strings.Replace(s.Info("dark").Scripts[0], "/default/", "/dark/", 1), // inherited: only at the provider
		"/themes/default/theme.json", "/themes/default/post.hbs",
		"/themes/../default/" + filepath.Base(css), "/themes/default/..%2f..%2fdefault%2ftheme.json",
		"/themes/lie-asset/" + filepath.Base(css), "/themes/default/assets/style." + hash + ".css",
		"/themes/default/", "/themes/",
	} {
		if res, _ := get("GET", p); res.StatusCode != 404 {
			t.Errorf("GET %s = %d; want 404", p, res.StatusCode)
		}
	}
}

// TestStaleAsset: a file changed on disk is served under its new hash
// only, and Info hands out the new URL.
func TestStaleAsset(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "default", "assets"), 0o755)
	os.WriteFile(filepath.Join(dir, "default", "theme.json"), []byte(`{"name":"default","assets":{"js":["a.js"]}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "default", "assets", "a.js"), []byte("1"), 0o644)
	s := theme.NewSet(os.DirFS(dir), theme.Options{})
	old := s.Info("default").Scripts[0]
	os.WriteFile(filepath.Join(dir, "default", "assets", "a.js"), []byte("2"), 0o644)
	w := httptest.NewRecorder()
	s.ServeAsset(w, httptest.NewRequest("GET", old, nil))
	if w.Code != 404 {
		t.Errorf("stale %s = %d; want 404", old, w.Code)
	}
	cur := s.Info("default").Scripts[0]
	w = httptest.NewRecorder()
	s.ServeAsset(w, httptest.NewRequest("GET", cur, nil))
	if cur == old || w.Code != 200 || w.Body.String() != "2" || w.Header().Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Errorf("after the change: Info URL %s (old %s), GET = %d %q", cur, old, w.Code, w.Body)
	}
}

// TestExtendsDepth: a chain of more than four ancestors is broken.
func TestExtendsDepth(t *testing.T) {
	fsys := fstest.MapFS{
		"default/theme.json":         {Data: []byte(`{"name":"default","templates":["post"]}`)},
		"default/templates/post.hbs": {Data: []byte(`<p>{{x}}</p>`)},
	}
	names := []string{"default", "t1", "t2", "t3", "t4", "t5"}
	for i, n := range names[1:] {
		fsys[n+"/theme.json"] = &fstest.MapFile{Data: []byte(`{"name":"` + n + `","extends":"` + names[i] + `"}`)}
	}
	lb := &logBuf{}
	s := theme.NewSet(fsys, theme.Options{Log: lb.logger()})
	if in := s.Info("t4"); in.Name != "t4" {
		t.Errorf("Info(t4) (four ancestors) = %q; want t4; log:\n%s", in.Name, lb)
	}
	if in := s.Info("t5"); in.Name != theme.Default || !strings.Contains(lb.String(), "longer than 4") {
		t.Errorf("Info(t5) (five ancestors) = %q; want default and a log; log:\n%s", in.Name, lb)
	}
	// The other order: a cached parent does not hide the depth.
	s2 := theme.NewSet(fsys, theme.Options{Log: lb.logger()})
	if a, b := s2.Info("t5").Name, s2.Info("t4").Name; a != theme.Default || b != "t4" {
		t.Errorf("t5 then t4: Info names %q, %q; want default, t4", a, b)
	}
	if out, ok := s.Render("t4", "post", map[string]string{"x": "<y>"}); !ok || string(out) != "<p>&lt;y&gt;</p>" {
		t.Errorf("Render(t4, post) = %v %q", ok, out)
	}
}
