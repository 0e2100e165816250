package app

import (
	"context"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/post"
)

// actorResolver is the federation resolver's lookup of an actor by
// handle ("@user@host"), which caches what it fetched.
type actorResolver interface {
	Resolve(ctx context.Context, q string) (*murlog.RemoteActor, error)
}

// mentionResolver resolves the mentions of a post being written with the
// federation resolver (post.Mentions).
type mentionResolver struct{ r actorResolver }

func (m mentionResolver) ResolveMention(ctx context.Context, user, host string) (actorURI, profileURL, inbox string, err error) {
	a, err := m.r.Resolve(ctx, "@"+user+"@"+host)
	if err != nil {
		return "", "", "", err
	}
	profile := a.URL
	if profile == "" {
		profile = a.URI
	}
	return a.URI, profile, a.Inbox, nil
}

// newPosts is the post service of rt, resolving mentions at post time
// with the federation resolver.
func newPosts(rt *running) *post.Service {
	return post.New(rt.eng.store, rt.site).WithMentions(mentionResolver{rt.resolver})
}
