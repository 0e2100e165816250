package blog

import (
	"encoding/json"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/httpd"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog/meta"
	"github.com/murlog/murlog/markup"
	"github.com/murlog/murlog/siteconfig"
)

// themeKeys are the interface words the themes may use (the plan).
const themeKeys = `recent_posts popular_posts older newer next_page first_page newest_first oldest_first
rich plain kwic search search_placeholder search_results tags profile share posts followers
following powered_by feed no_posts no_hits content_warning show_more home page_not_found gone
published updated`

func TestStringsHaveEveryKey(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "ja"} {
		s := stringsFor(lang)
		for _, k := range strings.Fields(themeKeys) {
			if s[k] == "" {
				t.Errorf("%s strings lack %q", lang, k)
			}
		}
	}
	if len(stringsEN) != len(stringsJA) {
		t.Errorf("en has %d strings, ja %d; want the same keys", len(stringsEN), len(stringsJA))
	}
	for k := range stringsEN {
		if stringsJA[k] == "" {
			t.Errorf("ja lacks %q", k)
		}
	}
	for setting, want := range map[string]string{"": "en", "ja": "ja", "ja-JP": "ja", "JA": "ja", "en-US": "en", "fr": "en"} {
		if got := pageLang(setting); got != want {
			t.Errorf("pageLang(%q) = %q; want %q", setting, got, want)
		}
	}
}

func TestParseQuery(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, shown string
		terms     []string
		refused   string
	}{
		{"", "", nil, ""},
		{"   \u3000 ", "", nil, ""},
		{" go  lang ", "go  lang", []string{"go", "lang"}, ""},
		{"日本語\u3000検索", "日本語\u3000検索", []string{"日本語", "検索"}, ""},
		{"tab\tand\r\nnewline", "tab\tand\r\nnewline", []string{"tab", "and", "newline"}, ""},
		{"a b A c", "a b A c", []string{"a", "b", "c"}, ""},
		{"1 2 3 4 5 6 7 8", "1 2 3 4 5 6 7 8", []string{"1", "2", "3", "4", "5", "6", "7", "8"}, ""},
		{"1 2 3 4 5 6 7 8 1 2", "1 2 3 4 5 6 7 8 1 2", []string{"1", "2", "3", "4", "5", "6", "7", "8"}, ""},
		{"1 2 3 4 5 6 7 8 9", "1 2 3 4 5 6 7 8 9", nil, "search_too_many_words"},
		{`"x" NEAR *`, `"x" NEAR *`, []string{`"x"`, "NEAR", "*"}, ""},
		{strings.Repeat("字", 200), strings.Repeat("字", 200), []string{strings.Repeat("字", 200)}, ""},
		{strings.Repeat("字", 201), strings.Repeat("字", 200), nil, "search_too_long"},
		{" " + strings.Repeat("字", 200) + " ", strings.Repeat("字", 200), []string{strings.Repeat("字", 200)}, ""},
		{"bad\xffutf8", "bad\uFFFDutf8", nil, "search_not_text"},
		{"a\x00b", "a\uFFFDb", nil, "search_not_text"},
		{"a\x7fb", "a\uFFFDb", nil, "search_not_text"},
		{"a\u009bb", "a\uFFFDb", nil, "search_not_text"},
		{strings.Repeat("x", 300) + "\x00", strings.Repeat("x", 200), nil, "search_not_text"},
	} {
		shown, terms, refused := parseQuery(c.in)
		if shown != c.shown || strings.Join(terms, "|") != strings.Join(c.terms, "|") || refused != c.refused {
			t.Errorf("parseQuery(%.30q) = %.30q, %q, %q; want %.30q, %q, %q", c.in, shown, terms, refused, c.shown, c.terms, c.refused)
		}
		if refused != "" && (stringsEN[refused] == "" || stringsJA[refused] == "") {
			t.Errorf("parseQuery(%.30q): no English or Japanese text for %q", c.in, refused)
		}
	}
}

func TestMatchETag(t *testing.T) {
	t.Parallel()
	tag := ETag([]byte("body"))
	if tag != ETag([]byte("body")) || tag == ETag([]byte("other")) || tag != artifact.ETagOf(artifact.Sum([]byte("body"))) {
		t.Fatalf("ETag = %s; want a stable tag per body, an artifact's of the same bytes", tag)
	}
	for h, want := range map[string]bool{"": false, tag: true, "W/" + tag: true, `"a", ` + tag: true, "*": true, `"a"`: false, tag[1:]: false} {
		if got := httpd.MatchETag(h, tag); got != want {
			t.Errorf("MatchETag(%q) = %v; want %v", h, got, want)
		}
	}
}

// TestCSPFollowsThePage: the policy names exactly the hosts the page
// uses, and never allows inline scripts.
func TestCSPFollowsThePage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		p         *Page
		has, lack []string
	}{
		{"plain", &Page{}, []string{"script-src 'self';", "connect-src 'self';"}, []string{"frame-src", "twitter", "google"}},
		{"x horizontal", &Page{Share: &Share{X: true}}, []string{"script-src 'self' https://platform.twitter.com", "frame-src https://platform.twitter.com"}, []string{"facebook"}},
		{"x vertical", &Page{Share: &Share{X: true, Facebook: true}, Theme: ThemeView{Vertical: true}}, nil, []string{"twitter", "facebook", "frame-src"}},
		{"facebook", &Page{Share: &Share{Facebook: true}}, []string{"frame-src https://www.facebook.com"}, []string{"twitter"}},
		{"hatena", &Page{Share: &Share{Hatena: true}}, []string{"https://b.st-hatena.com", "frame-src https://b.hatena.ne.jp"}, nil},
		{"ga", &Page{Meta: meta.Meta{GA: &meta.Analytics{MeasurementID: "G-1"}}}, []string{"https://www.googletagmanager.com", "connect-src 'self' https://www.googletagmanager.com https://*.google-analytics.com"}, []string{"frame-src"}},
	} {
		csp := CSP(c.p)
		if strings.Contains(csp, "unsafe") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", c.name, csp)
		}
		for _, s := range c.has {
			if !strings.Contains(csp, s) {
				t.Errorf("%s: CSP %q lacks %q", c.name, csp, s)
			}
		}
		for _, s := range c.lack {
			if strings.Contains(csp, s) {
				t.Errorf("%s: CSP %q has %q", c.name, csp, s)
			}
		}
	}
}

// TestShareOrder: the fixed order whatever the stored order, unknown ids
// ignored, none → no share area; URLs carry the encoded canonical URL.
func TestShareOrder(t *testing.T) {
	t.Parallel()
	s := &scope{t: stringsEN}
	if sh := share(s, "https://a.example/@x/1", "t"); sh != nil {
		t.Errorf("share with none enabled = %+v; want nil", sh)
	}
	s.ext = siteconfig.Extensions{ShareButtons: []string{"hatena", "mystery", "line", "x", "facebook"}}
	sh := share(s, "https://a.example/@x/1", "A & B")
	if got := strings.Join(shareIDs(sh), ","); got != "x,facebook,line,hatena" {
		t.Fatalf("share ids = %s; want x,facebook,line,hatena", got)
	}
	want := map[string]string{
		"x":        "https://twitter.com/intent/tweet?url=https%3A%2F%2Fa.example%2F%40x%2F1&text=A+%26+B",
		"facebook": "https://www.facebook.com/sharer/sharer.php?u=https%3A%2F%2Fa.example%2F%40x%2F1",
		"line":     "https://social-plugins.line.me/lineit/share?url=https%3A%2F%2Fa.example%2F%40x%2F1&text=A+%26+B",
		"hatena":   "https://b.hatena.ne.jp/entry/panel/?url=https%3A%2F%2Fa.example%2F%40x%2F1",
	}
	for _, b := range sh.Buttons {
		if b.Href != want[b.ID] {
			t.Errorf("%s href = %s; want %s", b.ID, b.Href, want[b.ID])
		}
	}
	if !sh.X || !sh.Facebook || !sh.LINE || !sh.Hatena {
		t.Errorf("share flags = %+v; want all set", sh)
	}
}

func TestFieldAndSummaryHTML(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain <b>":                    "plain &lt;b&gt;",
		"https://example.com/me":       `<a href="https://example.com/me" rel="me nofollow noopener">https://example.com/me</a>`,
		"https://x.example/a?b=1&c=2":  `<a href="https://x.example/a?b=1&amp;c=2" rel="me nofollow noopener">https://x.example/a?b=1&amp;c=2</a>`,
		`https://x.example/"><script>`: `https://x.example/&#34;&gt;&lt;script&gt;`,
		"javascript:alert(1)":          "javascript:alert(1)",
	} {
		if got := fieldHTML(in); got != want {
			t.Errorf("fieldHTML(%q) = %s; want %s", in, got, want)
		}
	}
	if got := textHTML("a <i>\r\nb\n"); got != "a &lt;i&gt;<br>b" {
		t.Errorf("textHTML = %q", got)
	}
}

// TestHydrateJSONIsHTMLSafe: the data block cannot close its <script>.
func TestHydrateJSONIsHTMLSafe(t *testing.T) {
	t.Parallel()
	s := hydrateJSON(Hydrate{Username: "</script><script>alert(1)</script>", Lang: "en"})
	if strings.Contains(s, "<") || strings.Contains(s, ">") {
		t.Errorf("hydrateJSON = %s; want < and > escaped", s)
	}
	var back Hydrate
	if err := json.Unmarshal([]byte(s), &back); err != nil || back.Username != "</script><script>alert(1)</script>" {
		t.Errorf("hydrateJSON does not round-trip: %v", err)
	}
}

// TestExcerptTextPrefix: cutting the text before markup.ExcerptText
// changes nothing.
func TestExcerptTextPrefix(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "short", strings.Repeat("word ", 100), strings.Repeat("日本語の文。", 60),
		strings.Repeat("x", 81), strings.Repeat("x", 82) + " y", strings.Repeat("ab. ", 30), strings.Repeat("あ", 79) + " b c"} {
		for _, n := range []int{1, 2, 80, 200} {
			if got, want := excerptText(text, n), markup.ExcerptText(text, n); got != want {
				t.Errorf("excerptText(%.20q…, %d) = %q; want %q", text, n, got, want)
			}
		}
	}
}

func TestSiteCacheGenerations(t *testing.T) {
	t.Parallel()
	l := &Loader{SiteTTL: time.Hour}
	ps := &personaSite{}
	if got := l.cached("k"); got != nil {
		t.Fatal("empty cache returned an entry")
	}
	gen := l.generation()
	l.keep("k", ps, gen)
	if got := l.cached("k"); got != ps {
		t.Fatal("kept entry not returned")
	}
	l.Invalidate()
	if got := l.cached("k"); got != nil {
		t.Fatal("entry survived Invalidate")
	}
	// A read that began before an Invalidate is not kept.
	gen = l.generation()
	l.Invalidate()
	l.keep("k", ps, gen)
	if got := l.cached("k"); got != nil {
		t.Fatal("a read from before Invalidate was kept")
	}
	// A transaction's generation is the one taken before it began, not
	// the one current when it first asks (genOf).
	if got := l.genOf(viewTx{gen: gen}); got != gen {
		t.Fatalf("genOf = %d; want the transaction's %d", got, gen)
	}
	if got := l.genOf(nil); got == l.generation() {
		t.Fatal("a transaction not begun by view may keep what it reads")
	}
	off := &Loader{}
	off.keep("k", ps, off.generation())
	if got := off.cached("k"); got != nil {
		t.Fatal("SiteTTL 0 kept an entry")
	}
}

// TestLinkTitleIsTheListTitle: a link's title cut alone is the title
// texts derives, for every kind of post, whether the Loader keeps texts
// or not.
func TestLinkTitleIsTheListTitle(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("今日は東京で雨が降っている。 ", 20)
	for _, p := range []*murlog.Post{
		{ID: "n1", Kind: murlog.KindNote, Excerpt: markup.PlainTextPrefix("<p>"+long+"</p>", murlog.ExcerptLen)},
		{ID: "n2", Kind: murlog.KindNote, Excerpt: "short"},
		{ID: "a1", Kind: murlog.KindArticle, Title: "An article", Excerpt: "body"},
		{ID: "a2", Kind: murlog.KindArticle, Excerpt: markup.PlainTextPrefix("<p>"+long+"</p>", murlog.ExcerptLen)},
		{ID: "old", Kind: murlog.KindNote, Content: "<p>" + long + "</p>"}, // a row from before stored excerpts
	} {
		want := (&Loader{}).texts(p).title
		if want == "" {
			t.Fatalf("%s: no list title", p.ID)
		}
		for _, l := range []*Loader{{}, {TextCache: 8}} {
			if got := l.linkTitle(p); got != want {
				t.Errorf("%s (TextCache %d): linkTitle = %q; want %q", p.ID, l.TextCache, got, want)
			}
		}
	}
}
