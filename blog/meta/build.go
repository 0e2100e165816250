package meta

import (
	"net/url"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/markup"
)

// Lengths of the generated texts, in characters. A note's title is an
// excerpt short enough for a browser tab and a share card; descriptions
// stay under what search engines show.
const (
	noteTitleLen   = 60
	descriptionLen = 200
)

// The vocabularies named in the head.
const (
	dcSchema       = "http://purl.org/dc/elements/1.1/"
	activityJSON   = "application/activity+json"
	timeFormat     = time.RFC3339
	contentGroupPx = "murlog-"
)

// Build returns the head metadata of one page.
func Build(in Input) Meta {
	p := newPage(in)
	m := Meta{
		Title:       p.title,
		Description: p.description,
		Canonical:   p.canonical,
		Robots:      robots(in.NoIndex, in.NoAI),
	}
	m.Tags = p.tags()
	m.Links = p.links()
	m.JSONLD = p.jsonLD()
	// Error pages send no page_view: the seed counts sites and posts,
	// and a 404 has neither a page_location nor a content_id.
	if id := strings.TrimSpace(in.GAMeasurementID); id != "" && p.kind != "error" {
		m.GA = p.analytics(id)
	}
	return m
}

// page is Input with the derived values Build's parts share.
type page struct {
	in          Input
	kind        string
	username    string
	acct        string // "@user@domain", "" without a persona
	siteName    string
	headline    string // the page's own title, without the site name
	title       string // headline | site name
	description string
	canonical   string
	image       string // absolute, "" for none
	author      string
	authorURL   string
	lang        string
	published   time.Time // posts only; zero for unpublished
	modified    time.Time
	meLinks     []string
}

func newPage(in Input) *page {
	p := &page{in: in, kind: in.Kind}
	if p.kind == "" {
		p.kind = "site"
	}
	if in.Persona != nil {
		p.username = in.Persona.Username
		p.acct = "@" + p.username + "@" + in.Site.Domain
		p.authorURL = in.Site.PersonaURL(p.username)
		for _, f := range in.Persona.Fields {
			if href, ok := IsLink(f.Value); ok {
				p.meLinks = append(p.meLinks, href)
			}
		}
	}
	p.siteName = oneLine(firstOf(in.SiteName, configSiteName(in.Config), personaName(in.Persona)))
	p.author = oneLine(firstOf(in.AuthorName, configAuthor(in.Config), personaName(in.Persona)))
	p.lang = strings.TrimSpace(in.Lang)
	if p.lang == "" && in.Post != nil {
		p.lang = in.Post.Language
	}
	p.canonical = p.canonicalURL()
	desc := in.Description
	if strings.TrimSpace(desc) == "" {
		desc = p.fallbackDescription()
	}
	p.description = markup.ExcerptText(desc, descriptionLen)
	p.headline, p.title = p.titles()
	p.image = p.absolute(firstOf(in.Image, in.AvatarURL))
	if in.Post != nil {
		if in.Post.PublishedAt != nil {
			p.published = in.Post.PublishedAt.UTC()
		}
		p.modified = p.published
		if in.Post.UpdatedAt.After(p.published) && !p.published.IsZero() {
			p.modified = in.Post.UpdatedAt.UTC()
		}
	}
	return p
}

// titles returns the page's headline and its <title>.
func (p *page) titles() (headline, title string) {
	in := p.in
	headline = oneLine(in.Title)
	switch p.kind {
	case "post":
		if headline == "" {
			// A note's title is its text (never the site's introduction
			// that stands in for a description of a post without text).
			text := in.Description
			if strings.TrimSpace(text) == "" {
				text = p.postText()
			}
			headline = markup.ExcerptText(text, noteTitleLen)
		}
		if headline == "" && in.Post != nil {
			headline = in.Post.ID
		}
	case "tag":
		if headline == "" && in.Tag != "" {
			headline = "#" + oneLine(in.Tag)
		}
	case "search":
		if headline == "" {
			headline = searchWord(p.lang)
			if q := oneLine(in.Query); q != "" {
				headline += ": " + q
			}
		}
	case "site":
		// The site's own page: its name, and the subtitle after a dash in
		// the <title> only (a share card shows the name).
		if headline == "" {
			headline = p.siteName
		}
		title = headline
		if sub := oneLine(configSubtitle(in.Config)); sub != "" && title != "" {
			title += " – " + sub
		}
		return headline, title
	}
	switch {
	case headline == "":
		return p.siteName, p.siteName
	case p.siteName == "":
		return headline, headline
	}
	return headline, headline + " | " + p.siteName
}

// fallbackDescription describes a page the loader gave no description:
// a post by its text, any other page by the site's introduction, else
// the persona's bio.
func (p *page) fallbackDescription() string {
	if t := p.postText(); t != "" {
		return t
	}
	if p.in.Config != nil && strings.TrimSpace(p.in.Config.Introduction) != "" {
		return p.in.Config.Introduction
	}
	if p.in.Persona != nil {
		return p.in.Persona.Summary
	}
	return ""
}

// postText is what a post page says about its post when the loader said
// nothing: the content warning of a post that has one (the text behind it
// must not show up in a share card), else the post's text.
func (p *page) postText() string {
	post := p.in.Post
	switch {
	case p.kind != "post" || post == nil:
		return ""
	case strings.TrimSpace(post.Summary) != "":
		return post.Summary
	}
	return markup.PlainText(post.Content)
}

// canonicalURL is the page's absolute URL without query or fragment. An
// error page has none unless the loader gives one: it stands for no
// document, and pointing it at the home page would call the two the same.
func (p *page) canonicalURL() string {
	in := p.in
	c := strings.TrimSpace(in.Canonical)
	if c == "" {
		switch {
		case p.kind == "error":
			return ""
		case p.kind == "post" && in.Post != nil && p.username != "":
			c = in.Site.PageURL(p.username, in.Post.ID, in.Post.Slug)
		case p.kind == "tag" && in.Tag != "":
			c = in.Site.TagURL(in.Tag)
		case p.kind == "site" && p.username != "":
			c = in.Site.PersonaURL(p.username)
		case p.kind == "search" && p.username != "":
			c = in.Site.PersonaURL(p.username) + "/search"
		default:
			c = "/"
		}
	}
	if i := strings.IndexAny(c, "?#"); i >= 0 {
		c = c[:i]
	}
	if abs := p.absolute(c); abs != "" {
		return abs
	}
	return in.Site.Base() + "/"
}

// absolute resolves ref (absolute, or relative to the site) to an
// absolute http(s) URL; "" when it is not one (a data: URI, garbage).
func (p *page) absolute(ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if !u.IsAbs() {
		base, err := url.Parse(p.in.Site.Base() + "/")
		if err != nil {
			return ""
		}
		u = base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// tags returns the <meta> elements in a fixed order: Open Graph, article,
// Twitter Card, author and fediverse:creator, Dublin Core.
func (p *page) tags() []Tag {
	t := make(tagList, 0, 24) // a post page's count, grown once at most
	og := "website"
	switch {
	case p.kind == "post" && p.in.Post != nil:
		og = "article"
	case p.kind == "site" && p.username != "":
		og = "profile"
	}
	t.prop("og:type", og)
	t.prop("og:title", p.headline)
	t.prop("og:description", p.description)
	t.prop("og:url", p.canonical)
	t.prop("og:site_name", p.siteName)
	t.prop("og:locale", OGLocale(p.lang))
	if p.image != "" {
		t.prop("og:image", p.image)
	}
	switch og {
	case "article":
		if !p.published.IsZero() {
			t.prop("article:published_time", p.published.Format(timeFormat))
			t.prop("article:modified_time", p.modified.Format(timeFormat))
		}
		t.prop("article:author", p.authorURL)
		for _, tag := range p.in.Post.Tags {
			t.prop("article:tag", oneLine(tag))
		}
	case "profile":
		t.prop("profile:username", p.username)
	}
	card := "summary"
	if p.image != "" {
		card = "summary_large_image"
	}
	t.name("twitter:card", card)
	t.name("twitter:title", p.headline)
	t.name("twitter:description", p.description)
	if p.image != "" {
		t.name("twitter:image", p.image)
	}
	t.name("author", p.author)
	t.name("fediverse:creator", p.acct)
	t.name("DC.title", p.headline)
	if og == "article" && !p.published.IsZero() {
		t.name("DC.date", p.published.Format(timeFormat)) // W3CDTF is this profile of ISO 8601
	}
	t.name("DC.creator", p.author)
	t.name("DC.language", p.lang)
	return t
}

// tagList collects <meta> elements, leaving out empty contents.
type tagList []Tag

func (t *tagList) prop(property, content string) {
	if content != "" {
		*t = append(*t, Tag{Property: property, Content: content})
	}
}

func (t *tagList) name(name, content string) {
	if content != "" {
		*t = append(*t, Tag{Name: name, Content: content})
	}
}

// links returns the <link> elements: the Dublin Core schema, the
// ActivityPub JSON of the page, the feeds and the rel="me" links.
func (p *page) links() []Link {
	links := make([]Link, 1, 4+len(p.meLinks))
	links[0] = Link{Rel: "schema.DC", Href: dcSchema}
	switch {
	case p.kind == "post" && p.in.Post != nil && p.username != "" && !p.in.Post.Page:
		// The post's id, where ActivityPub clients get its JSON (a page,
		// never federated, has none).
		links = append(links, Link{Rel: "alternate", Type: activityJSON, Href: p.in.Site.PostURL(p.username, p.in.Post.ID)})
	case p.kind == "site" && p.username != "":
		links = append(links, Link{Rel: "alternate", Type: activityJSON, Href: p.in.Site.ActorURL(p.username)})
	}
	feedTitle := p.siteName
	if p.kind == "tag" && p.in.Tag != "" {
		feedTitle = "#" + oneLine(p.in.Tag)
		if p.siteName != "" {
			feedTitle += " | " + p.siteName
		}
	}
	if href := p.absolute(p.in.FeedRSS); href != "" {
		links = append(links, Link{Rel: "alternate", Type: "application/rss+xml", Href: href, Title: feedTitle + " (RSS)"})
	}
	if href := p.absolute(p.in.FeedAtom); href != "" {
		links = append(links, Link{Rel: "alternate", Type: "application/atom+xml", Href: href, Title: feedTitle + " (Atom)"})
	}
	for _, href := range p.meLinks {
		links = append(links, Link{Rel: "me", Href: href})
	}
	return links
}

// analytics is the page_view of the seed, with murlog's content group.
func (p *page) analytics(id string) *Analytics {
	a := &Analytics{
		MeasurementID: id, PageLocation: p.canonical, PageTitle: p.title,
		ContentGroup: contentGroupPx + p.username, ContentID: p.username, ContentType: "site",
	}
	if p.kind == "post" && p.in.Post != nil {
		a.ContentID, a.ContentType = p.in.Post.ID, "post"
	}
	return a
}

// robots is the robots meta content of the site's settings. "noai" and
// "noimageai" are the DeviantArt-born directives some AI crawlers honour;
// robots.txt names the others (feed.Robots).
func robots(noIndex, noAI bool) string {
	var parts []string
	if noIndex {
		parts = append(parts, "noindex", "nofollow")
	}
	if noAI {
		parts = append(parts, "noai", "noimageai")
	}
	return strings.Join(parts, ", ")
}

// searchWord names a search page without a title from the loader.
func searchWord(lang string) string {
	if primaryLanguage(lang) == "ja" {
		return "検索"
	}
	return "Search"
}

func firstOf(values ...string) string {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// oneLine collapses the white space of a name or title into single
// spaces: a head value is one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func personaName(p *murlog.Persona) string {
	if p == nil {
		return ""
	}
	return firstOf(p.DisplayName, p.Username)
}

func configSiteName(c *murlog.PubConfig) string {
	if c == nil {
		return ""
	}
	return c.SiteName
}

func configAuthor(c *murlog.PubConfig) string {
	if c == nil {
		return ""
	}
	return c.Author
}

func configSubtitle(c *murlog.PubConfig) string {
	if c == nil {
		return ""
	}
	return c.Subtitle
}
