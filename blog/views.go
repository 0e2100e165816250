package blog

import (
	"encoding/json"
	"html"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog/meta"
	"github.com/murlog/murlog/internal/lru"
	"github.com/murlog/murlog/markup"
	"github.com/murlog/murlog/siteconfig"
)

// Excerpt lengths, in characters.
const (
	listTitleLen   = 80
	descriptionLen = 200
)

// Date formats of published_display, by page language.
const (
	displayEN = "Jan 2, 2006 15:04"
	displayJA = "2006年1月2日 15:04"
)

// displayTime formats t for readers of lang, in the site's time zone (UTC:
// murlog has no time-zone setting yet).
func displayTime(t time.Time, lang string) string {
	if lang == "ja" {
		return t.UTC().Format(displayJA)
	}
	return t.UTC().Format(displayEN)
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// authorOf returns the username and shown author of a post's persona:
// the scope's own persona, or another one read once per page.
func (l *Loader) authorOf(s *scope, personaID string) author {
	if personaID == s.persona.ID {
		return author{s.persona.Username, authorName(s.cfg, s.persona)}
	}
	if a, ok := s.authors[personaID]; ok {
		return a
	}
	a := author{}
	if p, err := s.tx.Personas().Get(personaID); err == nil {
		a.username = p.Username
		cfg, _, err := siteconfig.Load(s.tx, p.ID)
		if cfg == nil {
			l.log().Error("site settings unreadable", "persona", p.Username, "err", err)
			cfg = murlog.DefaultPubConfig(p.ID)
		}
		a.name = authorName(cfg, p)
	} else {
		l.log().Error("post of an unreadable persona", "persona", personaID, "err", err)
	}
	if s.authors == nil {
		s.authors = map[string]author{}
	}
	s.authors[personaID] = a
	return a
}

// postText is what the pages derive from a post's HTML: reading it as
// text is the costliest step of loading a list, so a Loader with a
// TextCache keeps the result by post id and update time (a new version of
// the post is a new key: an entry is never stale).
type postText struct{ title, description, image string }

type textKey struct {
	id      string
	updated int64
}

// texts returns p's list title, description and (articles) featured
// image, reading its HTML once for all three.
func (l *Loader) texts(p *murlog.Post) postText {
	l.textsOnce.Do(func() {
		if l.TextCache > 0 {
			l.textCache = lru.New[textKey, postText](l.TextCache)
		}
	})
	k := textKey{p.ID, p.UpdatedAt.UnixMicro()}
	if l.textCache != nil {
		if t, ok := l.textCache.Get(k); ok {
			return t
		}
	}
	// Posts keep their excerpt and image from when they were written;
	// older rows derive them here.
	text, image := p.Excerpt, p.Image
	if text == "" {
		text = markup.PlainTextPrefix(p.Content, murlog.ExcerptLen)
		if p.Kind == murlog.KindArticle {
			image = markup.FirstImage(p.Content)
		}
	}
	t := postText{description: excerptText(text, descriptionLen)}
	if p.Kind == murlog.KindArticle && p.Title != "" {
		t.title = p.Title
	} else {
		t.title = excerptText(text, listTitleLen)
	}
	if p.Kind == murlog.KindArticle {
		t.image = image
	}
	if l.textCache != nil {
		l.textCache.Put(k, t)
	}
	return t
}

// linkTitle is texts(p).title. A Loader that keeps texts derives and
// keeps all three; one that keeps nothing (CGI) cuts only the title of a
// post it shows as a link (the sidebar, prev/next), not its description
// too: with ~8 links a page, the cuts were a fifth of a cold load.
func (l *Loader) linkTitle(p *murlog.Post) string {
	switch {
	case l.TextCache > 0 || p.Excerpt == "":
		return l.texts(p).title
	case p.Kind == murlog.KindArticle && p.Title != "":
		return p.Title
	}
	return excerptText(p.Excerpt, listTitleLen)
}

// excerptText is markup.ExcerptText of PlainText output, given only the
// first n+2 characters: PlainText has collapsed the white space already,
// so the cut (which looks at most one character past n) is the same, and
// a long post's text is not walked and copied whole for 80 characters.
func excerptText(text string, n int) string {
	i, k := 0, 0
	for i < len(text) && k < n+2 {
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
		k++
	}
	return markup.ExcerptText(text[:i], n)
}

// postView builds a post as pages and the API show it. In Plain and KWIC
// lists the content is left out (the list shows a line per post); vertical
// themes get their text converted for display.
func (l *Loader) postView(s *scope, p *murlog.Post, withContent bool) PostView {
	a := l.authorOf(s, p.PersonaID)
	pt := l.texts(p)
	v := PostView{ID: p.ID, URL: l.Site.PageURL(a.username, p.ID, p.Slug), Kind: string(p.Kind),
		IsNote: p.Kind != murlog.KindArticle, IsArticle: p.Kind == murlog.KindArticle, IsPage: p.Page,
		ListTitle: pt.title, Summary: p.Summary, Sensitive: p.Sensitive || p.Summary != "",
		Description: pt.description, Language: p.Language,
		Author: a.name, AuthorURL: l.Site.PersonaURL(a.username),
		AllowComments: p.PersonaID == s.persona.ID && s.ext.CommentsMode != "" && s.ext.CommentsMode != "none"}
	if v.IsArticle {
		v.Title, v.Image = p.Title, pt.image
	}
	if withContent {
		v.ContentHTML = p.Content
	}
	if p.PublishedAt != nil {
		v.Published, v.PublishedDisplay = rfc3339(*p.PublishedAt), displayTime(*p.PublishedAt, s.lang)
		if p.UpdatedAt.After(*p.PublishedAt) {
			v.Updated = rfc3339(p.UpdatedAt)
		}
	}
	if len(p.Tags) > 0 {
		v.Tags = make([]TagLink, len(p.Tags))
		for i, t := range p.Tags {
			v.Tags[i] = TagLink{Name: t, URL: l.Site.TagURL(t)}
		}
	}
	if s.info.Vertical {
		v.ContentHTML = markup.Vertical(v.ContentHTML)
		v.Title, v.ListTitle = markup.VerticalText(v.Title), markup.VerticalText(v.ListTitle)
		v.Description, v.Summary = markup.VerticalText(v.Description), markup.VerticalText(v.Summary)
	}
	// Long addresses and words may break (an address at its slashes)
	// rather than leave a short line before them: wide gaps in justified
	// text, a word cut anywhere by the column's edge.
	v.ContentHTML = markup.BreakLongWords(v.ContentHTML)
	return v
}

func (l *Loader) postViews(s *scope, posts []*murlog.Post, mode string) []PostView {
	if len(posts) == 0 {
		return nil
	}
	out := make([]PostView, len(posts))
	for i, p := range posts {
		out[i] = l.postView(s, p, mode == ModeRich)
	}
	return out
}

// postLink is a post in a short list (sidebar, prev/next).
func (l *Loader) postLink(s *scope, p *murlog.Post) *PostLink {
	a := l.authorOf(s, p.PersonaID)
	pl := &PostLink{ID: p.ID, URL: l.Site.PageURL(a.username, p.ID, p.Slug), Title: l.linkTitle(p)}
	if p.PublishedAt != nil {
		pl.Published, pl.PublishedDisplay = rfc3339(*p.PublishedAt), displayTime(*p.PublishedAt, s.lang)
	}
	// Short lists (the sidebar, prev/next) stay horizontal in every theme,
	// so their titles are never converted for vertical writing.
	return pl
}

// profile is the persona's public profile.
func (l *Loader) profile(s *scope) *ProfileView {
	p := s.persona
	v := &ProfileView{DisplayName: p.DisplayName, Username: p.Username, Acct: "@" + p.Username + "@" + l.Site.Domain,
		SummaryHTML: textHTML(p.Summary), URL: l.Site.PersonaURL(p.Username), PostsCount: p.PostsCount,
		FollowersCount: p.FollowersCount, FollowingCount: p.FollowingCount}
	if v.DisplayName == "" {
		v.DisplayName = p.Username
	}
	v.AvatarURL = l.avatarURL(p)
	if p.HeaderPath != "" {
		v.HeaderURL = l.Site.Base() + "/media/" + p.HeaderPath
	}
	for _, f := range p.Fields {
		v.Fields = append(v.Fields, FieldView{Name: f.Name, ValueHTML: fieldHTML(f.Value)})
	}
	return v
}

// avatarURL is the persona's avatar as pages show it, "" for none: the
// profile and the head metadata (og:image) read it from here alone.
func (l *Loader) avatarURL(p *murlog.Persona) string {
	if p.AvatarPath == "" {
		return ""
	}
	return l.Site.Base() + "/media/" + p.AvatarPath
}

// textHTML is plain text as HTML: escaped, line breaks as <br>.
func textHTML(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\r\n", "\n")
	return strings.ReplaceAll(html.EscapeString(s), "\n", "<br>")
}

// fieldHTML is a profile field's value: escaped text, or a rel="me" link
// when the value is an http(s) URL (the verification Mastodon shows).
func fieldHTML(v string) string {
	v = strings.TrimSpace(v)
	href, ok := meta.IsLink(v)
	if !ok {
		return html.EscapeString(v)
	}
	return `<a href="` + html.EscapeString(href) + `" rel="me nofollow noopener">` + html.EscapeString(v) + `</a>`
}

// The share services in their fixed order.
var shareOrder = [...]string{"x", "facebook", "line", "hatena"}

// share is the share area of a post page: the enabled services in the
// fixed order, unknown ids ignored; nil when none is enabled.
func share(s *scope, canonical, title string) *Share {
	on := map[string]bool{}
	for _, id := range s.ext.ShareButtons {
		on[id] = true
	}
	u, t := url.QueryEscape(canonical), url.QueryEscape(title)
	sh := &Share{URL: canonical, Title: title, URLEncoded: u, TitleEncoded: t}
	for _, id := range shareOrder {
		if !on[id] {
			continue
		}
		b := ShareButton{ID: id}
		switch id {
		case "x":
			sh.X, b.IsX, b.Label = true, true, "X"
			b.Href = "https://twitter.com/intent/tweet?url=" + u + "&text=" + t
		case "facebook":
			sh.Facebook, b.IsFacebook, b.Label = true, true, "Facebook"
			b.Href = "https://www.facebook.com/sharer/sharer.php?u=" + u
		case "line":
			sh.LINE, b.IsLINE, b.Label = true, true, "LINE"
			b.Href = "https://social-plugins.line.me/lineit/share?url=" + u + "&text=" + t
		case "hatena":
			sh.Hatena, b.IsHatena, b.Label = true, true, s.t["hatena"]
			b.Href = "https://b.hatena.ne.jp/entry/panel/?url=" + u
		}
		sh.Buttons = append(sh.Buttons, b)
	}
	if len(sh.Buttons) == 0 {
		return nil
	}
	return sh
}

// shareIDs lists the enabled widgets for the share loader.
func shareIDs(sh *Share) []string {
	if sh == nil {
		return nil
	}
	ids := make([]string, len(sh.Buttons))
	for i, b := range sh.Buttons {
		ids[i] = b.ID
	}
	return ids
}

// DefaultImageAsset is the social image a theme ships (a 1200×630 PNG in
// its assets, listed in its files; a theme that extends default inherits
// default's): the og:image of a page with no image of its own when the
// persona has no avatar.
const DefaultImageAsset = "og-image.png"

// meta builds the head metadata of a page; canonical "" lets meta.Build
// derive it (error pages get none).
func (l *Loader) meta(s *scope, pg *Page, kind string, post *murlog.Post, title, desc, image, canonical string) meta.Meta {
	in := meta.Input{Site: l.Site, Kind: kind, Lang: s.langTag, Persona: s.persona, Config: s.cfg, SiteName: pg.Site.Name,
		Post: post, Title: title, Description: desc, Image: image, Canonical: canonical,
		AuthorName: authorName(s.cfg, s.persona), GAMeasurementID: s.ext.GAMeasurementID, NoIndex: s.noIndex, NoAI: s.noAI,
		Now: s.now, AvatarURL: l.avatarURL(s.persona), DefaultImage: l.Themes.AssetURL(s.info.Name, DefaultImageAsset)}
	switch kind {
	case "site":
		in.FeedRSS, in.FeedAtom = pg.Site.FeedRSS, pg.Site.FeedAtom
	case "post":
		in.FeedRSS, in.FeedAtom = pg.Site.FeedRSS, pg.Site.FeedAtom
		if post.Language != "" {
			in.Lang = post.Language
		}
	case "tag":
		in.FeedRSS, in.FeedAtom, in.Tag = pg.Tag.FeedRSS, pg.Tag.FeedAtom, pg.Tag.Name
	case "search":
		in.Query = pg.Search.Query
	}
	return meta.Build(in)
}

// hydrateJSON encodes the browser's data block. encoding/json escapes <,
// > and & (HTML-safe), so the text cannot close the <script> element.
func hydrateJSON(h Hydrate) string {
	b, err := json.Marshal(h)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// noindex asks robots not to index a page (search results, error pages),
// keeping the site's other robots wishes.
func noindex(m *meta.Meta) {
	switch {
	case m.Robots == "":
		m.Robots = "noindex"
	case !strings.Contains(m.Robots, "noindex"):
		m.Robots = "noindex, " + m.Robots
	}
}
