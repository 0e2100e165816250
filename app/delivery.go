package app

import (
	"context"
	"log/slog"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery/deliver"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/worker"
)

// registerDelivery registers the outbound delivery jobs of rt into r (see
// registerFederationJobs): the activities they build name the site's
// domain and are signed by rt's keys, both known once setup is complete.
// For the prototype runtime the handlers are built but never run.
func registerDelivery(r *worker.Registry, rt *runtime, log *slog.Logger) {
	d := deliver.Deps{Store: rt.eng.store, Site: rt.site, Domains: domains.New(rt.eng.store), Log: log}
	if rt.out != nil {
		d.Out = rt.out
	}
	if rt.keys != nil {
		d.Keys = rt.keys
	}
	deliver.Register(r, d)
}

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
// once a resolver is wired (rt.mentions, set with the federation
// resolver: rt.mentions = mentionResolver{rt.resolver}).
func newPosts(rt *runtime) *post.Service {
	s := post.New(rt.eng.store, rt.site)
	if rt.mentions != nil {
		s.WithMentions(rt.mentions)
	}
	return s
}
