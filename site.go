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

// PostURL is the stable address of a local post: its ActivityPub id, and
// the page of a post without a slug.
func (s Site) PostURL(username, id string) string { return s.PersonaURL(username) + "/" + id }

// PageURL is the public page of a local post: its slug address
// /@name/<slug> when it has a slug (an IRI: the slug's letters outside
// ASCII are percent-encoded), else PostURL. Pages, feeds, the sitemap and
// an Article's url use it; the ActivityPub id stays PostURL.
func (s Site) PageURL(username, id, slug string) string {
	if slug == "" {
		return s.PostURL(username, id)
	}
	return s.PersonaURL(username) + "/" + url.PathEscape(slug)
}

// TagURL is the local page listing posts with a hashtag.
func (s Site) TagURL(tag string) string { return s.Base() + "/tags/" + url.PathEscape(tag) }

// MentionURL is where a mention of user@host links before the account is
// resolved: the Mastodon-style profile path on that host.
func (s Site) MentionURL(user, host string) string {
	return "https://" + host + "/@" + url.PathEscape(user)
}

// The ActivityPub addresses of a local persona. The actor's id is its
// profile URL: the same URL answers HTML to browsers and the actor JSON to
// ActivityPub clients (content negotiation), as Mastodon's /@name does.

// ActorURL is the ActivityPub id of a local persona.
func (s Site) ActorURL(username string) string { return s.PersonaURL(username) }

// KeyID is the id of a persona's RSA key. "/main-key" (the form some
// servers build) resolves too; see federation.
func (s Site) KeyID(username string) string { return s.ActorURL(username) + "#main-key" }

// InboxURL is a persona's own inbox.
func (s Site) InboxURL(username string) string { return s.ActorURL(username) + "/inbox" }

// OutboxURL is a persona's outbox collection.
func (s Site) OutboxURL(username string) string { return s.ActorURL(username) + "/outbox" }

// FollowersURL is a persona's followers collection; it is also the address
// a followers-only post is sent to.
func (s Site) FollowersURL(username string) string { return s.ActorURL(username) + "/followers" }

// FollowingURL is a persona's following collection.
func (s Site) FollowingURL(username string) string { return s.ActorURL(username) + "/following" }

// FeaturedURL is a persona's pinned posts (Mastodon's featured collection).
func (s Site) FeaturedURL(username string) string { return s.ActorURL(username) + "/featured" }

// SharedInboxURL is the inbox for every persona of the site.
func (s Site) SharedInboxURL() string { return s.Base() + "/inbox" }

// RepliesURL is the replies collection of a local post.
func (s Site) RepliesURL(username, id string) string { return s.PostURL(username, id) + "/replies" }

// ActivityURL is the id of an activity a persona sent (Follow, Like,
// Announce, Block, Accept, Create, Update, Delete, Undo): unique, so an
// Undo can name exactly the activity it undoes.
func (s Site) ActivityURL(username, id string) string {
	return s.ActorURL(username) + "/activities/" + id
}
