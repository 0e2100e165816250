package blog

import (
	"context"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog/feed"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/store"
)

// FeedSize is how many posts a feed carries: the newest listed ones.
const FeedSize = 20

// MaxSitemapURLs is the sitemaps.org limit of one file.
const MaxSitemapURLs = 50_000

// FeedDoc is a loaded feed, rendered as RSS or Atom by RenderFeed.
type FeedDoc struct {
	Channel feed.Channel
	Items   []feed.Item
	// RSS and Atom are the two URLs of the feed; Self is set from them.
	RSS, Atom string
}

// Feed loads a persona's feed, or a tag's when tag is set (username is
// then ignored). An unknown persona or a malformed tag is ENotFound.
func (l *Loader) Feed(ctx context.Context, username, tag string) (*FeedDoc, error) {
	var doc *FeedDoc
	err := l.view(ctx, func(tx store.Tx) error {
		s, err := l.open(tx, username)
		if err != nil {
			return err
		}
		q := store.PublicQuery{PersonaID: s.persona.ID, Now: s.now, Limit: FeedSize}
		doc = &FeedDoc{Channel: feed.Channel{Title: siteName(s), Description: l.description(s), Link: l.Site.PersonaURL(s.persona.Username),
			Lang: s.langTag, Author: authorName(s.cfg, s.persona)}}
		doc.RSS, doc.Atom = doc.Channel.Link+"/feed.rss", doc.Channel.Link+"/feed.atom"
		if tag != "" {
			tag = strings.TrimPrefix(tag, "#")
			if !validTag(tag) {
				return murlog.NotFound("tag")
			}
			q.PersonaID, q.Tag = "", tag
			base := l.Site.TagURL(tag)
			doc.Channel.Title, doc.Channel.Description, doc.Channel.Link, doc.Channel.Author = "#"+tag+" — "+siteName(s), "", base, ""
			doc.RSS, doc.Atom = base+"/feed.rss", base+"/feed.atom"
		}
		posts, err := tx.PublicPosts().List(q)
		if err != nil {
			return err
		}
		for _, p := range posts {
			doc.Items = append(doc.Items, l.feedItem(s, p))
		}
		if len(doc.Items) > 0 {
			doc.Channel.Updated = doc.Items[0].Updated
			for _, it := range doc.Items {
				if it.Updated.After(doc.Channel.Updated) {
					doc.Channel.Updated = it.Updated
				}
			}
		}
		return nil
	})
	return doc, err
}

// feedItem is a post in a feed: its stored HTML, never the display form
// of a vertical theme.
func (l *Loader) feedItem(s *scope, p *murlog.Post) feed.Item {
	a := l.authorOf(s, p.PersonaID)
	// The item's id stays the post's stable address, so a reader does
	// not see an article anew when its slug changes; the link is its page.
	it := feed.Item{ID: l.Site.PostURL(a.username, p.ID), Link: l.Site.PageURL(a.username, p.ID, p.Slug), ContentHTML: p.Content, Summary: l.texts(p).description, Author: a.name, Tags: p.Tags,
		Published: *p.PublishedAt, Updated: *p.PublishedAt}
	if p.Kind == murlog.KindArticle {
		it.Title = p.Title // a note's title is the feed writer's excerpt
	}
	if p.UpdatedAt.After(it.Updated) {
		it.Updated = p.UpdatedAt
	}
	return it
}

// Sitemap loads sitemap.xml's URLs: the site pages, then the listed
// posts and the pages of the site menu (a page is content search engines
// should find), newest first, each at its page address.
func (l *Loader) Sitemap(ctx context.Context) ([]feed.URL, error) {
	var urls []feed.URL
	err := l.view(ctx, func(tx store.Tx) error {
		ps, err := tx.Personas().List()
		if err != nil {
			return err
		}
		urls = append(urls, feed.URL{Loc: l.Site.Base() + "/"})
		for _, p := range ps {
			urls = append(urls, feed.URL{Loc: l.Site.PersonaURL(p.Username)})
		}
		entries, err := tx.PublicPosts().Sitemap(l.now(tx), MaxSitemapURLs-len(urls))
		if err != nil {
			return err
		}
		for _, e := range entries {
			lm := e.PublishedAt
			if e.UpdatedAt.After(lm) {
				lm = e.UpdatedAt
			}
			urls = append(urls, feed.URL{Loc: l.Site.PageURL(e.Username, e.ID, e.Slug), LastMod: lm})
		}
		return nil
	})
	return urls, err
}

// RobotsDoc is what robots.txt says.
type RobotsDoc struct {
	NoIndex, NoAI bool
	SitemapURL    string
}

// Robots loads the site's robots settings (robots_noai is on unless set
// off, as in package settings).
func (l *Loader) Robots(ctx context.Context) (*RobotsDoc, error) {
	var doc *RobotsDoc
	err := l.view(ctx, func(tx store.Tx) error {
		m, err := tx.Settings().GetMany(settings.KeyRobotsNoindex, settings.KeyRobotsNoAI)
		if err != nil {
			return err
		}
		doc = &RobotsDoc{NoIndex: m[settings.KeyRobotsNoindex] == "1", NoAI: m[settings.KeyRobotsNoAI] != "0",
			SitemapURL: l.Site.Base() + "/sitemap.xml"}
		return nil
	})
	return doc, err
}
