// Package markup turns the owner's post source into safe HTML.
//
// Notes are plain text rendered the way Mastodon renders plain-text statuses:
// everything is escaped, and only URLs, #hashtags and @user@host mentions
// become links. Articles are Markdown rendered with goldmark and then passed
// through an allow-list sanitizer (sanitize.go), so raw HTML in the source
// can never smuggle in scripts, event handlers or dangerous URLs.
//
// The package keeps no mutable global state and does no work at init time:
// murlog may run as a CGI program, where every request pays for package
// initialisation, and most requests never render Markdown at all.
package markup

import (
	"net/url"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
)

// Options configures how a Renderer builds links. Both functions are called
// only with values the scanner has already validated (tags contain letters,
// digits and underscores; users and hosts are ASCII), but their results are
// still attribute-escaped before being written.
type Options struct {
	// TagURL returns the href for a hashtag (without '#'), e.g.
	// "https://example.com/tags/golang". The tag is passed as written, so
	// the function should path-escape it. When nil, "/tags/" followed by the
	// path-escaped tag is used.
	TagURL func(tag string) string
	// MentionURL returns the href for a mention of user@host, e.g.
	// "https://host/@user". The host is already lowercased. When nil,
	// "https://host/@user" is used.
	MentionURL func(user, host string) string
}

// Mention is a remote account referenced as @user@host in a post.
type Mention struct {
	User string
	Host string
}

// Acct returns the mention as "user@host", the form WebFinger expects.
func (m Mention) Acct() string { return m.User + "@" + m.Host }

// Result is the output of rendering one post.
type Result struct {
	// HTML is safe to embed in a page and to federate as ActivityPub content.
	HTML string
	// Tags lists the distinct hashtags, without '#', in order of first
	// appearance and spelled as first written. Tags differing only in case
	// are the same tag.
	Tags []string
	// Mentions lists the distinct mentions in order of first appearance, with
	// the host lowercased. Users differing only in case are the same user.
	Mentions []Mention
}

// Renderer renders notes and articles. It is safe for concurrent use, and
// its zero value uses the default link URLs. The Markdown engine is built on
// first use, so a Renderer that only renders notes never pays for it; the
// sanitizer policy is plain code and needs no building at all.
type Renderer struct {
	tagURL     func(tag string) string
	mentionURL func(user, host string) string

	mdOnce sync.Once
	md     goldmark.Markdown
}

// New returns a Renderer using o. It is cheap: nothing heavy is built until
// Article is first called.
func New(o Options) *Renderer {
	return &Renderer{tagURL: o.TagURL, mentionURL: o.MentionURL}
}

// tagHref returns the link for tag, falling back to the default so that a
// zero Renderer works too.
func (r *Renderer) tagHref(tag string) string {
	if r.tagURL == nil {
		return defaultTagURL(tag)
	}
	return r.tagURL(tag)
}

// mentionHref returns the link for user@host, falling back to the default
// so that a zero Renderer works too.
func (r *Renderer) mentionHref(user, host string) string {
	if r.mentionURL == nil {
		return defaultMentionURL(user, host)
	}
	return r.mentionURL(user, host)
}

// defaultTagURL keeps tag links site-relative so that a Renderer built
// without options still produces working links.
func defaultTagURL(tag string) string { return "/tags/" + url.PathEscape(tag) }

// defaultMentionURL uses the Mastodon profile URL convention, which most
// fediverse servers redirect correctly.
func defaultMentionURL(user, host string) string { return "https://" + host + "/@" + user }

// collector accumulates the tags and mentions found while rendering one post.
// Posts hold only a handful of each, so linear de-duplication beats a map.
type collector struct {
	tags     []string
	mentions []Mention
}

// addTag records tag unless a case-insensitively equal tag was seen before.
func (c *collector) addTag(tag string) {
	for _, t := range c.tags {
		if strings.EqualFold(t, tag) {
			return
		}
	}
	c.tags = append(c.tags, tag)
}

// addMention records m (whose host is already lowercased) unless it was
// seen before.
func (c *collector) addMention(m Mention) {
	for _, x := range c.mentions {
		if x.Host == m.Host && strings.EqualFold(x.User, m.User) {
			return
		}
	}
	c.mentions = append(c.mentions, m)
}
