package app

import (
	"context"
	"log/slog"
	"time"

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

// registerInboxJobs registers inbox.process and the answers to quote
// requests (accept_quote, reject_quote) of rt into r. items are the inbox
// endpoint's stored activities and fetcher its resolver (signed GETs by
// the primary persona). With rt.social nil (the prototype registry, before
// setup) only the topics and policies matter: the handlers never run.
func registerInboxJobs(r *worker.Registry, rt *runtime, log *slog.Logger, now func() time.Time, items federation.Items, fetcher federation.Fetcher) {
	d := federation.ProcessDeps{Site: rt.site, Items: items, Fetcher: fetcher, Keys: rt.keys, Log: log, Now: now}
	if rt.eng != nil {
		d.Store = rt.eng.store
	}
	if rt.out != nil {
		d.Out = rt.out
	}
	if rt.social != nil {
		d.Social = socialPort{rt.social}
	}
	federation.RegisterInboxJobs(r, d)
}
