// Package meta builds the head metadata of the public blog's pages: title
// and description, canonical URL, Open Graph, Twitter Card, author,
// fediverse:creator, Dublin Core, JSON-LD, alternates, rel="me", robots and
// the Google Analytics page_view. Build is a pure function of its input.
package meta

import (
	"net"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/murlog/murlog"
)

// Meta is what a theme's head partial writes. Every string is plain text
// (the template escapes it) except JSONLD, which is JSON already safe
// inside <script type="application/ld+json"> (no "<", ">" or "&").
type Meta struct {
	Title       string `json:"title" handlebars:"title"`
	Description string `json:"description" handlebars:"description"`
	Canonical   string `json:"canonical" handlebars:"canonical"`
	Robots      string `json:"robots" handlebars:"robots"` // "" for none, else e.g. "noindex, noai, noimageai"
	// Tags are <meta> elements: exactly one of Name and Property is set.
	Tags []Tag `json:"tags" handlebars:"tags"`
	// Links are <link> elements: alternates (ActivityPub JSON, feeds),
	// rel="me", the canonical is separate.
	Links  []Link `json:"links" handlebars:"links"`
	JSONLD string `json:"json_ld" handlebars:"json_ld"`
	// GA is set when the persona configured a Google Analytics
	// measurement id: the theme then loads gtag.js and the shared
	// analytics script sends one manual page_view with these values.
	GA *Analytics `json:"ga,omitempty" handlebars:"ga"`
}

// Tag is one <meta name|property content>.
type Tag struct {
	Name     string `json:"name,omitempty" handlebars:"name"`
	Property string `json:"property,omitempty" handlebars:"property"`
	Content  string `json:"content" handlebars:"content"`
}

// Link is one <link rel href type title>.
type Link struct {
	Rel   string `json:"rel" handlebars:"rel"`
	Href  string `json:"href" handlebars:"href"`
	Type  string `json:"type,omitempty" handlebars:"type"`
	Title string `json:"title,omitempty" handlebars:"title"`
}

// Analytics is the manual page_view of the seed: content_group
// "murlog-<username>", content_id the username (site) or post id (post),
// content_type "site" or "post".
type Analytics struct {
	MeasurementID string `json:"measurement_id" handlebars:"measurement_id"`
	PageLocation  string `json:"page_location" handlebars:"page_location"`
	PageTitle     string `json:"page_title" handlebars:"page_title"`
	ContentGroup  string `json:"content_group" handlebars:"content_group"`
	ContentID     string `json:"content_id" handlebars:"content_id"`
	ContentType   string `json:"content_type" handlebars:"content_type"`
}

// Input is everything Build reads.
type Input struct {
	Site    murlog.Site
	Kind    string // "site", "post", "tag", "search", "error"
	Lang    string // BCP 47, "" for unknown (a post page: the post's language, else the site's)
	Persona *murlog.Persona
	Config  *murlog.PubConfig
	// SiteName is the persona's site name as shown (config, or display
	// name, or username).
	SiteName string
	// Post is set on post pages.
	Post *murlog.Post
	// Title, Description and Image are the page's, already extracted
	// (articles: title, excerpt, first image; notes: an excerpt).
	// A post page with no Title takes an excerpt of Description; a tag
	// or search page with no Title gets "#tag" or the query.
	Title, Description, Image string
	// Canonical is the page's own URL without query (post pages: the
	// post's URL; site page: the persona's URL or "/" for the primary).
	// A site-relative value is made absolute; "" is derived from the
	// persona, post or tag.
	Canonical string
	// AuthorName is the author shown (config author or display name).
	AuthorName string
	// AvatarURL is the persona's avatar (absolute or site-relative), the
	// image of pages that have none of their own; "" for none.
	AvatarURL string
	// DefaultImage is the theme's social image (DefaultImageWidth ×
	// DefaultImageHeight), the image of pages with neither an image of
	// their own nor an avatar; "" for none.
	DefaultImage string
	// Tag is the tag of a tag page, Query the query of a search page.
	Tag, Query string
	// GAMeasurementID from the persona's extensions; "" for none.
	GAMeasurementID string
	NoIndex, NoAI   bool // the site's robots settings
	// FeedRSS and FeedAtom are the feed URLs of this page ("" for none).
	FeedRSS, FeedAtom string
	Now               time.Time
}

// IsLink reports whether a profile field's value is a link, and returns
// the href to write: only a whole value that parses as an absolute http or
// https URL with a host name (or IP address) and no user info
// ("https://bank.example@evil.test" is refused), so that rel="me" never
// points at text that merely looks like an address. The href is the
// parsed URL written back (path and query escaped), the host as written:
// browsers turn an international name into its ASCII form themselves.
func IsLink(value string) (href string, ok bool) {
	v := strings.TrimSpace(value)
	if v == "" || len(v) > 2048 || strings.ContainsAny(v, " \t\r\n<>\"`\\") {
		return "", false
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.User != nil {
		return "", false
	}
	host, port := u.Hostname(), u.Port()
	if strings.HasSuffix(u.Host, ":") || (port != "" && !allDigits(port)) {
		return "", false
	}
	if net.ParseIP(host) == nil && !hostName(host) {
		return "", false
	}
	rest := *u
	rest.Scheme, rest.Host = "", ""
	return u.Scheme + "://" + u.Host + rest.String(), true
}

// hostName reports a DNS name: dot-separated labels of letters (any
// script), digits and inner hyphens, with an optional final dot.
func hostName(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) {
				return false
			}
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
