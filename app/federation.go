package app

import (
	"context"
	"fmt"
	"net/http"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/worker"
)

// newOutbound returns the one HTTP client of a runtime: every remote
// fetch and delivery goes through it, and so through its address guard.
// A site served over plain http (a lab, the two-instance tests) may fetch
// over http too; allow_private_network lets it reach loopback and private
// addresses.
func (a *App) newOutbound(cfg *config.Config, site murlog.Site) *outbound.Client {
	ua := "murlog/" + murlog.Version
	if site.Domain != "" {
		ua += " (+" + site.Base() + "/)"
	}
	return outbound.New(outbound.Options{
		AllowPrivate: cfg.AllowPrivateNetwork,
		AllowHTTP:    cfg.Scheme == "http",
		Resolver:     a.opts.Resolver,
		UserAgent:    ua,
	})
}

// refuseRFC9421Inbox answers 401 to an inbox POST signed with RFC 9421
// (it carries Signature-Input), as a server that knows only draft-cavage
// refuses a signature it cannot read. Test-only: see Options.CavageOnly.
func refuseRFC9421Inbox(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && inbox.IsPath(r.URL.Path) && r.Header.Get("Signature-Input") != "" {
			http.Error(w, "signature not understood (this peer speaks only draft-cavage)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// wireFederation builds what federation needs once the domain is known
// (setup complete): the social service, the personas' signers and the
// endpoints' handler with its ports over the store.
func (a *App) wireFederation(rt *runtime) {
	db := rt.eng.store
	rt.social = social.New(db, rt.site)
	var schemes []outbound.Scheme
	if a.opts.CavageOnly {
		schemes = []outbound.Scheme{outbound.SchemeCavage} // a test peer of the old generation
	}
	rt.keys = federation.NewKeys(rt.site, a.opts.Now, schemes...)
	ports := federation.StorePorts{Store: db}
	a.wireVerifier(rt)
	rt.mentions = mentionResolver{rt.resolver}
	rt.fed = federation.New(federation.Deps{Site: rt.site, Store: db, Log: a.log, Now: a.opts.Now, OneShot: a.opts.OneShot,
		Tombstones: ports, Followers: ports, FollowerCheck: ports, Pins: ports, Requester: rt.verifier})
	a.wireInbox(rt)
	rt.fedJobs = worker.NewRegistry()
	a.registerFederationJobs(rt.fedJobs, rt)
}

// wireVerifier builds the remote actor resolver and the signature
// verifier of a complete runtime. It runs before the federation handler
// exists (the handler asks the verifier about signed GETs), so the
// resolver finds the primary persona, whose key signs every fetch,
// through rt.fed once it is set.
func (a *App) wireVerifier(rt *runtime) {
	db := rt.eng.store
	rt.resolver = federation.NewResolver(federation.ResolverDeps{Site: rt.site, Store: db, Keys: rt.keys, Client: rt.out,
		Log: a.log, Now: a.opts.Now, Primary: func(ctx context.Context) (*murlog.Persona, error) {
			if rt.fed == nil {
				return nil, nil
			}
			return rt.fed.Primary(ctx)
		}})
	rt.verifier = federation.NewVerifier(federation.VerifierDeps{Site: rt.site, Store: db, Resolver: rt.resolver,
		Log: a.log, Now: a.opts.Now})
}

// The federation job handlers need what exists only once setup has named
// the domain (the site, the signers, the social service), but the worker
// reads its registry from the start, and serve mode completes setup in
// the same process. So the runtime registry gets, for each federation
// topic, a forwarder with the topic's policy, and each wiring of a
// complete runtime builds the real handlers into rt.fedJobs, where the
// forwarders find them.

// registerFederationJobs registers every federation job type of rt into
// r. With rt.social nil (the prototype registry, built before setup) it
// must register the same topics and policies; the handlers are not run.
func (a *App) registerFederationJobs(r *worker.Registry, rt *runtime) {
	registerDelivery(r, rt, a.log)
	registerInboxProcess(r, rt, a.log, a.opts.Now)
}

// wireFederationJobs registers forwarders for the federation topics in
// the runtime's registry.
func (a *App) wireFederationJobs(rt *runtime) {
	proto := worker.NewRegistry()
	a.registerFederationJobs(proto, &runtime{cfg: rt.cfg, eng: rt.eng})
	for _, topic := range proto.Topics() {
		rt.registry.Handle(topic, a.forward(topic), proto.Policy(topic))
	}
}

// forward runs topic's handler of the current runtime. Before setup is
// complete there is none; the job is retried (nothing can have enqueued
// it then but a stray client, and it must not be lost).
func (a *App) forward(topic string) worker.HandlerFunc {
	return func(ctx context.Context, j *queue.Job) error {
		rt := a.rt.Load()
		if rt == nil || rt.fedJobs == nil {
			return fmt.Errorf("%s: federation is not wired yet (setup incomplete)", topic)
		}
		fn, ok := rt.fedJobs.Handler(topic)
		if !ok {
			return queue.Permanent(fmt.Errorf("%s: no handler in the federation registry", topic))
		}
		return fn(ctx, j)
	}
}
