package activitypub

import (
	"net/url"
	"strings"

	"github.com/murlog/murlog"
)

// Addressing returns the to and cc of a post by the actor whose followers
// collection is followers, mentioning the actors mentions, as Mastodon
// addresses them:
//
//	public:    to [Public]     cc [followers, mentions…]
//	unlisted:  to [followers]  cc [Public, mentions…]
//	followers: to [followers]  cc [mentions…]
//	direct:    to [mentions…]
//
// An unknown visibility is addressed as direct, the narrowest.
func Addressing(v murlog.Visibility, followers string, mentions []string) (to, cc []string) {
	ms := make([]string, 0, len(mentions))
	for _, m := range mentions {
		if m != "" && m != followers && !IsPublic(m) && !contains(ms, m) {
			ms = append(ms, m)
		}
	}
	switch v {
	case murlog.VisibilityPublic:
		return []string{Public}, append([]string{followers}, ms...)
	case murlog.VisibilityUnlisted:
		return []string{followers}, append([]string{Public}, ms...)
	case murlog.VisibilityFollowers:
		return []string{followers}, ms
	}
	return ms, nil
}

// VisibilityOf is the inverse of Addressing for an incoming post: Public in
// to is public, Public in cc (or audience) unlisted, the sender's
// followers collection addressed is followers-only, anything else direct.
// followers is the sender's followers collection URL; when it is not known
// (""), an addressee ending in "/followers" is taken for it.
func VisibilityOf(o *Object, followers string) murlog.Visibility {
	if o == nil {
		return murlog.VisibilityDirect
	}
	for _, a := range o.To {
		if IsPublic(a) {
			return murlog.VisibilityPublic
		}
	}
	for _, list := range [][]string{o.Cc, o.Audience, o.Bto, o.Bcc} {
		for _, a := range list {
			if IsPublic(a) {
				return murlog.VisibilityUnlisted
			}
		}
	}
	for _, list := range [][]string{o.To, o.Cc, o.Audience} {
		for _, a := range list {
			if (followers != "" && a == followers) || (followers == "" && strings.HasSuffix(a, "/followers")) {
				return murlog.VisibilityFollowers
			}
		}
	}
	return murlog.VisibilityDirect
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// HostOf returns the lower-case host[:port] of an absolute http or https
// URL, without the scheme's default port, or "" for anything else
// (relative IRIs, other schemes, URLs with user information).
func HostOf(iri string) string {
	_, host := origin(iri)
	return host
}

// SameOrigin reports whether a and b are absolute http(s) URLs with the
// same scheme, host and port: the check that an object belongs to the
// actor that sends it.
func SameOrigin(a, b string) bool {
	sa, ha := origin(a)
	sb, hb := origin(b)
	return ha != "" && sa == sb && ha == hb
}

func origin(iri string) (scheme, host string) {
	u, err := url.Parse(iri)
	if err != nil || u.User != nil || u.Host == "" || u.Opaque != "" {
		return "", ""
	}
	switch u.Scheme {
	case "http", "https":
	default:
		return "", ""
	}
	h := strings.ToLower(u.Hostname())
	if h == "" {
		return "", ""
	}
	port := u.Port()
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	if port != "" {
		h += ":" + port
	}
	return u.Scheme, h
}
