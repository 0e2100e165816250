// Package feed writes the public blog's machine-read documents: RSS 2.0
// and Atom feeds, sitemap.xml and robots.txt. Every function is pure:
// values in, bytes out.
package feed

import "time"

// Channel describes one feed.
type Channel struct {
	Title       string
	Description string
	Link        string // the HTML page the feed follows (site or tag page)
	Self        string // the feed's own URL
	Lang        string // BCP 47, "" for unknown
	Author      string
	Updated     time.Time // the newest item's time; the zero time for an empty feed
}

// Item is one post in a feed.
type Item struct {
	ID          string // the post's canonical URL, also its guid / Atom id
	Title       string // "" for notes: the feed then uses an excerpt
	Link        string
	ContentHTML string // sanitized HTML
	Summary     string // plain-text excerpt
	Published   time.Time
	Updated     time.Time
	Author      string
	Tags        []string
}

// URL is one sitemap entry.
type URL struct {
	Loc     string
	LastMod time.Time
}

// RSS returns an RSS 2.0 document.
//
// TODO(h-meta)
func RSS(c Channel, items []Item) []byte { return nil }

// Atom returns an Atom 1.0 document.
//
// TODO(h-meta)
func Atom(c Channel, items []Item) []byte { return nil }

// Sitemap returns a sitemaps.org urlset (at most 50,000 URLs are written).
//
// TODO(h-meta)
func Sitemap(urls []URL) []byte { return nil }

// Robots returns robots.txt: everything allowed, or nothing with noIndex;
// with noAI the known AI crawlers are refused by name. sitemapURL is
// listed when not "".
//
// TODO(h-meta)
func Robots(noIndex, noAI bool, sitemapURL string) []byte { return nil }
