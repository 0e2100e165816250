package meta

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
)

var (
	testSite      = murlog.Site{Scheme: "https", Domain: "blog.example"}
	testPublished = time.Date(2026, 11, 30, 12, 0, 0, 0, time.FixedZone("JST", 9*3600))
	testUpdated   = time.Date(2026, 12, 1, 8, 30, 0, 0, time.UTC)
)

func testPersona() *murlog.Persona {
	return &murlog.Persona{
		ID: "p1", Username: "alice", DisplayName: "Alice Liddell", Summary: "Writes about rabbits.\nAnd holes.",
		Fields: []murlog.Field{
			{Name: "Web", Value: "https://alice.example/"},
			{Name: "Code", Value: " https://git.example/alice "},
			{Name: "Mail", Value: "alice@example.com"},
			{Name: "Tricky", Value: "https://bank.example@evil.test/"},
			{Name: "Text", Value: "see https://x.example/"},
			{Name: "JS", Value: "javascript:alert(1)"},
		},
	}
}

func testConfig() *murlog.PubConfig {
	c := murlog.DefaultPubConfig("p1")
	c.SiteName, c.Subtitle, c.Introduction = "Wonderland", "notes from below", "A blog about falling."
	return c
}

func notePost() *murlog.Post {
	pub := testPublished
	return &murlog.Post{
		ID: "01NOTE", PersonaID: "p1", Kind: murlog.KindNote, Content: "<p>Just a short note about tea.</p>",
		Visibility: murlog.VisibilityPublic, Language: "en", Tags: []string{"tea"},
		PublishedAt: &pub, CreatedAt: testPublished, UpdatedAt: testPublished,
	}
}

func articlePost() *murlog.Post {
	pub := testPublished
	return &murlog.Post{
		ID: "01ART", PersonaID: "p1", Kind: murlog.KindArticle, Title: "Down the Rabbit Hole",
		Content:    `<p><img src="/media/posts/hole.png" alt=""></p><p>It was a long fall.</p>`,
		Visibility: murlog.VisibilityPublic, Language: "ja", Tags: []string{"rabbit", "fall"},
		PublishedAt: &pub, CreatedAt: testPublished, UpdatedAt: testUpdated,
	}
}

// content returns the content of the <meta> named key (by name or
// property) and how many there are.
func content(m Meta, key string) (string, int) {
	var first string
	n := 0
	for _, t := range m.Tags {
		if t.Name == key || t.Property == key {
			if n == 0 {
				first = t.Content
			}
			n++
		}
	}
	return first, n
}

func wantTags(t *testing.T, label string, m Meta, want map[string]string) {
	t.Helper()
	for k, v := range want {
		got, n := content(m, k)
		switch {
		case v == "" && n != 0:
			t.Errorf("%s: <meta %s> = %q; want none", label, k, got)
		case v != "" && n == 0:
			t.Errorf("%s: no <meta %s>; want %q", label, k, v)
		case v != "" && got != v:
			t.Errorf("%s: <meta %s> = %q; want %q", label, k, got, v)
		}
	}
	for _, tag := range m.Tags {
		if (tag.Name == "") == (tag.Property == "") {
			t.Errorf("%s: tag %+v must set exactly one of Name and Property", label, tag)
		}
		if tag.Content == "" {
			t.Errorf("%s: tag %+v has no content", label, tag)
		}
	}
}

func hasLink(m Meta, rel, typ, href string) bool {
	for _, l := range m.Links {
		if l.Rel == rel && l.Type == typ && l.Href == href {
			return true
		}
	}
	return false
}

// ld parses the JSON-LD block back.
func ld(t *testing.T, m Meta) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(m.JSONLD), &v); err != nil {
		t.Fatalf("JSON-LD %q does not parse: %v", m.JSONLD, err)
	}
	if v["@context"] != "https://schema.org" {
		t.Errorf("JSON-LD @context = %v; want https://schema.org", v["@context"])
	}
	return v
}

func obj(t *testing.T, v any, key string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)[key].(map[string]any)
	if !ok {
		t.Fatalf("JSON-LD %s is %T; want an object", key, v.(map[string]any)[key])
	}
	return m
}

func TestBuildNote(t *testing.T) {
	post := notePost()
	m := Build(Input{
		Site: testSite, Kind: "post", Lang: "en", Persona: testPersona(), Config: testConfig(),
		SiteName: "Wonderland", Post: post, Description: "Just a short note about tea.",
		Canonical: "https://blog.example/@alice/01NOTE?mode=plain#top", AuthorName: "Alice Liddell",
		FeedRSS: "/@alice/feed.rss", FeedAtom: "/@alice/feed.atom",
	})
	if want := "Just a short note about tea. | Wonderland"; m.Title != want {
		t.Errorf("note Title = %q; want %q", m.Title, want)
	}
	if m.Canonical != "https://blog.example/@alice/01NOTE" {
		t.Errorf("note Canonical = %q; want the URL without query and fragment", m.Canonical)
	}
	if m.Robots != "" || m.GA != nil {
		t.Errorf("note Robots = %q, GA = %+v; want none", m.Robots, m.GA)
	}
	wantTags(t, "note", m, map[string]string{
		"og:type": "article", "og:title": "Just a short note about tea.", "og:description": "Just a short note about tea.",
		"og:url": "https://blog.example/@alice/01NOTE", "og:site_name": "Wonderland", "og:locale": "en_US",
		"og:image": "", "twitter:card": "summary", "twitter:image": "",
		"twitter:title": "Just a short note about tea.", "twitter:description": "Just a short note about tea.",
		"article:published_time": "2026-11-30T03:00:00Z", "article:modified_time": "2026-11-30T03:00:00Z",
		"article:author": "https://blog.example/@alice", "article:tag": "tea",
		"author": "Alice Liddell", "fediverse:creator": "@alice@blog.example",
		"DC.title": "Just a short note about tea.", "DC.date": "2026-11-30T03:00:00Z",
		"DC.creator": "Alice Liddell", "DC.language": "en",
	})
	for _, l := range []struct{ rel, typ, href string }{
		{"schema.DC", "", "http://purl.org/dc/elements/1.1/"},
		{"alternate", "application/activity+json", "https://blog.example/@alice/01NOTE"},
		{"alternate", "application/rss+xml", "https://blog.example/@alice/feed.rss"},
		{"alternate", "application/atom+xml", "https://blog.example/@alice/feed.atom"},
		{"me", "", "https://alice.example/"},
	} {
		if !hasLink(m, l.rel, l.typ, l.href) {
			t.Errorf("note Links %+v lack rel=%q type=%q href=%q", m.Links, l.rel, l.typ, l.href)
		}
	}
	for _, l := range m.Links {
		if l.Type == "application/rss+xml" && l.Title != "Wonderland (RSS)" {
			t.Errorf("RSS link title = %q; want %q", l.Title, "Wonderland (RSS)")
		}
	}
	v := ld(t, m)
	if v["@type"] != "BlogPosting" || v["headline"] != "Just a short note about tea." ||
		v["datePublished"] != "2026-11-30T03:00:00Z" || v["url"] != m.Canonical || v["inLanguage"] != "en" {
		t.Errorf("note JSON-LD = %s", m.JSONLD)
	}
	if _, ok := v["image"]; ok {
		t.Errorf("note JSON-LD has an image: %s", m.JSONLD)
	}
	author := obj(t, v, "author")
	if author["@type"] != "Person" || author["name"] != "Alice Liddell" || author["url"] != "https://blog.example/@alice" {
		t.Errorf("note JSON-LD author = %v", author)
	}
	if page := obj(t, v, "mainEntityOfPage"); page["@type"] != "WebPage" || page["@id"] != m.Canonical {
		t.Errorf("note JSON-LD mainEntityOfPage = %v", page)
	}
	if kw, _ := v["keywords"].([]any); len(kw) != 1 || kw[0] != "tea" {
		t.Errorf("note JSON-LD keywords = %v; want [tea]", v["keywords"])
	}
}

func TestBuildNoteWithoutTitleOrDescription(t *testing.T) {
	long := strings.Repeat("とても長いメモの本文です。", 20)
	m := Build(Input{Site: testSite, Kind: "post", Persona: testPersona(), Post: notePost(), Description: long})
	title, _, _ := strings.Cut(m.Title, " | ")
	if n := len([]rune(title)); n > noteTitleLen+1 || !strings.HasSuffix(title, "…") {
		t.Errorf("note title from a long text = %q (%d characters); want an excerpt ≤ %d with …", title, n, noteTitleLen)
	}
	if !strings.HasSuffix(m.Title, " | Alice Liddell") {
		t.Errorf("Title = %q; want the display name as the site name when none is set", m.Title)
	}
	if n := len([]rune(m.Description)); n > descriptionLen+1 {
		t.Errorf("Description has %d characters; want ≤ %d", n, descriptionLen+1)
	}
	if m.Canonical != "https://blog.example/@alice/01NOTE" {
		t.Errorf("derived Canonical = %q", m.Canonical)
	}
	if _, n := content(m, "og:locale"); n != 1 {
		t.Errorf("og:locale missing; the post's language should stand in for the page's")
	}
}

func TestBuildPostFallbacks(t *testing.T) {
	m := Build(Input{Site: testSite, Kind: "post", Persona: testPersona(), Post: notePost()})
	if m.Title != "Just a short note about tea. | Alice Liddell" || m.Description != "Just a short note about tea." {
		t.Errorf("note without loader texts: Title %q, Description %q; want the post's text", m.Title, m.Description)
	}
	empty := notePost()
	empty.Content = ""
	m = Build(Input{Site: testSite, Kind: "post", Persona: testPersona(), Config: testConfig(), Post: empty})
	if m.Title != "01NOTE | Wonderland" || m.Description != "A blog about falling." {
		t.Errorf("post without text: Title %q, Description %q; want the id as title, the introduction as description", m.Title, m.Description)
	}
	cw := notePost()
	cw.Summary, cw.Sensitive, cw.Content = "Spoilers for chapter 12", true, "<p>The cat was the Queen all along.</p>"
	m = Build(Input{Site: testSite, Kind: "post", Persona: testPersona(), Post: cw})
	if strings.Contains(m.Title+m.Description+m.JSONLD, "Queen") {
		t.Errorf("the text behind a content warning leaked: Title %q, Description %q", m.Title, m.Description)
	}
	if m.Description != "Spoilers for chapter 12" {
		t.Errorf("content-warned post Description = %q; want the warning", m.Description)
	}
}

func TestBuildArticleWithImage(t *testing.T) {
	post := articlePost()
	in := Input{
		Site: testSite, Kind: "post", Lang: "ja", Persona: testPersona(), Config: testConfig(),
		SiteName: "Wonderland", Post: post, Title: post.Title, Description: "It was a long fall.",
		Image: "/media/posts/hole.png", Canonical: "https://blog.example/@alice/01ART",
		AuthorName: "Alice", AvatarURL: "/media/avatars/alice.png", GAMeasurementID: "G-TEST123",
		NoAI: true,
	}
	m := Build(in)
	if want := "Down the Rabbit Hole | Wonderland"; m.Title != want {
		t.Errorf("article Title = %q; want %q", m.Title, want)
	}
	if m.Robots != "noai, noimageai" {
		t.Errorf("article Robots = %q; want %q", m.Robots, "noai, noimageai")
	}
	wantTags(t, "article", m, map[string]string{
		"og:type": "article", "og:title": "Down the Rabbit Hole", "og:locale": "ja_JP",
		"og:image": "https://blog.example/media/posts/hole.png", "twitter:card": "summary_large_image",
		"twitter:image":          "https://blog.example/media/posts/hole.png",
		"article:published_time": "2026-11-30T03:00:00Z", "article:modified_time": "2026-12-01T08:30:00Z",
		"author": "Alice", "DC.creator": "Alice", "DC.language": "ja", "DC.date": "2026-11-30T03:00:00Z",
	})
	if _, n := content(m, "article:tag"); n != 2 {
		t.Errorf("article:tag count = %d; want 2", n)
	}
	want := &Analytics{
		MeasurementID: "G-TEST123", PageLocation: "https://blog.example/@alice/01ART",
		PageTitle: "Down the Rabbit Hole | Wonderland", ContentGroup: "murlog-alice", ContentID: "01ART", ContentType: "post",
	}
	if !reflect.DeepEqual(m.GA, want) {
		t.Errorf("article GA = %+v; want %+v", m.GA, want)
	}
	v := ld(t, m)
	if v["@type"] != "BlogPosting" || v["image"] != "https://blog.example/media/posts/hole.png" ||
		v["dateModified"] != "2026-12-01T08:30:00Z" || v["inLanguage"] != "ja" || v["description"] != "It was a long fall." {
		t.Errorf("article JSON-LD = %s", m.JSONLD)
	}
	if kw, _ := v["keywords"].([]any); !reflect.DeepEqual(kw, []any{"rabbit", "fall"}) {
		t.Errorf("article JSON-LD keywords = %v", v["keywords"])
	}

	// Without its own image the article shows the persona's avatar, a
	// square: the small card.
	in.Image = ""
	m = Build(in)
	wantTags(t, "article without image", m, map[string]string{
		"og:image": "https://blog.example/media/avatars/alice.png", "twitter:card": "summary",
		"twitter:image": "https://blog.example/media/avatars/alice.png", "og:image:width": "",
	})
	// An image that is no web URL is left out rather than written.
	in.Image, in.AvatarURL = "data:image/png;base64,AAAA", ""
	m = Build(in)
	wantTags(t, "article with a data: image", m, map[string]string{"og:image": "", "twitter:card": "summary"})
}

func TestBuildSitePage(t *testing.T) {
	in := Input{
		Site: testSite, Kind: "site", Lang: "en-GB", Persona: testPersona(), Config: testConfig(),
		SiteName: "Wonderland", Canonical: "/", AvatarURL: "https://cdn.example/alice.png",
		GAMeasurementID: "G-SITE", NoIndex: true, NoAI: true,
		FeedRSS: "https://blog.example/@alice/feed.rss",
	}
	m := Build(in)
	if m.Title != "Wonderland – notes from below" {
		t.Errorf("site Title = %q; want %q", m.Title, "Wonderland – notes from below")
	}
	if m.Canonical != "https://blog.example/" {
		t.Errorf("site Canonical = %q; want the absolute form of /", m.Canonical)
	}
	if m.Description != "A blog about falling." {
		t.Errorf("site Description = %q; want the introduction", m.Description)
	}
	if m.Robots != "noindex, nofollow, noai, noimageai" {
		t.Errorf("site Robots = %q", m.Robots)
	}
	wantTags(t, "site", m, map[string]string{
		"og:type": "profile", "og:title": "Wonderland", "og:locale": "en_GB", "profile:username": "alice",
		"og:image": "https://cdn.example/alice.png", "article:published_time": "", "article:author": "",
		"DC.date": "", "fediverse:creator": "@alice@blog.example", "author": "Alice Liddell",
	})
	if !hasLink(m, "alternate", "application/activity+json", "https://blog.example/@alice") {
		t.Errorf("site Links %+v lack the actor JSON", m.Links)
	}
	want := &Analytics{
		MeasurementID: "G-SITE", PageLocation: "https://blog.example/", PageTitle: "Wonderland – notes from below",
		ContentGroup: "murlog-alice", ContentID: "alice", ContentType: "site",
	}
	if !reflect.DeepEqual(m.GA, want) {
		t.Errorf("site GA = %+v; want %+v", m.GA, want)
	}
	v := ld(t, m)
	if v["@type"] != "ProfilePage" || v["url"] != "https://blog.example/" || v["name"] != "Wonderland" {
		t.Errorf("site JSON-LD = %s", m.JSONLD)
	}
	p := obj(t, v, "mainEntity")
	if p["@type"] != "Person" || p["name"] != "Alice Liddell" || p["alternateName"] != "@alice@blog.example" ||
		p["url"] != "https://blog.example/@alice" || p["image"] != "https://cdn.example/alice.png" ||
		p["description"] != "Writes about rabbits. And holes." {
		t.Errorf("site JSON-LD mainEntity = %v", p)
	}
	if same, _ := p["sameAs"].([]any); !reflect.DeepEqual(same, []any{"https://alice.example/", "https://git.example/alice"}) {
		t.Errorf("site JSON-LD sameAs = %v", p["sameAs"])
	}

	// No config: the display name names the site, the bio describes it.
	m = Build(Input{Site: testSite, Kind: "site", Persona: testPersona()})
	if m.Title != "Alice Liddell" || m.Description != "Writes about rabbits. And holes." || m.Canonical != "https://blog.example/@alice" {
		t.Errorf("site without config: Title %q, Description %q, Canonical %q", m.Title, m.Description, m.Canonical)
	}
	if _, n := content(m, "og:locale"); n != 0 {
		t.Errorf("og:locale written for an unknown language")
	}
}

func TestBuildRelMe(t *testing.T) {
	m := Build(Input{Site: testSite, Kind: "site", Persona: testPersona()})
	var got []string
	for _, l := range m.Links {
		if l.Rel == "me" {
			got = append(got, l.Href)
		}
	}
	want := []string{"https://alice.example/", "https://git.example/alice"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rel=me links = %q; want %q (mail, text, user-info and javascript: values are not links)", got, want)
	}
}

func TestBuildTagAndSearch(t *testing.T) {
	m := Build(Input{
		Site: testSite, Kind: "tag", Lang: "ja", Persona: testPersona(), SiteName: "Wonderland", Tag: "お茶",
		GAMeasurementID: "G-T", FeedAtom: "/tags/%E3%81%8A%E8%8C%B6/feed.atom",
	})
	if m.Title != "#お茶 | Wonderland" || m.Canonical != "https://blog.example/tags/%E3%81%8A%E8%8C%B6" {
		t.Errorf("tag Title %q, Canonical %q", m.Title, m.Canonical)
	}
	wantTags(t, "tag", m, map[string]string{"og:type": "website", "og:locale": "ja_JP"})
	if m.GA == nil || m.GA.ContentType != "site" || m.GA.ContentID != "alice" || m.GA.ContentGroup != "murlog-alice" {
		t.Errorf("tag GA = %+v; want content_type site, content_id alice", m.GA)
	}
	for _, l := range m.Links {
		if l.Type == "application/activity+json" {
			t.Errorf("tag page has an ActivityPub alternate %+v", l)
		}
		if l.Type == "application/atom+xml" && l.Title != "#お茶 | Wonderland (Atom)" {
			t.Errorf("tag feed title = %q", l.Title)
		}
	}
	if v := ld(t, m); v["@type"] != "CollectionPage" {
		t.Errorf("tag JSON-LD = %s", m.JSONLD)
	}

	m = Build(Input{Site: testSite, Kind: "search", Lang: "ja", Persona: testPersona(), SiteName: "Wonderland",
		Query: "紅茶  ", Canonical: "https://blog.example/@alice/search?q=x"})
	if m.Title != "検索: 紅茶 | Wonderland" || m.Canonical != "https://blog.example/@alice/search" {
		t.Errorf("search Title %q, Canonical %q", m.Title, m.Canonical)
	}
	if v := ld(t, m); v["@type"] != "SearchResultsPage" {
		t.Errorf("search JSON-LD = %s", m.JSONLD)
	}

	m = Build(Input{Site: testSite, Kind: "error", Persona: testPersona(), SiteName: "Wonderland", Title: "Page not found", GAMeasurementID: "G-E"})
	if m.Title != "Page not found | Wonderland" || m.JSONLD != "" || m.Canonical != "" || m.GA != nil {
		t.Errorf("error page: Title %q, JSON-LD %q, Canonical %q, GA %+v; want no JSON-LD, canonical or page_view", m.Title, m.JSONLD, m.Canonical, m.GA)
	}
	if _, n := content(m, "og:url"); n != 0 {
		t.Errorf("error page has an og:url")
	}
}

// TestBuildInjection: Build returns plain text (the template escapes
// it), but the JSON-LD goes out raw inside a <script>, so no value may
// close it or open a comment there.
func TestBuildInjection(t *testing.T) {
	evil := `</script><script>alert("x")</script><!-- & -->`
	p := testPersona()
	p.DisplayName, p.Summary = evil, evil
	post := articlePost()
	post.Tags = []string{evil}
	for _, in := range []Input{
		{Site: testSite, Kind: "post", Persona: p, Post: post, Title: evil, Description: evil, SiteName: evil, AuthorName: evil},
		{Site: testSite, Kind: "site", Persona: p, SiteName: evil, Description: evil},
		{Site: testSite, Kind: "tag", Persona: p, Tag: evil},
		{Site: testSite, Kind: "search", Persona: p, Query: evil},
	} {
		m := Build(in)
		if strings.ContainsAny(m.JSONLD, "<>&") || strings.Contains(strings.ToLower(m.JSONLD), "</script") {
			t.Errorf("%s: JSON-LD holds raw markup: %s", in.Kind, m.JSONLD)
		}
		v := ld(t, m)
		found := false
		for _, val := range []any{v["headline"], v["name"]} {
			if s, _ := val.(string); strings.Contains(s, `</script><script>alert("x")`) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: JSON-LD lost the text (it must be escaped, not removed): %s", in.Kind, m.JSONLD)
		}
		if !strings.Contains(m.Title, "</script>") {
			t.Errorf("%s: Title = %q; Build must leave escaping to the template", in.Kind, m.Title)
		}
	}
	// Line breaks in names never reach a one-line head value.
	m := Build(Input{Site: testSite, Kind: "post", Persona: testPersona(), Post: notePost(), Title: "a\nb\r\nc", SiteName: "x\ty"})
	if m.Title != "a b c | x y" {
		t.Errorf("Title = %q; want white space collapsed", m.Title)
	}
}

func TestRobots(t *testing.T) {
	for _, tt := range []struct {
		noIndex, noAI bool
		want          string
	}{{false, false, ""}, {true, false, "noindex, nofollow"}, {false, true, "noai, noimageai"}, {true, true, "noindex, nofollow, noai, noimageai"}} {
		if got := Build(Input{Site: testSite, NoIndex: tt.noIndex, NoAI: tt.noAI}).Robots; got != tt.want {
			t.Errorf("Robots(noIndex %v, noAI %v) = %q; want %q", tt.noIndex, tt.noAI, got, tt.want)
		}
	}
}

func TestIsLink(t *testing.T) {
	for _, tt := range []struct {
		in, href string
		ok       bool
	}{
		{"https://example.com/", "https://example.com/", true},
		{"http://example.com", "http://example.com", true},
		{"  https://example.com/a?b=c#d  ", "https://example.com/a?b=c#d", true},
		{"HTTPS://Example.com/x", "https://Example.com/x", true},
		{"https://example.com:8443/p", "https://example.com:8443/p", true},
		{"https://例え.jp/パス", "https://例え.jp/%E3%83%91%E3%82%B9", true},
		{"https://[2001:db8::1]:8080/", "https://[2001:db8::1]:8080/", true},
		{"https://192.0.2.1/", "https://192.0.2.1/", true},
		{"https://under_score.example/", "", false},
		{"https://-bad.example/", "", false},
		{"https://example.com./", "https://example.com./", true},
		{"", "", false},
		{"example.com", "", false},
		{"//example.com/", "", false},
		{"ftp://example.com/", "", false},
		{"javascript:alert(1)", "", false},
		{"mailto:a@example.com", "", false},
		{"https://", "", false},
		{"https:///path", "", false},
		{"https:example.com", "", false},
		{"https://user:pw@example.com/", "", false},
		{"https://bank.example@evil.test/", "", false},
		{"https://example.com/ with text", "", false},
		{"see https://example.com/", "", false},
		{`https://example.com/"onmouseover="x`, "", false},
		{"https://example.com/<script>", "", false},
		{"https://exa mple.com/", "", false},
		{"https://example.com:port/", "", false},
		{"https://example.com:/", "", false},
		{"https://.example.com/", "", false},
		{"https://example.com/\n", "https://example.com/", true},
		{"https://example.com/\x00", "", false},
		{"https://" + strings.Repeat("a", 2100) + ".com/", "", false},
	} {
		href, ok := IsLink(tt.in)
		if href != tt.href || ok != tt.ok {
			t.Errorf("IsLink(%q) = %q, %v; want %q, %v", tt.in, href, ok, tt.href, tt.ok)
		}
	}
}

func TestOGLocale(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"ja", "ja_JP"}, {"en", "en_US"}, {"en-GB", "en_GB"}, {"en-gb", "en_GB"}, {"EN_us", "en_US"},
		{"pt-BR", "pt_BR"}, {"pt", "pt_PT"}, {"zh-Hant", "zh_TW"}, {"zh-Hans-CN", "zh_CN"}, {"zh-Hant-HK", "zh_HK"},
		{"es-419", "es_LA"}, {"sr-Latn", "sr_RS"}, {"de-CH-1996", "de_CH"}, {"ko", "ko_KR"},
		{"", ""}, {"x", ""}, {"tlh", ""}, {"123", ""}, {"ja-", "ja_JP"}, {"en-US-x-private", "en_US"}, {"qq", ""},
	} {
		if got := OGLocale(tt.in); got != tt.want {
			t.Errorf("OGLocale(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func BenchmarkBuildPost(b *testing.B) {
	in := Input{
		Site: testSite, Kind: "post", Lang: "ja", Persona: testPersona(), Config: testConfig(),
		SiteName: "Wonderland", Post: articlePost(), Title: "Down the Rabbit Hole", Description: "It was a long fall.",
		Image: "/media/posts/hole.png", Canonical: "https://blog.example/@alice/01ART", AuthorName: "Alice",
		GAMeasurementID: "G-TEST", FeedRSS: "/@alice/feed.rss", FeedAtom: "/@alice/feed.atom",
	}
	b.ReportAllocs()
	for b.Loop() {
		Build(in)
	}
}

// TestBuildDefaultImage: a page with no image of its own and a persona
// without an avatar shows the theme's default image, 1200×630 in a large
// card, on every kind of page; and every page has a description, down to
// "Posts by <name>" when the persona wrote none.
func TestBuildDefaultImage(t *testing.T) {
	bare := &murlog.Persona{ID: "p2", Username: "bob", DisplayName: "Bob"}
	const def = "/themes/default/og-image.0123456789.png"
	for _, in := range []Input{
		{Kind: "post", Post: notePost()},
		{Kind: "site"},
		{Kind: "tag", Tag: "tea"},
		{Kind: "search", Query: "tea"},
		{Kind: "error", Title: "Page not found"},
	} {
		in.Site, in.Persona, in.DefaultImage = testSite, bare, def
		m := Build(in)
		wantTags(t, in.Kind, m, map[string]string{
			"og:image": "https://blog.example" + def, "og:image:width": "1200", "og:image:height": "630",
			"twitter:card": "summary_large_image", "twitter:image": "https://blog.example" + def,
		})
		if d, _ := content(m, "og:description"); d == "" || d != m.Description {
			t.Errorf("%s page: og:description %q, description %q; want one", in.Kind, d, m.Description)
		}
		if in.Kind == "site" && m.Description != "Posts by Bob" {
			t.Errorf("site page of a persona with no texts: description %q; want %q", m.Description, "Posts by Bob")
		}
		if in.Kind == "post" {
			if v := ld(t, m); v["image"] != "https://blog.example"+def {
				t.Errorf("post JSON-LD image = %v; want the default image", v["image"])
			}
		}
		in.AvatarURL = "/media/avatars/bob.png" // an avatar comes first
		wantTags(t, in.Kind+" with an avatar", Build(in), map[string]string{
			"og:image": "https://blog.example/media/avatars/bob.png", "og:image:width": "", "twitter:card": "summary",
		})
	}
	m := Build(Input{Site: testSite, Kind: "site", Lang: "ja", Persona: bare})
	if m.Description != "Bobの投稿" {
		t.Errorf("Japanese site page with no texts: description %q; want %q", m.Description, "Bobの投稿")
	}
	c := murlog.DefaultPubConfig("p2")
	c.Subtitle = "a tagline"
	if m := Build(Input{Site: testSite, Kind: "tag", Tag: "x", Persona: bare, Config: c}); m.Description != "a tagline" {
		t.Errorf("tag page of a site with only a subtitle: description %q; want the subtitle", m.Description)
	}
}
