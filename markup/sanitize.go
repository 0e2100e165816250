package markup

import (
	"strings"
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
