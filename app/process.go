package app

import (
	"context"
	"log/slog"

	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/worker"
)

// socialPort is the social service as the inbox job sees it
// (federation.Social): federation cannot import social, whose delivery
// jobs are built from federation's documents, so the two answers that
// take a social.FollowRef are adapted here.
type socialPort struct{ *social.Service }

func (s socialPort) AcceptedFollow(ctx context.Context, actorID, activityURI, personaID string) error {
	return s.Accepted(ctx, actorID, social.FollowRef{ActivityURI: activityURI, PersonaID: personaID})
}

func (s socialPort) RejectedFollow(ctx context.Context, actorID, activityURI, personaID string) error {
	return s.Rejected(ctx, actorID, social.FollowRef{ActivityURI: activityURI, PersonaID: personaID})
}

// registerInboxProcess registers inbox.process and the answers to quote
// requests (accept_quote, reject_quote) of rt into r (see
// registerFederationJobs): the items the inbox endpoint stored, the
// resolver's signed GETs, the social service. For the prototype runtime
// the handlers are built but never run.
func registerInboxProcess(r *worker.Registry, rt *runtime, log *slog.Logger) {
	d := federation.ProcessDeps{Site: rt.site, Store: rt.eng.store, Items: federation.StoreItems{Store: rt.eng.store},
		Keys: rt.keys, Log: log}
	if rt.out != nil {
		d.Out = rt.out
	}
	if rt.resolver != nil {
		d.Fetcher = rt.resolver
	}
	if rt.social != nil {
		d.Social = socialPort{rt.social}
	}
	federation.RegisterInboxProcess(r, d)
}
