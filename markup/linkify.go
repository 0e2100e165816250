package markup

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// linker writes user text as escaped HTML, turning URLs, hashtags and
// mentions into links and recording what it found. Notes feed it whole
// paragraphs; articles feed it the text nodes of the sanitized HTML.
type linker struct {
	r *Renderer
	b *strings.Builder
	c collector
	// auto also links "www." hosts and e-mail addresses, as GFM's
	// autolink extension does for articles. Notes keep Mastodon's rules,
	// under which "bob@example.com" stays text.
	auto bool
}

// text writes s to l.b. prev is the rune just before s in the surrounding
// document (0 at the start of a block); it decides whether a '#' or '@' at
// the very start of s begins a tag or mention. When br is set, newlines
// become <br>, as plain-text notes need. It returns the last rune written so
// callers can carry the context into the next text node.
func (l *linker) text(s string, prev rune, br bool) rune {
	flushed := 0
	triggers := "#@hH"
	if l.auto {
		triggers = "#@hHwW"
	}
	for i := 0; i < len(s); {
		j := strings.IndexAny(s[i:], triggers)
		if j < 0 {
			break
		}
		j += i
		p := prev
		if j > 0 {
			p, _ = utf8.DecodeLastRuneInString(s[:j])
		}
		end := 0
		switch s[j] {
		case 'h', 'H':
			if urlBoundary(p) {
				if end = scanURL(s, j); end > 0 {
					escapeHTML(l.b, s[flushed:j], br)
					l.url(s[j:end], s[j:end])
				}
			}
		case 'w', 'W':
			if wwwBoundary(p) {
				if end = scanWWW(s, j); end > 0 {
					escapeHTML(l.b, s[flushed:j], br)
					l.url("http://"+s[j:end], s[j:end])
				}
			}
		case '#':
			if wordBoundary(p) {
				if end = scanTag(s, j); end > 0 {
					escapeHTML(l.b, s[flushed:j], br)
					l.tag(s[j+1 : end])
				}
			}
		case '@':
			if wordBoundary(p) {
				var user, host string
				if user, host, end = scanMention(s, j); end > 0 {
					escapeHTML(l.b, s[flushed:j], br)
					l.mention(user, host)
				}
			}
			if end == 0 && l.auto {
				var start int
				if start, end = scanEmail(s, flushed, j, prev); end > 0 {
					escapeHTML(l.b, s[flushed:start], br)
					l.email(s[start:end])
				}
			}
		}
		if end > 0 {
			flushed, i = end, end
		} else {
			i = j + 1
		}
	}
	escapeHTML(l.b, s[flushed:], br)
	if s == "" {
		return prev
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	return last
}

// linkRel is what every outgoing link gets: no SEO endorsement of what the
// owner links to, no window.opener access, and no Referer leak.
const linkRel = `rel="nofollow noopener noreferrer" target="_blank"`

// url writes a link to u showing text.
func (l *linker) url(u, text string) {
	l.b.WriteString(`<a href="`)
	escapeHTML(l.b, u, false)
	l.b.WriteString(`" ` + linkRel + `>`)
	escapeHTML(l.b, text, false)
	l.b.WriteString(`</a>`)
}

// email writes a mailto link to addr, with the rel the sanitizer gives
// links that do not leave for another site.
func (l *linker) email(addr string) {
	l.b.WriteString(`<a href="mailto:`)
	escapeHTML(l.b, addr, false)
	l.b.WriteString(`" rel="nofollow noreferrer">`)
	escapeHTML(l.b, addr, false)
	l.b.WriteString(`</a>`)
}

// tag writes a hashtag link in the markup Mastodon uses, so remote servers
// recognise it, and records the tag.
func (l *linker) tag(tag string) {
	l.c.addTag(tag)
	l.b.WriteString(`<a href="`)
	escapeHTML(l.b, l.r.tagHref(tag), false)
	l.b.WriteString(`" class="mention hashtag" rel="tag">#<span>`)
	escapeHTML(l.b, tag, false)
	l.b.WriteString(`</span></a>`)
}

// mention writes a mention in Mastodon's h-card markup and records it.
func (l *linker) mention(user, host string) {
	host = strings.ToLower(host)
	l.c.addMention(Mention{User: user, Host: host})
	l.b.WriteString(`<span class="h-card"><a href="`)
	escapeHTML(l.b, l.r.mentionHref(user, host), false)
	l.b.WriteString(`" class="u-url mention">@<span>`)
	escapeHTML(l.b, user, false)
	l.b.WriteString(`</span></a></span>`)
}

// escapeHTML writes s with the five HTML-significant characters escaped, so
// the result is safe both as text and inside a double-quoted attribute. NUL
// becomes U+FFFD because browsers would drop or mangle it anyway. With br,
// newlines become <br>.
func escapeHTML(b *strings.Builder, s string, br bool) {
	last := 0
	for i := 0; i < len(s); i++ {
		var rep string
		switch s[i] {
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '&':
			rep = "&amp;"
		case '"':
			rep = "&#34;"
		case '\'':
			rep = "&#39;"
		case 0:
			rep = "\uFFFD"
		case '\n':
			if !br {
				continue
			}
			rep = "<br>"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(rep)
		last = i + 1
	}
	b.WriteString(s[last:])
}

// urlBoundary reports whether a URL may start right after p. Japanese text
// rarely puts a space before a URL, so only ASCII word characters (and the
// sigils of tags, mentions and variables) prevent one.
func urlBoundary(p rune) bool {
	if p >= utf8.RuneSelf {
		return true
	}
	c := byte(p)
	return !isASCIIAlnum(c) && c != '_' && c != '@' && c != '#' && c != '$'
}

// wordBoundary reports whether a hashtag or mention may start right after
// p: at the start of text, or after whitespace, punctuation or a symbol
// (emoji included), but not inside a word ("a#b", "bob@example.com"), a
// path ("/#frag"), an HTML entity ("&#123;") or a query ("?a=@b").
func wordBoundary(p rune) bool {
	switch {
	case p == 0:
		return true
	case p == '/' || p == '&' || p == '=' || p == '#' || p == '@' || p == '_':
		return false
	case p >= 0xFE00 && p <= 0xFE0F, p == 0x200D:
		// Variation selectors and ZWJ end emoji sequences such as "❤️".
		return true
	case unicode.IsLetter(p) || unicode.IsDigit(p) || unicode.IsMark(p):
		return false
	}
	return true
}

// scanURL returns the end of the http(s) URL starting at s[i], or 0. URLs
// are ASCII only: Japanese has no spaces, so letting non-ASCII characters
// continue a URL would swallow the sentence that follows it. Trailing
// sentence punctuation and unbalanced closing brackets are left out, so
// "(see https://en.wikipedia.org/wiki/Go_(programming_language))." works.
func scanURL(s string, i int) int {
	var n int
	switch {
	case hasPrefixFold(s[i:], "https://"):
		n = len("https://")
	case hasPrefixFold(s[i:], "http://"):
		n = len("http://")
	default:
		return 0
	}
	return scanURLRest(s, i+n)
}

// scanWWW returns the end of the "www." host (and path) starting at s[i],
// or 0; it follows the same rules as scanURL.
func scanWWW(s string, i int) int {
	if !hasPrefixFold(s[i:], "www.") {
		return 0
	}
	return scanURLRest(s, i+len("www."))
}

// scanURLRest returns the end of a URL whose host starts at s[start], or 0.
func scanURLRest(s string, start int) int {
	if start >= len(s) || !isASCIIAlnum(s[start]) {
		return 0
	}
	end := start
	opens := [2]int{} // '(' and '['
	closes := [2]int{}
	for end < len(s) && urlChars[s[end]] {
		switch s[end] {
		case '(':
			opens[0]++
		case ')':
			closes[0]++
		case '[':
			opens[1]++
		case ']':
			closes[1]++
		}
		end++
	}
	for end > start {
		switch s[end-1] {
		case '.', ',', ';', ':', '!', '?', '\'', '*':
			end--
			continue
		case ')':
			if closes[0] > opens[0] {
				closes[0]--
				end--
				continue
			}
		case ']':
			if closes[1] > opens[1] {
				closes[1]--
				end--
				continue
			}
		}
		break
	}
	return end
}

// urlChars marks the ASCII bytes that may appear in a URL: RFC 3986
// unreserved and reserved characters plus '%'.
var urlChars = func() (t [256]bool) {
	for _, c := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#[]@!$&'()*+,;=%") {
		t[c] = true
	}
	return t
}()

// wwwBoundary reports whether a "www." link may start right after p: as
// in GFM, at the start of text, after whitespace or after one of "*_~(",
// and, as for URLs, right after non-ASCII text such as Japanese. Unlike a
// URL with its scheme, "www." inside "foo.www.example" is not a link.
func wwwBoundary(p rune) bool {
	return p == 0 || p >= utf8.RuneSelf || unicode.IsSpace(p) || strings.ContainsRune("*_~(", p)
}

// scanEmail finds an e-mail address around the '@' at s[at], as GFM's
// extended autolinks do: a local part of ASCII letters, digits and ".-_+"
// not starting before lo (where the text not yet written starts), and a
// domain of letters, digits, '-' and '_' with at least one dot that does
// not end in '-' or '_' and whose last label has a letter. A trailing '.'
// ends the sentence. prev is the rune before s. It returns the address
// bounds, or end 0.
func scanEmail(s string, lo, at int, prev rune) (start, end int) {
	start = at
	for start > lo && (isASCIIAlnum(s[start-1]) || strings.IndexByte(".-_+", s[start-1]) >= 0) {
		start--
	}
	if start == at || (start == lo && lo > 0) {
		// No local part, or it would continue a link just written.
		return 0, 0
	}
	p := prev
	if start > 0 {
		p, _ = utf8.DecodeLastRuneInString(s[:start])
	}
	if !urlBoundary(p) || p == '/' || p == '&' || p == '=' {
		return 0, 0
	}
	end = at + 1
	for end < len(s) && (isASCIIAlnum(s[end]) || s[end] == '-' || s[end] == '_' || s[end] == '.') {
		end++
	}
	for end > at+1 && s[end-1] == '.' {
		end--
	}
	domain := s[at+1 : end]
	if domain == "" || domain[0] == '.' || !strings.Contains(domain, ".") || strings.Contains(domain, "..") {
		return 0, 0
	}
	if c := domain[len(domain)-1]; c == '-' || c == '_' {
		return 0, 0
	}
	if tld := domain[strings.LastIndexByte(domain, '.')+1:]; !strings.ContainsFunc(tld, func(r rune) bool {
		return r < utf8.RuneSelf && isASCIIAlpha(byte(r))
	}) {
		// "v1.2@3.4" is a version, not an address.
		return 0, 0
	}
	if end < len(s) && s[end] == '@' {
		return 0, 0
	}
	return start, end
}

// scanTag returns the end of the hashtag whose '#' is at s[i], or 0. A tag
// is a run of letters, digits, combining marks and underscores in any
// script, and must contain a letter or underscore so "#1" stays a number.
func scanTag(s string, i int) int {
	j := i + 1
	named := false
	for j < len(s) {
		if c := s[j]; c < utf8.RuneSelf {
			if c == '_' || isASCIIAlpha(c) {
				named = true
			} else if c < '0' || c > '9' {
				break
			}
			j++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		if unicode.IsLetter(r) {
			named = true
		} else if !unicode.IsDigit(r) && (!unicode.IsMark(r) || (r >= 0xFE00 && r <= 0xFE0F)) {
			break
		}
		j += size
	}
	if !named {
		return 0
	}
	return j
}

// scanMention parses "@user@host" at s[i] and returns its parts and end, or
// end 0. Users are ASCII letters, digits, '_', '.' and '-' (the last two not
// at either end); hosts are DNS names with at least one dot. A trailing '.'
// ends the sentence, not the host. A port (":443") makes the whole thing
// plain text rather than a mention of the wrong server.
func scanMention(s string, i int) (user, host string, end int) {
	j := i + 1
	for j < len(s) && (isASCIIAlnum(s[j]) || s[j] == '_' || s[j] == '.' || s[j] == '-') {
		j++
	}
	user = s[i+1 : j]
	if user == "" || j >= len(s) || s[j] != '@' {
		return "", "", 0
	}
	if f, l := user[0], user[len(user)-1]; f == '.' || f == '-' || l == '.' || l == '-' {
		return "", "", 0
	}
	k := j + 1
	for k < len(s) && (isASCIIAlnum(s[k]) || s[k] == '.' || s[k] == '-') {
		k++
	}
	for k > j+1 && s[k-1] == '.' {
		k--
	}
	host = s[j+1 : k]
	if !validHost(host) {
		return "", "", 0
	}
	if k < len(s) {
		switch c := s[k]; {
		case c == '@' || c == '_':
			return "", "", 0
		case c == ':' && k+1 < len(s) && s[k+1] >= '0' && s[k+1] <= '9':
			return "", "", 0
		}
	}
	return user, host, k
}

// validHost reports whether h is a DNS name of at least two labels whose
// top-level label is not numeric (so IP addresses are rejected).
func validHost(h string) bool {
	if len(h) > 253 || strings.IndexByte(h, '.') < 0 {
		return false
	}
	for h != "" {
		label := h
		if dot := strings.IndexByte(h, '.'); dot >= 0 {
			label, h = h[:dot], h[dot+1:]
			if h == "" {
				return false
			}
		} else {
			h = ""
			if !strings.ContainsFunc(label, func(r rune) bool { return r < utf8.RuneSelf && isASCIIAlpha(byte(r)) }) {
				return false
			}
		}
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
	}
	return true
}

func isASCIIAlpha(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

func isASCIIAlnum(c byte) bool { return isASCIIAlpha(c) || (c >= '0' && c <= '9') }

// hasPrefixFold is strings.HasPrefix ignoring ASCII case, for URL schemes.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
