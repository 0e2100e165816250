// Package feed writes the public blog's machine-read documents: RSS 2.0
// and Atom feeds, sitemap.xml and robots.txt. Every function is pure:
// values in, bytes out.
//
// The XML is written by hand through one escaping writer (xmlw) rather
// than encoding/xml's Marshal: the documents are small and fixed, every
// value passes through the same escape, and characters XML cannot hold
// at all (control characters, invalid UTF-8, U+FFFE) are dropped, where
// Marshal would write U+FFFD or fail. Post HTML is written as escaped text
// (content:encoded, Atom content type="html"), which is valid whatever
// the HTML holds, "]]>" included. An excerpt is plain text: HTML-escaped
// for RSS's description, which readers render as HTML; as Atom's summary
// (type text) as it is.
package feed

import (
	"html"
	"net/url"
	"strings"
	"time"

	"github.com/murlog/murlog/markup"
)

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

// Lengths, in characters, of what a feed derives from a post's text.
const (
	noteTitleLen = 80
	summaryLen   = 200
)

const generator = "murlog"

// title is an item's title: its own, or for a note an excerpt of its
// text, so that every feed reader has a line to show.
func (it Item) title() string {
	if t := strings.TrimSpace(it.Title); t != "" {
		return t
	}
	return markup.ExcerptText(firstOf(it.Summary, markup.PlainText(it.ContentHTML)), noteTitleLen)
}

func (it Item) summary() string {
	return markup.ExcerptText(firstOf(it.Summary, markup.PlainText(it.ContentHTML)), summaryLen)
}

// RSS returns an RSS 2.0 document.
func RSS(c Channel, items []Item) []byte {
	var w xmlw
	w.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.raw(`<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">` + "\n")
	w.raw("<channel>\n")
	w.elem("title", c.Title)
	w.elem("link", c.Link)
	w.elem("description", firstOf(c.Description, c.Title))
	if c.Lang != "" {
		w.elem("language", c.Lang)
	}
	if updated := channelUpdated(c, items); !updated.IsZero() {
		w.elem("lastBuildDate", updated.Format(time.RFC1123Z))
	}
	w.elem("generator", generator)
	if c.Self != "" {
		w.empty("atom:link", "href", c.Self, "rel", "self", "type", "application/rss+xml")
	}
	for _, it := range items {
		w.raw("<item>\n")
		w.elem("title", it.title())
		link := firstOf(it.Link, it.ID)
		w.elem("link", link)
		if id := firstOf(it.ID, it.Link); id != "" {
			perma := "false"
			if isWebURL(id) {
				perma = "true"
			}
			w.elemAttr("guid", id, "isPermaLink", perma)
		}
		if !it.Published.IsZero() {
			w.elem("pubDate", it.Published.Format(time.RFC1123Z))
		}
		if a := firstOf(it.Author, c.Author); a != "" {
			w.elem("dc:creator", a)
		}
		for _, t := range it.Tags {
			if t = strings.TrimSpace(t); t != "" {
				w.elem("category", t)
			}
		}
		// RSS readers render an item's description as HTML, so the
		// plain-text excerpt goes in as HTML (escaped, then escaped again
		// as XML by elem): a "<b>" typed in a note reads as the text
		// "<b>", not as bold. The post's own HTML is content:encoded.
		w.elem("description", html.EscapeString(it.summary()))
		if it.ContentHTML != "" {
			w.elem("content:encoded", it.ContentHTML)
		}
		w.raw("</item>\n")
	}
	w.raw("</channel>\n</rss>\n")
	return w.bytes()
}

// Atom returns an Atom 1.0 document.
func Atom(c Channel, items []Item) []byte {
	var w xmlw
	w.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.raw(`<feed xmlns="http://www.w3.org/2005/Atom"`)
	if c.Lang != "" {
		w.attr("xml:lang", c.Lang)
	}
	w.raw(">\n")
	w.elem("id", firstOf(c.Self, c.Link))
	w.elem("title", c.Title)
	if c.Description != "" {
		w.elem("subtitle", c.Description)
	}
	w.elem("updated", atomTime(channelUpdated(c, items)))
	if c.Self != "" {
		w.empty("link", "rel", "self", "type", "application/atom+xml", "href", c.Self)
	}
	if c.Link != "" {
		w.empty("link", "rel", "alternate", "type", "text/html", "href", c.Link)
	}
	// An Atom entry needs an author, its own or the feed's: the feed's
	// falls back to its title so that entries without one stay valid.
	w.raw("<author>\n")
	w.elem("name", firstOf(c.Author, c.Title, generator))
	w.raw("</author>\n")
	w.elem("generator", generator)
	for _, it := range items {
		w.raw("<entry>\n")
		w.elem("id", firstOf(it.ID, it.Link))
		w.elem("title", it.title())
		if link := firstOf(it.Link, it.ID); link != "" {
			w.empty("link", "rel", "alternate", "type", "text/html", "href", link)
		}
		if !it.Published.IsZero() {
			w.elem("published", atomTime(it.Published))
		}
		w.elem("updated", atomTime(latest(it.Updated, it.Published)))
		// Entries inherit the feed's author, but not every reader
		// (gofeed among them) applies the rule: each entry names its own.
		if a := firstOf(it.Author, c.Author); a != "" {
			w.raw("<author>\n")
			w.elem("name", a)
			w.raw("</author>\n")
		}
		for _, t := range it.Tags {
			if t = strings.TrimSpace(t); t != "" {
				w.empty("category", "term", t)
			}
		}
		w.elem("summary", it.summary())
		if it.ContentHTML != "" {
			w.elemAttr("content", it.ContentHTML, "type", "html")
		}
		w.raw("</entry>\n")
	}
	w.raw("</feed>\n")
	return w.bytes()
}

// channelUpdated is the channel's time, else the newest item's.
func channelUpdated(c Channel, items []Item) time.Time {
	t := c.Updated
	for _, it := range items {
		t = latest(t, it.Updated, it.Published)
	}
	return t
}

func latest(ts ...time.Time) time.Time {
	var t time.Time
	for _, x := range ts {
		if x.After(t) {
			t = x
		}
	}
	return t
}

// atomTime is an RFC 3339 date in UTC; Atom requires one on every feed
// and entry, so an empty feed says the Unix epoch (it was never updated).
func atomTime(t time.Time) string {
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format(time.RFC3339)
}

// isWebURL reports an absolute http(s) URL: a guid that is one is a
// permalink.
func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func firstOf(values ...string) string {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
