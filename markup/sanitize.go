package markup

import (
	"regexp"

	"github.com/microcosm-cc/bluemonday"
)

// Sanitize cleans untrusted HTML with the article policy. Articles go
// through it after Markdown rendering; it is exposed so HTML received from
// remote servers can be cleaned the same way.
func (r *Renderer) Sanitize(html string) string {
	return r.sanitizer().Sanitize(html)
}

// sanitizer returns the policy, building it on first use: compiling its
// regular expressions is wasted work for requests that only render notes.
func (r *Renderer) sanitizer() *bluemonday.Policy {
	r.policyOnce.Do(func() { r.policy = newPolicy() })
	return r.policy
}

// newPolicy builds a user-generated-content allow-list. Everything not
// listed here is dropped: script, style, iframe, object, forms, on*
// attributes, style attributes, and any URL scheme other than http, https
// and mailto (so javascript: and data: URLs never survive).
func newPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()

	// URLs: http, https, mailto and relative, and they must parse.
	p.AllowStandardURLs()
	p.RequireNoFollowOnLinks(true)
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true) // also adds rel="noopener"

	p.AllowElements(
		"p", "br", "hr", "blockquote", "pre", "ul", "li",
		"em", "strong", "b", "i", "del", "s", "ins", "sup", "sub", "kbd",
		"details", "summary", "ruby", "rb", "rt", "rp",
		"h1", "h2", "h3", "h4", "h5", "h6",
		"table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td",
		"code", "ol", "span",
	)

	title := regexp.MustCompile(`^[^\x00-\x1f]*$`)
	p.AllowAttrs("href").OnElements("a")
	p.AllowAttrs("title").Matching(title).OnElements("a", "img", "abbr")

	// Images may only come from absolute http(s) URLs.
	p.AllowAttrs("src").Matching(regexp.MustCompile(`(?i)^https?://`)).OnElements("img")
	p.AllowAttrs("alt").Matching(title).OnElements("img")
	p.AllowAttrs("width", "height").Matching(bluemonday.Integer).OnElements("img")

	// goldmark marks fenced code with the language for client-side
	// highlighters.
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^language-[A-Za-z0-9_+#.-]+$`)).OnElements("code")

	// Heading ids from the generator in headings.go, footnote ids from goldmark
	// ("fn:1", "fnref:1", "fnref2:1") and the footnote container.
	p.AllowAttrs("id").Matching(regexp.MustCompile(`^[\p{L}\p{M}\p{N}_-]+$`)).OnElements("h1", "h2", "h3", "h4", "h5", "h6")
	p.AllowAttrs("id").Matching(regexp.MustCompile(`^fn(ref[0-9]*)?:[0-9]+$`)).OnElements("sup", "li")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^footnotes$`)).OnElements("div")

	// Microformat and Mastodon classes, so that our own tag and mention
	// links and those in remote posts survive re-sanitising.
	const class = `(?:(?:h|p|u|dt|e)-[a-z-]+|mention|hashtag|ellipsis|invisible|footnote-ref|footnote-backref)`
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^`+class+`(?: `+class+`)*$`)).OnElements("a", "span")

	p.AllowAttrs("start").Matching(bluemonday.Integer).OnElements("ol")
	p.AllowAttrs("align").Matching(regexp.MustCompile(`^(?:left|right|center)$`)).OnElements("th", "td")
	p.AllowAttrs("colspan", "rowspan").Matching(bluemonday.Integer).OnElements("th", "td")
	p.AllowAttrs("open").Matching(regexp.MustCompile(`^(?:|open)$`)).OnElements("details")
	return p
}
