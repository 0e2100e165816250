package murlog

import "net/url"

// Site is where this instance is served. Every public URL murlog generates
// comes from here, so the scheme (https, or http for a local test install)
// and the domain are decided in one place.
type Site struct {
	Scheme string // "https" or "http"
	Domain string // host[:port]
}

// Base returns the origin, e.g. "https://example.com".
func (s Site) Base() string { return s.Scheme + "://" + s.Domain }

// PersonaURL is the public profile page of a local persona.
func (s Site) PersonaURL(username string) string { return s.Base() + "/@" + username }

// PostURL is the public page of a local post.
func (s Site) PostURL(username, id string) string { return s.PersonaURL(username) + "/" + id }

// TagURL is the local page listing posts with a hashtag.
func (s Site) TagURL(tag string) string { return s.Base() + "/tags/" + url.PathEscape(tag) }

// MentionURL is where a mention of user@host links before the account is
// resolved: the Mastodon-style profile path on that host.
func (s Site) MentionURL(user, host string) string {
	return "https://" + host + "/@" + url.PathEscape(user)
}
