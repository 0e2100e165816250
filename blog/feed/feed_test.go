package feed

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
	"github.com/mmcdole/gofeed/atom"
	"github.com/mmcdole/gofeed/rss"
)

var (
	t1 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.FixedZone("JST", 9*3600))
	t2 = time.Date(2026, 12, 1, 8, 30, 0, 0, time.UTC)
)

func testChannel() Channel {
	return Channel{
		Title: "Wonderland", Description: "notes from below", Link: "https://blog.example/@alice",
		Self: "https://blog.example/@alice/feed.rss", Lang: "ja", Author: "Alice", Updated: t2,
	}
}

func testItems() []Item {
	return []Item{
		{
			ID: "https://blog.example/@alice/01ART", Link: "https://blog.example/@alice/01ART",
			Title: "Down the Rabbit Hole", ContentHTML: `<p>It was a <em>long</em> fall.</p>`,
			Summary: "It was a long fall.", Published: t1, Updated: t2, Author: "Alice", Tags: []string{"rabbit", "fall"},
		},
		{
			ID: "https://blog.example/@alice/01NOTE", Link: "https://blog.example/@alice/01NOTE",
			ContentHTML: "<p>" + strings.Repeat("お茶を飲みながら本を読む午後。", 10) + "</p>",
			Published:   t1.Add(-time.Hour), Author: "Bob",
		},
	}
}

// hostile is text every field of a feed may carry: markup, CDATA ends,
// entities, control characters that XML cannot hold, emoji, Japanese.
const hostile = "]]> <script>alert('x')</script> & &amp; \"q\" \x00\x01\x08\x0b\x0c\x1b\x7f\u0085 \ufffe\uffff 🍣 日本語 \r\n end"

// hostileClean is hostile as an XML parser reads it back: the characters
// XML cannot hold dropped, nothing else changed.
const hostileClean = "]]> <script>alert('x')</script> & &amp; \"q\"   🍣 日本語 \r\n end"

func hostileItems() []Item {
	return []Item{{
		ID: "https://blog.example/@alice/01X?a=1&b=2", Link: "https://blog.example/@alice/01X?a=1&b=2",
		Title: hostile, ContentHTML: "<p>" + hostile + "</p>", Summary: hostile,
		Published: t1, Updated: t2, Author: hostile, Tags: []string{hostile, "日本"},
	}, {
		ID: "https://blog.example/@alice/01Y", ContentHTML: "<p>\x00" + hostile + "</p>", Published: t1,
	}}
}

func hostileChannel() Channel {
	return Channel{
		Title: hostile, Description: hostile, Link: "https://blog.example/tags/a%26b?x=1&y=2",
		Self: "https://blog.example/tags/a%26b/feed.atom?x=1&y=2", Lang: "ja", Author: hostile, Updated: t2,
	}
}

// wellFormed reads the whole document with encoding/xml in strict mode
// and returns the character data of every element by name (the last one
// of each name wins).
func wellFormed(t *testing.T, label string, doc []byte) map[string]string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	text := map[string]string{}
	var stack []string
	var cur strings.Builder
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v\n%s", label, err, doc)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			stack = append(stack, tok.Name.Local)
			cur.Reset()
		case xml.CharData:
			cur.Write(tok)
		case xml.EndElement:
			text[stack[len(stack)-1]] = cur.String()
			stack = stack[:len(stack)-1]
			cur.Reset()
		}
	}
	if len(stack) != 0 {
		t.Fatalf("%s: unclosed elements %v", label, stack)
	}
	return text
}

func parse(t *testing.T, label string, doc []byte) *gofeed.Feed {
	t.Helper()
	p := gofeed.NewParser()
	p.KeepOriginalFeed = true
	f, err := p.Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("gofeed cannot parse %s: %v\n%s", label, err, doc)
	}
	return f
}

func TestRSS(t *testing.T) {
	doc := RSS(testChannel(), testItems())
	wellFormed(t, "RSS", doc)
	f := parse(t, "RSS", doc)
	if f.FeedType != "rss" || f.FeedVersion != "2.0" {
		t.Fatalf("feed type %s %s; want rss 2.0", f.FeedType, f.FeedVersion)
	}
	if f.Title != "Wonderland" || f.Link != "https://blog.example/@alice" || f.Description != "notes from below" || f.Language != "ja" {
		t.Errorf("channel = %q %q %q %q", f.Title, f.Link, f.Description, f.Language)
	}
	if f.FeedLink != "https://blog.example/@alice/feed.rss" {
		t.Errorf("atom:link self = %q", f.FeedLink)
	}
	if f.UpdatedParsed == nil || !f.UpdatedParsed.Equal(t2) {
		t.Errorf("lastBuildDate = %v; want %v", f.UpdatedParsed, t2)
	}
	orig := f.OriginalFeed().(*rss.Feed)
	if orig.LastBuildDate != t2.Format(time.RFC1123Z) {
		t.Errorf("lastBuildDate %q; want RFC 1123Z %q", orig.LastBuildDate, t2.Format(time.RFC1123Z))
	}
	if len(f.Items) != 2 {
		t.Fatalf("%d items; want 2", len(f.Items))
	}
	a := f.Items[0]
	if a.Title != "Down the Rabbit Hole" || a.Link != "https://blog.example/@alice/01ART" || a.GUID != "https://blog.example/@alice/01ART" {
		t.Errorf("article item = %q %q %q", a.Title, a.Link, a.GUID)
	}
	if g := orig.Items[0].GUID; g == nil || g.IsPermalink != "true" {
		t.Errorf("guid = %+v; want isPermaLink true", g)
	}
	if a.PublishedParsed == nil || !a.PublishedParsed.Equal(t1) || orig.Items[0].PubDate != t1.Format(time.RFC1123Z) {
		t.Errorf("pubDate = %q; want %q", orig.Items[0].PubDate, t1.Format(time.RFC1123Z))
	}
	if a.Description != "It was a long fall." || a.Content != `<p>It was a <em>long</em> fall.</p>` {
		t.Errorf("description %q, content:encoded %q", a.Description, a.Content)
	}
	if strings.Join(a.Categories, ",") != "rabbit,fall" {
		t.Errorf("categories = %q", a.Categories)
	}
	if a.DublinCoreExt == nil || len(a.DublinCoreExt.Creator) != 1 || a.DublinCoreExt.Creator[0] != "Alice" {
		t.Errorf("dc:creator = %+v", a.DublinCoreExt)
	}
	n := f.Items[1]
	if n.DublinCoreExt == nil || len(n.DublinCoreExt.Creator) != 1 || n.DublinCoreExt.Creator[0] != "Bob" {
		t.Errorf("note dc:creator = %+v; want Bob", n.DublinCoreExt)
	}
	if !strings.HasPrefix(n.Title, "お茶を飲みながら本を読む午後。") || !strings.HasSuffix(n.Title, "…") || len([]rune(n.Title)) > noteTitleLen+1 {
		t.Errorf("note title = %q; want an excerpt of ≤ %d characters", n.Title, noteTitleLen)
	}
	if n.Description == "" || strings.Contains(n.Description, "<p>") {
		t.Errorf("note description = %q; want the plain-text excerpt", n.Description)
	}
}

func TestAtom(t *testing.T) {
	c := testChannel()
	c.Self = "https://blog.example/@alice/feed.atom"
	doc := Atom(c, testItems())
	wellFormed(t, "Atom", doc)
	f := parse(t, "Atom", doc)
	if f.FeedType != "atom" || f.FeedVersion != "1.0" {
		t.Fatalf("feed type %s %s; want atom 1.0", f.FeedType, f.FeedVersion)
	}
	if f.Title != "Wonderland" || f.Link != "https://blog.example/@alice" || f.FeedLink != c.Self || f.Language != "ja" {
		t.Errorf("feed = title %q link %q self %q lang %q", f.Title, f.Link, f.FeedLink, f.Language)
	}
	if f.UpdatedParsed == nil || !f.UpdatedParsed.Equal(t2) {
		t.Errorf("updated = %v; want %v", f.UpdatedParsed, t2)
	}
	if len(f.Authors) != 1 || f.Authors[0].Name != "Alice" {
		t.Errorf("authors = %+v", f.Authors)
	}
	orig := f.OriginalFeed().(*atom.Feed)
	if orig.ID != c.Self {
		t.Errorf("feed id = %q; want the feed's URL", orig.ID)
	}
	if len(f.Items) != 2 {
		t.Fatalf("%d entries; want 2", len(f.Items))
	}
	a, ae := f.Items[0], orig.Entries[0]
	if a.Title != "Down the Rabbit Hole" || a.Link != "https://blog.example/@alice/01ART" || a.GUID != "https://blog.example/@alice/01ART" {
		t.Errorf("entry = %q %q %q", a.Title, a.Link, a.GUID)
	}
	if a.PublishedParsed == nil || !a.PublishedParsed.Equal(t1) || a.UpdatedParsed == nil || !a.UpdatedParsed.Equal(t2) {
		t.Errorf("entry published %v updated %v; want %v %v", a.PublishedParsed, a.UpdatedParsed, t1, t2)
	}
	if ae.Content == nil || ae.Content.Type != "html" || ae.Content.Value != `<p>It was a <em>long</em> fall.</p>` {
		t.Errorf("entry content = %+v", ae.Content)
	}
	if ae.Summary != "It was a long fall." {
		t.Errorf("entry summary = %q", ae.Summary)
	}
	if strings.Join(a.Categories, ",") != "rabbit,fall" {
		t.Errorf("entry categories = %q", a.Categories)
	}
	if len(a.Authors) != 1 || a.Authors[0].Name != "Alice" || len(f.Items[1].Authors) != 1 || f.Items[1].Authors[0].Name != "Bob" {
		t.Errorf("entry authors %+v, %+v; want the feed's Alice, then Bob", a.Authors, f.Items[1].Authors)
	}
	// An entry that was never edited is updated when published.
	if n := f.Items[1]; n.UpdatedParsed == nil || !n.UpdatedParsed.Equal(t1.Add(-time.Hour)) || !strings.HasSuffix(n.Title, "…") {
		t.Errorf("note entry updated %v, title %q", n.UpdatedParsed, n.Title)
	}
}

func TestFeedsEmpty(t *testing.T) {
	c := Channel{Title: "Empty", Link: "https://blog.example/@x", Self: "https://blog.example/@x/feed.atom"}
	for name, doc := range map[string][]byte{"RSS": RSS(c, nil), "Atom": Atom(c, nil)} {
		wellFormed(t, name, doc)
		f := parse(t, name, doc)
		if f.Title != "Empty" || len(f.Items) != 0 {
			t.Errorf("empty %s: title %q, %d items", name, f.Title, len(f.Items))
		}
	}
	if !bytes.Contains(Atom(c, nil), []byte("<updated>1970-01-01T00:00:00Z</updated>")) {
		t.Errorf("empty Atom feed lacks its required updated: %s", Atom(c, nil))
	}
}

func TestFeedsHostile(t *testing.T) {
	c := hostileChannel()
	for name, doc := range map[string][]byte{"RSS": RSS(c, hostileItems()), "Atom": Atom(c, hostileItems())} {
		text := wellFormed(t, name, doc)
		if bytes.Contains(doc, []byte("<script>")) || bytes.Contains(doc, []byte("<![CDATA[")) {
			t.Errorf("%s holds raw markup:\n%s", name, doc)
		}
		f := parse(t, name, doc)
		if f.Title != strings.TrimSpace(hostileClean) && f.Title != hostileClean {
			t.Errorf("%s title = %q; want %q", name, f.Title, hostileClean)
		}
		if len(f.Items) != 2 {
			t.Fatalf("%s: %d items; want 2", name, len(f.Items))
		}
		if got, want := f.Items[0].Content, "<p>"+hostileClean+"</p>"; got != want {
			t.Errorf("%s content = %q; want %q", name, got, want)
		}
		if f.Items[0].Link != "https://blog.example/@alice/01X?a=1&b=2" {
			t.Errorf("%s link = %q", name, f.Items[0].Link)
		}
		// encoding/xml reads back exactly the text with the impossible
		// characters dropped (the carriage return survives as &#xD;).
		key := "encoded"
		if name == "Atom" {
			key = "content"
		}
		if got, want := text[key], "<p>"+hostileClean+"</p>"; got != want {
			t.Errorf("%s %s read back as %q; want %q", name, key, got, want)
		}
		if strings.Contains(f.Items[1].Title, "\x00") || f.Items[1].Title == "" {
			t.Errorf("%s note title = %q", name, f.Items[1].Title)
		}
	}
}

func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", "plain"},
		{`<a href="x">&'`, "&lt;a href=&quot;x&quot;&gt;&amp;&apos;"},
		{"a\x00b\x1fc\x7fd", "abcd"},
		{"tab\tlf\ncr\r", "tab\tlf\ncr&#xD;"},
		{"\xff\xfeok\xc3", "ok"},
		{"\ud7ff\ue000\ufffd\ufffe\uffff\U0010ffff", "\ud7ff\ue000\ufffd\U0010ffff"},
		{"\u0080\u009f\u00a0", "\u00a0"},
		{"日本語🍣", "日本語🍣"},
	} {
		var b strings.Builder
		escape(&b, tt.in)
		if b.String() != tt.want {
			t.Errorf("escape(%q) = %q; want %q", tt.in, b.String(), tt.want)
		}
	}
}

func TestSitemap(t *testing.T) {
	urls := []URL{
		{Loc: "https://blog.example/", LastMod: t2},
		{Loc: "https://blog.example/@alice/01X?a=1&b=<2>"},
		{Loc: ""},
		{Loc: "https://blog.example/" + strings.Repeat("x", 2100)},
		{Loc: "https://blog.example/tags/%E6%97%A5%E6%9C%AC", LastMod: t1},
	}
	doc := Sitemap(urls)
	wellFormed(t, "sitemap", doc)
	var set struct {
		XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
		URLs    []struct {
			Loc     string `xml:"loc"`
			LastMod string `xml:"lastmod"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal(doc, &set); err != nil {
		t.Fatalf("sitemap: %v\n%s", err, doc)
	}
	if len(set.URLs) != 3 {
		t.Fatalf("sitemap has %d URLs; want 3 (empty and over-long loc skipped):\n%s", len(set.URLs), doc)
	}
	if set.URLs[0].Loc != "https://blog.example/" || set.URLs[0].LastMod != "2026-12-01T08:30:00Z" {
		t.Errorf("url 0 = %+v", set.URLs[0])
	}
	if set.URLs[1].Loc != "https://blog.example/@alice/01X?a=1&b=<2>" || set.URLs[1].LastMod != "" {
		t.Errorf("url 1 = %+v", set.URLs[1])
	}
	if set.URLs[2].LastMod != "2026-11-30T03:00:00Z" {
		t.Errorf("url 2 lastmod = %q; want UTC W3C datetime", set.URLs[2].LastMod)
	}
}

func TestSitemapLimit(t *testing.T) {
	urls := make([]URL, MaxSitemapURLs+10)
	for i := range urls {
		urls[i] = URL{Loc: "https://blog.example/@a/" + string(rune('a'+i%26))}
	}
	doc := Sitemap(urls)
	if n := bytes.Count(doc, []byte("<url>")); n != MaxSitemapURLs {
		t.Errorf("sitemap of %d URLs wrote %d; want %d", len(urls), n, MaxSitemapURLs)
	}
	wellFormed(t, "large sitemap", doc)
}

func TestRobots(t *testing.T) {
	got := string(Robots(false, false, "https://blog.example/sitemap.xml"))
	if want := "User-agent: *\nAllow: /\n\nSitemap: https://blog.example/sitemap.xml\n"; got != want {
		t.Errorf("Robots(false, false) = %q; want %q", got, want)
	}
	got = string(Robots(true, false, ""))
	if want := "User-agent: *\nDisallow: /\n"; got != want {
		t.Errorf("Robots(true, false) = %q; want %q", got, want)
	}
	got = string(Robots(false, true, "https://blog.example/sitemap.xml\nUser-agent: evil"))
	if !strings.HasPrefix(got, "User-agent: *\nAllow: /\n") {
		t.Errorf("Robots(noAI) does not allow the others first: %q", got)
	}
	for _, ua := range AICrawlers() {
		if !strings.Contains(got, "\nUser-agent: "+ua+"\nDisallow: /\n") {
			t.Errorf("Robots(noAI) does not refuse %s:\n%s", ua, got)
		}
	}
	if len(AICrawlers()) != 20 {
		t.Errorf("AICrawlers has %d names; want the 20 of the brief", len(AICrawlers()))
	}
	if strings.Count("\n"+got, "\nUser-agent:") != 1+len(AICrawlers()) {
		t.Errorf("Robots(noAI) has an injected line:\n%s", got)
	}
	if !strings.HasSuffix(got, "\nSitemap: https://blog.example/sitemap.xmlUser-agent: evil\n") {
		t.Errorf("Robots sitemap line = %q", got[strings.LastIndex(got, "\n\n"):])
	}
	l := AICrawlers()
	l[0] = "changed"
	if AICrawlers()[0] != "GPTBot" {
		t.Errorf("AICrawlers shares its list with callers")
	}
}

// FuzzFeedsWellFormed: whatever the text of a post, both feeds are
// well-formed XML that gofeed reads with the item in it.
func FuzzFeedsWellFormed(f *testing.F) {
	f.Add(hostile, "<p>"+hostile+"</p>", "tag")
	f.Add("", "", "")
	f.Add("\xff\xfe", "<![CDATA[x]]>", "]]>")
	f.Add("\U0001F600\u2028\u2029", "&#0;&#xD800;", "\x00")
	f.Fuzz(func(t *testing.T, title, content, tag string) {
		items := []Item{{ID: "https://blog.example/@a/1", Title: title, ContentHTML: content, Summary: title, Author: tag, Tags: []string{tag}, Published: t1}}
		c := Channel{Title: title, Description: content, Link: "https://blog.example/@a", Self: "https://blog.example/@a/feed", Author: tag}
		for name, doc := range map[string][]byte{"RSS": RSS(c, items), "Atom": Atom(c, items)} {
			wellFormed(t, name, doc)
			if f := parse(t, name, doc); len(f.Items) != 1 {
				t.Fatalf("%s: %d items; want 1", name, len(f.Items))
			}
		}
	})
}
