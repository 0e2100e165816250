package domains

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/murlog/murlog"
)

// maxDomain bounds host[:port]: 253 for a DNS name, 6 for ":65535".
const maxDomain = 253 + 6

// Normalize returns domain in the form the breaker keys it by: lower-case
// ASCII host[:port] (internationalised names in their xn-- form), IPv6
// addresses in brackets and canonical form, no trailing dot. Everything
// that records or looks up a domain goes through it, so "Example.COM."
// and "example.com" are one breaker. Schemes, paths, queries and user
// names are refused rather than stripped: a URL passed where a domain was
// expected is a caller's mistake worth seeing (FromURL takes URLs).
func Normalize(domain string) (string, error) {
	d := strings.TrimSpace(domain)
	switch {
	case d == "":
		return "", murlog.Invalid("domain", "is required")
	case len(d) > maxDomain*4: // generous before IDNA conversion; checked exactly below
		return "", murlog.Invalid("domain", "must be at most %d characters", maxDomain)
	case strings.Contains(d, "://"):
		return "", murlog.Invalid("domain", "must be a host such as example.com, without a scheme: %q", d)
	case strings.ContainsAny(d, "/?#@\\ \t\r\n"):
		return "", murlog.Invalid("domain", "must be host[:port] only, without a path, query or user name: %q", d)
	}
	host, port, err := splitHostPort(d)
	if err != nil {
		return "", err
	}
	if host, err = normalizeHost(host); err != nil {
		return "", err
	}
	if port != "" {
		host += ":" + port
	}
	if len(host) > maxDomain {
		return "", murlog.Invalid("domain", "must be at most %d characters", maxDomain)
	}
	return host, nil
}

// FromURL returns the normalised domain of an absolute http(s) URL, such
// as an inbox. The scheme's default port is dropped, so
// https://example.com:443/inbox and https://example.com/inbox share a
// breaker.
func FromURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", murlog.Invalid("url", "must be an absolute http or https URL")
	}
	d, err := Normalize(u.Host)
	if err != nil {
		return "", murlog.Invalid("url", "has a bad host: %s", murlog.ErrorMessage(err))
	}
	if u.Scheme == "https" {
		return strings.TrimSuffix(d, ":443"), nil
	}
	return strings.TrimSuffix(d, ":80"), nil
}

// splitHostPort splits host[:port] and checks the port. Unlike
// net.SplitHostPort the port is optional.
func splitHostPort(d string) (host, port string, err error) {
	rest := ""
	switch {
	case d[0] == '[':
		end := strings.IndexByte(d, ']')
		if end < 0 {
			return "", "", murlog.Invalid("domain", "has an unclosed '[': %q", d)
		}
		host, rest = d[:end+1], d[end+1:]
		if rest != "" && rest[0] != ':' {
			return "", "", murlog.Invalid("domain", "has text after the IPv6 address: %q", d)
		}
	case strings.Count(d, ":") > 1:
		return "", "", murlog.Invalid("domain", "an IPv6 address must be in brackets, as in [2001:db8::1]:8443: %q", d)
	default:
		i := strings.IndexByte(d, ':')
		if i < 0 {
			return d, "", nil
		}
		host, rest = d[:i], d[i:]
	}
	if rest == "" {
		return host, "", nil
	}
	p := rest[1:]
	n, err := strconv.Atoi(p)
	if err != nil || p[0] == '+' || p[0] == '-' || n < 1 || n > 65535 {
		return "", "", murlog.Invalid("domain", "has a bad port %q: use 1–65535", p)
	}
	return host, strconv.Itoa(n), nil
}

// normalizeHost lower-cases a DNS name or IPv4 address, or canonicalises
// a bracketed IPv6 address.
func normalizeHost(h string) (string, error) {
	if strings.HasPrefix(h, "[") {
		a, err := netip.ParseAddr(h[1 : len(h)-1])
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", murlog.Invalid("domain", "has a bad IPv6 address: %q", h)
		}
		return "[" + a.String() + "]", nil
	}
	if !isASCII(h) {
		// Converting would need golang.org/x/text (IDNA tables) for a
		// case ActivityPub servers avoid: they publish xn-- names.
		return "", murlog.Invalid("domain", "%q: write an internationalised name in its ASCII form (xn--…)", h)
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" {
		return "", murlog.Invalid("domain", "has no host name")
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return "", murlog.Invalid("domain", "%q has an empty label or one over 63 characters", h)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			// '_' is not valid in a host name, but it occurs in the wild
			// and refusing it would only stop the breaker from working.
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", murlog.Invalid("domain", "%q may contain only letters, digits, '-', '_' and '.'", h)
			}
		}
	}
	return h, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
