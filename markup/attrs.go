package markup

// The attribute rules of Sanitize: which attributes each element keeps,
// how URLs are checked and normalised, and which classes and ids survive.

import (
	"net/url"
	"strings"
	"unicode"

	"golang.org/x/net/html"
)

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
