package markup

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Policy is what Sanitize keeps beyond its fixed rules. The element
// allow-list, the URL rules and rel="nofollow noreferrer" on links hold
// for every policy; a Policy chooses the rest, so that HTML from remote
// servers can go through the same code with a stricter value.
type Policy struct {
	// IDPrefix is put in front of every id kept (unless it is already
	// there), and same-document links ("#x") are rewritten to match, so
	// that post HTML cannot define ids such as "config" that clobber the
	// globals of theme or SPA scripts (window.config is the element).
	// Ids are kept only on headings and on footnote sup and li elements,
	// and only when made of letters, digits, '_' and '-'. "" drops every
	// id and leaves fragment links alone.
	IDPrefix string
	// Class reports whether class value may stay on element el; nil drops
	// every class.
	Class func(el, value string) bool
	// NoImages drops <img> elements.
	NoImages bool
	// Elements, when set, narrows or widens the allow-list of kept
	// elements: an element it refuses is unwrapped (its text stays), one
	// it accepts is kept. The dropped elements (script, style, iframe…)
	// stay dropped and a link still needs a usable href.
	Elements func(el string) bool
	// HeadingsAsStrong turns every h1–h6 into <p><strong>…</strong></p>,
	// for HTML shown inside a post where a heading would shout.
	HeadingsAsStrong bool
	// RemoteLinks keeps only absolute http(s) links and gives every link
	// RemoteRel and target="_blank", whatever host it points to.
	RemoteLinks bool
}

// IDPrefix is the prefix ArticlePolicy gives every id, as GitHub does.
const IDPrefix = "user-content-"

// ArticlePolicy is the policy for articles and trusted HTML: ids prefixed
// with IDPrefix, the classes of fenced code, footnotes, microformats and
// Mastodon's links, and images.
func ArticlePolicy() Policy {
	return Policy{IDPrefix: IDPrefix, Class: articleClass}
}

// Sanitize cleans untrusted HTML with policy p. Articles go through it
// after Markdown rendering with ArticlePolicy; HTML received from remote
// servers is cleaned the same way with its own policy.
//
// The input is parsed the way a browser parses it into a <div>, every node
// the allow-list does not name is removed, and the tree left over is
// serialized by html.Render, which escapes all text and attribute values.
// Nothing is ever matched against raw markup, so malformed or deliberately
// confusing HTML cannot slip past: the policy sees exactly the elements and
// attributes a browser would build. HTML nested more than 512 elements deep
// is refused by the parser and yields "".
func Sanitize(html string, p Policy) string {
	out, _ := sanitizeHTML(html, p)
	return out
}

// maxSanitizePasses bounds the re-parsing done for trees the parser would
// not build again; see sanitizeHTML.
const maxSanitizePasses = 4

// sanitizeHTML is Sanitize; ok is false when s could not be parsed (it
// nests too deeply) and the result is "". It needs no per-Renderer state:
// the policy is a value, so there is nothing to build or compile before use.
func sanitizeHTML(s string, p Policy) (out string, ok bool) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	out, unstable, ok := sanitizePass(s, p)
	// Some trees do not survive serializing and parsing again: an <h2>
	// directly inside an <h1>, a <p> inside a <p>, an <a> inside an <a>.
	// The parser builds a few of them itself (misnested formatting tags go
	// through the adoption agency algorithm), and unwrapping an element
	// can build more by moving its children up. A browser, and the next
	// sanitizer run, would parse such output into a different tree. That is
	// harmless, since the output holds only allowed tags and attributes
	// whatever tree it becomes, but the result must be stable so that
	// sanitizing twice changes nothing; parsing the output again lets the
	// parser settle the structure. Ordinary input never needs it.
	for i := 1; ok && unstable && i < maxSanitizePasses; i++ {
		next, u, nextOK := sanitizePass(out, p)
		if !nextOK || next == out {
			break
		}
		out, unstable = next, u
	}
	return out, ok
}

// sanitizePass parses s as the content of a <div>, cleans the tree and
// renders it. unstable reports whether the cleaned tree contains structure
// that parsing the output would rearrange; ok is false if s did not parse.
func sanitizePass(s string, p Policy) (out string, unstable, ok bool) {
	root := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(s), root)
	if err != nil {
		// The parser refuses to nest more than 512 elements deep (reading
		// a string cannot fail otherwise). Fail closed.
		return "", false, false
	}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	c := cleaner{p: p}
	c.clean(root, scope{})

	var b strings.Builder
	b.Grow(len(s))
	for n := root.FirstChild; n != nil; n = n.NextSibling {
		if err := html.Render(&b, n); err != nil {
			// Render fails only for trees the parser cannot produce (a void
			// element with children, say); the cleaner never builds one.
			return "", false, false
		}
	}
	return b.String(), c.unstable, true
}

// cleaner removes from a parsed tree everything the policy does not allow.
type cleaner struct {
	p        Policy
	unstable bool
}

// What the policy does with an element.
const (
	elemUnwrap   = iota // remove the element, keep its (cleaned) content
	elemDrop            // remove the element and everything inside it
	elemKeep            // keep the element with its allowed attributes
	elemNeedAttr        // keep it only if an allowed attribute survives
)

// clean cleans the children of parent in place. sc describes the open
// elements above them.
func (c *cleaner) clean(parent *html.Node, sc scope) {
	for n := parent.FirstChild; n != nil; {
		next := n.NextSibling
		switch n.Type {
		case html.TextNode:
			// Kept; html.Render escapes it. Control characters go: they
			// are never reader-visible text (and the parser drops NUL,
			// so one left here would not survive a second parse).
			n.Data = stripControls(n.Data)
		case html.ElementNode:
			rule := elemDrop
			if n.Namespace == "" {
				// Elements in SVG or MathML never get here: <svg> and
				// <math> are dropped with their content.
				rule = c.elementRule(n.Data)
			}
			switch rule {
			case elemDrop:
				parent.RemoveChild(n)
			case elemKeep, elemNeedAttr:
				if c.p.HeadingsAsStrong && isHeading(n.Data) {
					n = headingToStrong(parent, n)
				}
				n.Attr = c.cleanAttrs(n.Data, n.Attr)
				if rule == elemNeedAttr && (len(n.Attr) == 0 || n.Data == "a" && !hasURL(n.Attr)) {
					next = unwrap(parent, n, next)
					break
				}
				if sc.reparses(parent.Data, n.Data) {
					c.unstable = true
				}
				c.clean(n, sc.enter(n.Data))
			default:
				next = unwrap(parent, n, next)
			}
		default:
			// Comments, doctypes and anything else are not content.
			parent.RemoveChild(n)
		}
		n = next
	}
}

// unwrap replaces n by its children and returns the node the caller's loop
// must visit next: the first of those children, which still need cleaning,
// or next when n had none.
func unwrap(parent, n, next *html.Node) *html.Node {
	first := n.FirstChild
	for ch := first; ch != nil; {
		after := ch.NextSibling
		n.RemoveChild(ch)
		parent.InsertBefore(ch, n)
		ch = after
	}
	parent.RemoveChild(n)
	if first == nil {
		return next
	}
	return first
}

// scope tracks the ancestors that make the HTML parser close or move an
// element when it meets its start tag (WHATWG HTML, "in body" insertion
// mode), restricted to the elements the policy keeps.
type scope struct {
	p    bool // a <p> is open in button scope
	li   bool // an <li> is open with only div, p or phrasing elements below it
	a    bool // an <a> is open since the last cell or caption
	ruby bool // a <ruby> is open in scope
}

// reparses reports whether an element named el, child of one named parent,
// would end up elsewhere when its serialization is parsed again.
func (sc scope) reparses(parent, el string) bool {
	switch el {
	case "blockquote", "details", "div", "ol", "p", "summary", "ul", "pre", "table", "hr":
		return sc.p // closes the open <p>
	case "h1", "h2", "h3", "h4", "h5", "h6":
		// Closes the open <p>, and a heading directly inside a heading.
		return sc.p || isHeading(parent)
	case "li":
		return sc.p || sc.li
	case "a":
		return sc.a
	case "rb", "rt", "rp":
		// Implied end tags are generated for the current node.
		switch parent {
		case "p", "li", "rb", "rt", "rp":
			return sc.ruby
		}
	}
	return false
}

// enter returns the scope for the children of an element named el.
func (sc scope) enter(el string) scope {
	switch el {
	case "p":
		sc.p = true
	case "li":
		sc.li = true
	case "a":
		sc.a = true
	case "ruby":
		sc.ruby = true
	case "table":
		sc.p, sc.ruby, sc.li = false, false, false
	case "td", "th", "caption":
		sc.p, sc.ruby, sc.li, sc.a = false, false, false, false
	case "div":
	case "blockquote", "br", "details", "h1", "h2", "h3", "h4", "h5", "h6",
		"hr", "img", "ol", "pre", "summary", "tbody", "tfoot", "thead", "tr", "ul":
		// Special elements end the search for an open <li>.
		sc.li = false
	}
	return sc
}

func isHeading(el string) bool {
	switch el {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		return true
	}
	return false
}

// elementRule is elementRule as the policy changes it.
func (c *cleaner) elementRule(name string) int {
	rule := elementRule(name)
	switch {
	case rule == elemDrop:
	case name == "img" && c.p.NoImages:
		rule = elemDrop
	case c.p.Elements == nil:
	case !c.p.Elements(name):
		rule = elemUnwrap
	case rule == elemUnwrap:
		rule = elemKeep
	}
	return rule
}

// elementRule is the element allow-list. Everything it does not name is
// unwrapped, so unknown and presentational elements (<font>, <center>,
// <u>, custom elements) keep their text.
func elementRule(name string) int {
	switch name {
	case "p", "br", "hr", "blockquote", "pre", "ul", "ol", "li",
		"em", "strong", "b", "i", "del", "s", "ins", "sup", "sub", "kbd",
		"details", "summary", "ruby", "rb", "rt", "rp",
		"h1", "h2", "h3", "h4", "h5", "h6",
		"table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td",
		"code", "span", "abbr", "div":
		return elemKeep
	case "a", "img":
		// A link without a usable href and an image without a usable src
		// are worthless; the link text stays.
		return elemNeedAttr
	case "script", "style", "iframe", "object", "embed", "applet", "noscript",
		"template", "textarea", "select", "option", "optgroup", "datalist",
		"svg", "math", "title", "head", "frame", "frameset", "noframes",
		"noembed", "xmp", "plaintext":
		// Code, styling, plug-ins, form values and raw text that is never
		// shown as such: none of it is reader-visible prose.
		return elemDrop
	}
	return elemUnwrap
}

// cleanAttrs filters attrs to those the policy allows on element
// el, normalizing URLs, and adds rel (and target) to links.
func (c *cleaner) cleanAttrs(el string, attrs []html.Attribute) []html.Attribute {
	if len(attrs) == 0 {
		return nil
	}
	out := make([]html.Attribute, 0, len(attrs)+2)
	href, hasHref := "", false
	for i, a := range attrs {
		if a.Namespace != "" || seenAttr(attrs[:i], a.Key) {
			// Browsers keep the first of duplicated attributes; so do we.
			continue
		}
		v, ok := c.cleanAttr(el, a.Key, a.Val)
		if !ok {
			continue
		}
		attr := html.Attribute{Key: a.Key, Val: v}
		if a.Key == "href" || a.Key == "src" {
			// The URL goes first, as people write it: the parser sorts
			// the attributes of formatting elements such as <a>.
			href, hasHref = v, true
			out = append(out, attr)
			copy(out[1:], out)
			out[0] = attr
			continue
		}
		out = append(out, attr)
	}
	if el == "a" && hasHref {
		// Never endorse, leak the referrer to or hand window.opener to the
		// link target; external links open in a new tab.
		if c.p.RemoteLinks {
			out = append(out,
				html.Attribute{Key: "rel", Val: RemoteRel},
				html.Attribute{Key: "target", Val: "_blank"})
		} else if isExternal(href) {
			out = append(out,
				html.Attribute{Key: "rel", Val: "nofollow noreferrer noopener"},
				html.Attribute{Key: "target", Val: "_blank"})
		} else {
			out = append(out, html.Attribute{Key: "rel", Val: "nofollow noreferrer"})
		}
	}
	return out
}

// hasURL reports whether attrs keep an href or src: a link with only a
// class or title left is worthless.
func hasURL(attrs []html.Attribute) bool {
	for _, a := range attrs {
		if a.Key == "href" || a.Key == "src" {
			return true
		}
	}
	return false
}

// seenAttr reports whether attrs contains an attribute named key.
func seenAttr(attrs []html.Attribute, key string) bool {
	for _, a := range attrs {
		if a.Key == key {
			return true
		}
	}
	return false
}

// cleanAttr applies the attribute allow-list: it returns the value to keep
// for attribute key on element el, and whether to keep it at all.
func (c *cleaner) cleanAttr(el, key, val string) (string, bool) {
	switch key {
	case "href":
		if el == "a" && c.p.RemoteLinks {
			return cleanURL(val, true) // absolute http(s) only, as for images
		}
		if el == "a" {
			u, ok := cleanURL(val, false)
			if ok && c.p.IDPrefix != "" && len(u) > 1 && u[0] == '#' && !strings.HasPrefix(u, "#"+c.p.IDPrefix) {
				// A link to an id in the post follows the id's prefix; a
				// bare "#" (the top of the page) names no id and stays.
				u = "#" + c.p.IDPrefix + u[1:]
			}
			return u, ok
		}
	case "src":
		if el == "img" {
			return cleanURL(val, true)
		}
	case "title":
		if el == "a" || el == "img" || el == "abbr" {
			return val, !hasControl(val)
		}
	case "alt":
		if el == "img" {
			return val, !hasControl(val)
		}
	case "width", "height":
		if el == "img" {
			return val, isDigits(val)
		}
	case "class":
		return val, c.p.Class != nil && c.p.Class(el, val)
	case "id":
		switch el {
		case "h1", "h2", "h3", "h4", "h5", "h6", "sup", "li":
			// Heading ids (headings.go) and footnote ids (gfm_footnote.go),
			// or the author's own in raw HTML, prefixed.
			if c.p.IDPrefix == "" {
				return "", false
			}
			id := strings.TrimPrefix(val, c.p.IDPrefix)
			return c.p.IDPrefix + id, isHeadingID(id)
		}
	case "start":
		if el == "ol" {
			return val, isDigits(val)
		}
	case "align":
		if el == "th" || el == "td" {
			return val, val == "left" || val == "right" || val == "center"
		}
	case "colspan", "rowspan":
		if el == "th" || el == "td" {
			return val, isDigits(val)
		}
	case "open":
		if el == "details" {
			return val, val == "" || val == "open"
		}
	}
	return "", false
}

// cleanURL validates a link (a[href]) or image (img[src]) URL and returns
// it normalized by net/url. Links may be http, https, mailto or relative;
// images must be absolute http or https URLs. The value arrives with
// character references already decoded by the parser, so "&#106;avascript:"
// is seen as the "javascript:" it is.
func cleanURL(v string, image bool) (string, bool) {
	// Browsers ignore surrounding spaces and C0 controls, so a leading
	// "\x01" must not hide a scheme from us; inside a URL they also remove
	// tabs and newlines, so "java\tscript:" would run. Reject every control
	// character and space instead of second-guessing what a browser does.
	v = strings.TrimSpace(v)
	if v == "" {
		return "", false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= ' ' || c == 0x7f {
			return "", false
		}
	}
	u, err := url.Parse(v) // lowercases the scheme
	if err != nil {
		return "", false
	}
	switch u.Scheme {
	case "http", "https":
		if u.Host == "" {
			return "", false
		}
	case "mailto":
		if image {
			return "", false
		}
	case "":
		// Relative, including scheme-relative "//host/path". Images must
		// name their scheme and host.
		if image {
			return "", false
		}
	default:
		return "", false
	}
	s := u.String()
	return s, s != ""
}

// isExternal reports whether the (already validated) link points to
// another host: an absolute http(s) URL or a scheme-relative one.
func isExternal(href string) bool {
	u, err := url.Parse(href)
	return err == nil && u.Host != ""
}

// hasControl reports whether s contains a control character (C0, DEL or
// C1), which has no business in a title or alt text.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || isStripped(s, i) {
			return true
		}
	}
	return false
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isLanguageClass matches "language-" followed by [A-Za-z0-9_+#.-]+.
func isLanguageClass(s string) bool {
	lang, ok := strings.CutPrefix(s, "language-")
	if !ok || lang == "" {
		return false
	}
	for i := 0; i < len(lang); i++ {
		c := lang[i]
		if !isASCIIAlnum(c) && !strings.ContainsRune("_+#.-", rune(c)) {
			return false
		}
	}
	return true
}

// isKnownClasses reports whether s is a single-space-separated list of
// microformat classes (h-*, p-*, u-*, dt-*, e-* with [a-z-] names) and the
// classes Mastodon and goldmark use on links.
func isKnownClasses(s string) bool {
	for {
		class, rest, more := strings.Cut(s, " ")
		if !isKnownClass(class) {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

func isKnownClass(c string) bool {
	switch c {
	case "mention", "hashtag", "ellipsis", "invisible", "footnote-ref", "footnote-backref":
		return true
	}
	prefix, name, ok := strings.Cut(c, "-")
	if !ok || name == "" {
		return false
	}
	switch prefix {
	case "h", "p", "u", "dt", "e":
	default:
		return false
	}
	for i := 0; i < len(name); i++ {
		if (name[i] < 'a' || name[i] > 'z') && name[i] != '-' {
			return false
		}
	}
	return true
}

// articleClass is ArticlePolicy's class rule.
func articleClass(el, val string) bool {
	switch el {
	case "code":
		// goldmark marks fenced code with the language for client-side
		// highlighters.
		return isLanguageClass(val)
	case "div":
		return val == "footnotes"
	case "a", "span":
		// Microformat and Mastodon classes, so that our own tag and
		// mention links and those in remote posts survive re-sanitizing.
		return isKnownClasses(val)
	}
	return false
}

// isHeadingID reports whether s consists of letters, marks, numbers, '_'
// and '-' in any script, as slug produces.
func isHeadingID(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsMark(r) && !unicode.IsNumber(r) && r != '_' && r != '-' {
			return false
		}
	}
	return true
}
