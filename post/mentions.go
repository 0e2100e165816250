package post

import (
	"context"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/markup"
)

// Mentions resolves a mention @user@host to the account's actor id, its
// profile page and its inbox (WebFinger, then the actor document). The
// federation resolver implements it.
type Mentions interface {
	ResolveMention(ctx context.Context, user, host string) (actorURI, profileURL, inbox string, err error)
}

// Bounds of the lookups at post time: a post mentioning many accounts, or
// accounts on slow servers, must not hold the owner's request for long.
const (
	MaxMentionLookups = 20
	MentionTimeout    = 5 * time.Second
)

// WithMentions makes s resolve the mentions of what it writes with m, so
// each links to the account's real profile page and the post is
// addressed and delivered to it. Without it mentions stay links to the
// guessed https://host/@user and reach nobody who does not follow.
// Call it before s is used.
func (s *Service) WithMentions(m Mentions) *Service {
	s.mentions = m
	return s
}

// mentionSet is the resolved mentions of a post by acctKey.
type mentionSet map[string]murlog.PostMention

func acctKey(user, host string) string { return strings.ToLower(user) + "@" + strings.ToLower(host) }

// resolveMentions looks up the mentions in source (rendered as kind)
// outside any transaction: at most MaxMentionLookups, within
// MentionTimeout in all. A mention of this site, or one that does not
// resolve, is left out and stays a plain link. nil when s has no
// resolver or source mentions nobody.
func (s *Service) resolveMentions(ctx context.Context, kind murlog.PostKind, source string) mentionSet {
	if s.mentions == nil || !strings.Contains(source, "@") {
		return nil
	}
	r := render(s.renderer, kind, source)
	if len(r.Mentions) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, MentionTimeout)
	defer cancel()
	set := mentionSet{}
	for i, m := range r.Mentions {
		if i >= MaxMentionLookups || ctx.Err() != nil {
			break
		}
		if strings.EqualFold(m.Host, s.site.Domain) {
			continue
		}
		uri, profile, inbox, err := s.mentions.ResolveMention(ctx, m.User, m.Host)
		if err != nil || uri == "" || inbox == "" {
			continue
		}
		set[acctKey(m.User, m.Host)] = murlog.PostMention{URI: uri, Name: "@" + m.User + "@" + m.Host, URL: profile, Inbox: inbox}
	}
	return set
}

// rendererFor returns the renderer linking each mention in known to its
// profile page, s.renderer when known is empty.
func (s *Service) rendererFor(known mentionSet) *markup.Renderer {
	if len(known) == 0 {
		return s.renderer
	}
	return markup.New(markup.Options{TagURL: s.site.TagURL, MentionURL: func(user, host string) string {
		if m, ok := known[acctKey(user, host)]; ok && m.URL != "" {
			return m.URL
		}
		return s.site.MentionURL(user, host)
	}})
}

// keptMentions is p's stored mentions as a set, for re-rendering a post
// whose text did not get new lookups.
func keptMentions(p *murlog.Post) mentionSet {
	if len(p.Mentions) == 0 {
		return nil
	}
	set := make(mentionSet, len(p.Mentions))
	for _, m := range p.Mentions {
		user, host, ok := strings.Cut(strings.TrimPrefix(m.Name, "@"), "@")
		if ok {
			set[acctKey(user, host)] = m
		}
	}
	return set
}

// mentioned is the entries of known that r mentions, in r's order.
func mentioned(r markup.Result, known mentionSet) []murlog.PostMention {
	var out []murlog.PostMention
	for _, m := range r.Mentions {
		if pm, ok := known[acctKey(m.User, m.Host)]; ok {
			out = append(out, pm)
		}
	}
	return out
}
