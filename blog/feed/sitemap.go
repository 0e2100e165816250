package feed

import (
	"strings"
	"time"
)

// MaxSitemapURLs is the sitemaps.org limit of one file.
const MaxSitemapURLs = 50000

// maxLocLen is the sitemaps.org limit of a <loc>: longer URLs are left
// out rather than making the whole file invalid.
const maxLocLen = 2048

// Sitemap returns a sitemaps.org urlset (at most 50,000 URLs are written).
// A URL with an empty or over-long loc is skipped; lastmod is written in
// the W3C datetime form when set.
func Sitemap(urls []URL) []byte {
	var w xmlw
	w.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.raw(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	n := 0
	for _, u := range urls {
		loc := strings.TrimSpace(u.Loc)
		if loc == "" || len(loc) >= maxLocLen {
			continue
		}
		if n == MaxSitemapURLs {
			break
		}
		n++
		w.raw("<url>\n")
		w.elemAttr("loc", loc)
		if !u.LastMod.IsZero() {
			w.elem("lastmod", u.LastMod.UTC().Format(time.RFC3339))
		}
		w.raw("</url>\n")
	}
	w.raw("</urlset>\n")
	return w.bytes()
}

// AICrawlers returns the user agents robots.txt refuses when the site
// asks to be left out of AI training and AI answers: the crawlers of the
// model makers and of the data sets they train on, by the names their
// operators document. A function, not a variable, so that no caller can
// change the list for everyone.
func AICrawlers() []string {
	return []string{
		"GPTBot", "ChatGPT-User", "OAI-SearchBot", "Google-Extended", "CCBot",
		"anthropic-ai", "ClaudeBot", "Claude-Web", "PerplexityBot", "Bytespider",
		"Amazonbot", "Applebot-Extended", "FacebookBot", "Meta-ExternalAgent", "cohere-ai",
		"Diffbot", "ImagesiftBot", "Omgilibot", "Timpibot", "YouBot",
	}
}

// Robots returns robots.txt: everything allowed, or nothing with noIndex;
// with noAI the known AI crawlers are refused by name. sitemapURL is
// listed when not "" (a site that asks not to be indexed passes "").
//
// Each AI crawler gets a group of its own (RFC 9309 allows several
// user-agent lines per group, but older parsers read only the last).
// A crawler named by a group ignores the "*" group, so each of these
// groups carries its own Disallow.
func Robots(noIndex, noAI bool, sitemapURL string) []byte {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	if noIndex {
		b.WriteString("Disallow: /\n")
	} else {
		b.WriteString("Allow: /\n")
	}
	if noAI {
		for _, ua := range AICrawlers() {
			b.WriteString("\nUser-agent: " + ua + "\nDisallow: /\n")
		}
	}
	if s := clean(sitemapURL); s != "" {
		b.WriteString("\nSitemap: " + s + "\n")
	}
	return []byte(b.String())
}
