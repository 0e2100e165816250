package blog

import (
	"encoding/json"
	"strings"

	"github.com/murlog/murlog/blog/feed"
	"github.com/murlog/murlog/blog/meta"
	"github.com/murlog/murlog/theme"
)

// Rendering is a pure function of a loaded model: nothing here reads a
// request or the store, so the read path can write the same bytes (and
// the same headers, see CSP) as artifacts without a request.

// RenderPage renders a themed page with the template of its kind. It always
// returns a page: theme.Set falls back to the default theme, and
// last to a minimal built-in page.
func RenderPage(themes *theme.Set, p *Page) []byte {
	b, _ := themes.Render(p.Theme.Name, p.Kind, p)
	return b
}

// RenderJSON renders a document of the public read API (PostDoc,
// PostList, ConfigDoc). encoding/json is HTML-safe: "<", ">" and "&" are
// escaped, so a document is inert even when sniffed as HTML.
func RenderJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Only unsupported values fail, and the documents have none.
		return []byte(`{"error":{"code":"internal","message":"internal error"}}`)
	}
	return append(b, '\n')
}

// RenderFeed renders a loaded feed as Atom or RSS 2.0.
func RenderFeed(d *FeedDoc, atom bool) []byte {
	c := d.Channel
	if atom {
		c.Self = d.Atom
		return feed.Atom(c, d.Items)
	}
	c.Self = d.RSS
	return feed.RSS(c, d.Items)
}

// RenderSitemap renders sitemap.xml.
func RenderSitemap(urls []feed.URL) []byte { return feed.Sitemap(urls) }

// RenderRobots renders robots.txt.
func RenderRobots(d *RobotsDoc) []byte { return feed.Robots(d.NoIndex, d.NoAI, d.SitemapURL) }

// The external hosts of the share widgets and of Google Analytics, which
// a page's CSP allows only when the page uses them.
const (
	hostTwitter     = "https://platform.twitter.com"
	hostFacebook    = "https://www.facebook.com"
	hostHatenaB     = "https://b.st-hatena.com"
	hostHatenaFrame = "https://b.hatena.ne.jp"
	hostHatenaStar  = "https://s.hatena.ne.jp https://s.hatena.com"
	hostGTM         = "https://www.googletagmanager.com"
	hostGA          = "https://*.google-analytics.com https://*.analytics.google.com"
)

// BaseCSP is the policy of documents that are not themed pages (feeds,
// the API, robots.txt, the sitemap): nothing may load or frame them.
const BaseCSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// CSP is the Content-Security-Policy of a themed page, computed from the
// page alone (so an artifact can store it beside the bytes): scripts and
// frames from the share widgets the page shows, and Google Analytics when
// the page sends a page_view. Scripts are never inline ('unsafe-inline' is
// not allowed): the data blocks (JSON, JSON-LD) are not scripts.
func CSP(p *Page) string { return csp(p, "'none'") }

// ArtifactCSP is the policy sent with every page served from an artifact
// (by Apache, or by the resident server): the union of what any page may
// need, every share widget's hosts and Google Analytics'. Each artifact
// carries its own page's CSP in a meta element too (package prerender),
// and a browser enforces both, so a page gets exactly its own policy;
// this header adds frame-ancestors, which a meta element cannot carry.
func ArtifactCSP() string {
	return csp(&Page{Share: &Share{X: true, Facebook: true, Hatena: true}, Meta: meta.Meta{GA: &meta.Analytics{}}}, "'none'")
}

// PreviewCSP is CSP but lets the site's own pages frame the page: the
// owner's app shows a theme's preview (Loader.PreviewPage) in an iframe.
func PreviewCSP(p *Page) string { return csp(p, "'self'") }

// csp builds a themed page's policy; ancestors is its frame-ancestors.
func csp(p *Page, ancestors string) string {
	script, connect, frame := []string{"'self'"}, []string{"'self'"}, []string(nil)
	if sh := p.Share; sh != nil {
		// Vertical themes show compact links for X, Facebook and LINE,
		// with no widget script.
		if sh.X && !p.Theme.Vertical {
			script, frame = append(script, hostTwitter), append(frame, hostTwitter)
		}
		if sh.Facebook && !p.Theme.Vertical {
			frame = append(frame, hostFacebook)
		}
		if sh.Hatena {
			script, frame = append(script, hostHatenaB, hostHatenaStar), append(frame, hostHatenaFrame)
		}
	}
	if p.Meta.GA != nil {
		script, connect = append(script, hostGTM), append(connect, hostGTM, hostGA)
	}
	var b strings.Builder
	b.Grow(320)
	b.WriteString("default-src 'none'; script-src ")
	b.WriteString(strings.Join(script, " "))
	b.WriteString("; style-src 'self'; img-src 'self' https: data:; font-src 'self'; connect-src ")
	b.WriteString(strings.Join(connect, " "))
	if len(frame) > 0 {
		b.WriteString("; frame-src ")
		b.WriteString(strings.Join(frame, " "))
	}
	b.WriteString("; frame-ancestors ")
	b.WriteString(ancestors)
	b.WriteString("; base-uri 'none'; form-action 'self'")
	return b.String()
}
