package activitypub

import (
	"strings"
	"sync"
	"sync/atomic"
)

// MediaType is the ActivityPub media type murlog sends and prefers.
const MediaType = "application/activity+json"

// LDProfile is the JSON-LD profile that makes application/ld+json mean
// ActivityStreams.
const LDProfile = "https://www.w3.org/ns/activitystreams"

// Accepts reports whether an Accept header prefers an ActivityPub
// representation: application/activity+json, or application/ld+json with
// the ActivityStreams profile (or no profile, which Mastodon also takes as
// ActivityPub) with a q-value above 0 and not below the q-value text/html
// gets from the same header. Only an explicit ActivityPub type counts:
// "*/*" alone asks for nothing in particular and gets HTML. Parsing
// follows RFC 9110 loosely, as real servers write the header: spaces
// around ";" and "=" optional, quoted or bare parameter values, several
// space-separated profiles, any letter case.
func Accepts(accept string) bool {
	if accept == MediaType {
		return true // what most servers send
	}
	if len(accept) > maxRemembered {
		return accepts(accept)
	}
	if v, ok := remembered.Load(accept); ok {
		return v.(bool)
	}
	v := accepts(accept)
	if rememberedN.Add(1) <= maxRemembered {
		remembered.Store(accept, v)
	}
	return v
}

// Answers of Accepts, by header: a crowd of servers and browsers sends a
// handful of distinct Accept headers, and every read of a persona's
// address asks (parsing one was a tenth of what an artifact hit cost
// murlog serve). The first maxRemembered headers of up to maxRemembered
// bytes are kept for the process's life — bounded whatever clients send;
// the rest are parsed each time.
const maxRemembered = 256

var (
	remembered  sync.Map // string → bool
	rememberedN atomic.Int64
)

func accepts(accept string) bool {
	ap, html := -1.0, -1.0
	htmlSpecific := -1 // how specific the range that set html was
	forEachOutsideQuotes(accept, ',', func(r string) {
		m, ok := parseMediaRange(r)
		if !ok {
			return
		}
		switch {
		case m.isActivityPub():
			ap = max(ap, m.q)
		case m.typ == "text" && m.sub == "html", m.typ == "application" && m.sub == "xhtml+xml":
			html, htmlSpecific = higherFor(html, htmlSpecific, m.q, 2)
		case m.typ == "text" && m.sub == "*":
			html, htmlSpecific = higherFor(html, htmlSpecific, m.q, 1)
		case m.typ == "*" && m.sub == "*":
			html, htmlSpecific = higherFor(html, htmlSpecific, m.q, 0)
		}
	})
	return ap > 0 && ap >= html
}

// higherFor keeps the q-value of the most specific range matching HTML
// (RFC 9110 §12.5.1); among ranges equally specific, the highest.
func higherFor(q float64, spec int, nq float64, nspec int) (float64, int) {
	switch {
	case nspec > spec:
		return nq, nspec
	case nspec == spec:
		return max(q, nq), spec
	}
	return q, spec
}

// IsActivityContentType reports whether the Content-Type of an inbox POST
// is an ActivityPub type: application/activity+json (with any charset) or
// application/ld+json with the ActivityStreams profile or none.
// Implementations differ in spelling — a space or none before profile=,
// quoted or not, a charset too — and all of those are accepted. A header
// listing several values (not valid, but seen) is judged by its first.
func IsActivityContentType(ct string) bool {
	first := ""
	forEachOutsideQuotes(ct, ',', func(part string) {
		if first == "" {
			first = part
		}
	})
	m, ok := parseMediaRange(first)
	return ok && m.isActivityPub()
}

// mediaRange is one element of an Accept or Content-Type header.
type mediaRange struct {
	typ, sub   string // lower case
	q          float64
	profile    string // space-separated profile URIs
	hasProfile bool
}

func (m mediaRange) isActivityPub() bool {
	if !strings.EqualFold(m.typ, "application") {
		return false
	}
	switch {
	case strings.EqualFold(m.sub, "activity+json"):
		return true
	case strings.EqualFold(m.sub, "ld+json"):
		if !m.hasProfile {
			return true
		}
		for p := range strings.FieldsSeq(m.profile) {
			if isASProfile(p) {
				return true
			}
		}
	}
	return false
}

// isASProfile accepts the ActivityStreams namespace in either scheme,
// with or without a trailing "#" or "/", in any case.
func isASProfile(p string) bool {
	p = strings.TrimRight(p, "#/")
	if len(p) > 8 && strings.EqualFold(p[:8], "https://") {
		p = p[8:]
	} else if len(p) > 7 && strings.EqualFold(p[:7], "http://") {
		p = p[7:]
	}
	return strings.EqualFold(p, "www.w3.org/ns/activitystreams")
}

// parseMediaRange parses `type/sub *( ; name=value )`. A missing or
// malformed q counts as 1 and 0 respectively; q is clamped to [0, 1].
func parseMediaRange(s string) (mediaRange, bool) {
	var m mediaRange
	ok, first := false, true
	forEachOutsideQuotes(s, ';', func(p string) {
		if first {
			first = false
			typ, sub, found := strings.Cut(p, "/")
			m.typ, m.sub = strings.TrimSpace(typ), strings.TrimSpace(sub)
			ok = found && m.typ != "" && m.sub != ""
			m.q = 1
			return
		}
		name, val, found := strings.Cut(p, "=")
		if !found {
			return
		}
		name = strings.TrimSpace(name)
		val = unquoteParam(strings.TrimSpace(val))
		switch {
		case strings.EqualFold(name, "q"):
			m.q = parseQ(val)
		case strings.EqualFold(name, "profile"):
			if m.hasProfile {
				m.profile += " " + val
			} else {
				m.profile = val
			}
			m.hasProfile = true
		}
	})
	if !ok {
		return mediaRange{}, false
	}
	m.typ, m.sub = lowerASCII(m.typ), lowerASCII(m.sub)
	return m, true
}

// lowerASCII lower-cases s, without allocating when it already is.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// parseQ reads a qvalue ("0", "0.5", "1.000"); anything else is 0, so a
// garbled weight never promotes a type.
func parseQ(s string) float64 {
	if s == "" || len(s) > 5 {
		return 0
	}
	whole := s[0]
	if whole != '0' && whole != '1' {
		return 0
	}
	q := float64(whole - '0')
	if len(s) == 1 {
		return q
	}
	if s[1] != '.' {
		return 0
	}
	scale := 0.1
	for _, c := range s[2:] {
		if c < '0' || c > '9' {
			return 0
		}
		q += float64(c-'0') * scale
		scale /= 10
	}
	return min(q, 1)
}

// unquoteParam removes the quotes of a media-type parameter's
// quoted-string and its backslash escapes.
func unquoteParam(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	s = s[1 : len(s)-1]
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// forEachOutsideQuotes calls fn with each element of s split at sep,
// except inside quoted strings, trimmed, empty elements skipped. It does
// not allocate: Accept headers are parsed on every ActivityPub request.
func forEachOutsideQuotes(s string, sep byte, fn func(string)) {
	start, quoted := 0, false
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch c := s[i]; {
			case c == '\\' && quoted:
				i++
				continue
			case c == '"':
				quoted = !quoted
				continue
			case c != sep || quoted:
				continue
			}
		}
		if t := strings.TrimSpace(s[start:min(i, len(s))]); t != "" {
			fn(t)
		}
		start = i + 1
	}
}
