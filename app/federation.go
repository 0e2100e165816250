package app

import (
	"context"
	"fmt"
	"net/http"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/delivery/deliver"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/worker"
)

// newOutbound returns the one HTTP client of a running site: every remote
// fetch and delivery goes through it, and so through its address guard.
// A site served over plain http (a lab, the two-instance tests) may fetch
// over http too; allow_private_network lets it reach loopback and private
// addresses. Which signature scheme each domain accepted is kept in the
// database (outbound.NewStoredMemory), so CGI's short-lived workers knock
// once per domain, as serve does, not once per process.
func (a *App) newOutbound(cfg *config.Config, site murlog.Site, db store.Store) *outbound.Client {
	ua := "murlog/" + murlog.Version
	if site.Domain != "" {
		ua += " (+" + site.Base() + "/)"
	}
	return outbound.New(outbound.Options{
		AllowPrivate: cfg.AllowPrivateNetwork,
		AllowHTTP:    cfg.Scheme == "http",
		Resolver:     a.opts.Resolver,
		UserAgent:    ua,
		Memory:       outbound.NewStoredMemory(10000, domains.New(db), a.log),
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
// (setup complete): the social service, the personas' signers, the
// resolver and verifier, the endpoints' handler with its ports over the
// store, the inbox, and the federation job handlers.
func (a *App) wireFederation(rt *running) {
	db := rt.eng.store
	rt.social = social.New(db, rt.site)
	var schemes []outbound.Scheme
	if a.opts.CavageOnly {
		schemes = []outbound.Scheme{outbound.SchemeCavage} // a test peer of the old generation
	}
	rt.keys = federation.NewKeys(rt.site, a.opts.Now, schemes...)
	ports := federation.StorePorts{Store: db}
	a.wireVerifier(rt)
	rt.fed = federation.New(federation.Deps{Site: rt.site, Store: db, Log: a.log, Now: a.opts.Now, OneShot: a.opts.OneShot,
		Tombstones: ports, Followers: ports, FollowerCheck: ports, Pins: ports, Requester: rt.verifier})
	a.wireInbox(rt)
	rt.fedJobs = worker.NewRegistry()
	registerFederationJobs(rt.fedJobs,
		deliver.Deps{Store: db, Site: rt.site, Domains: domains.New(db), Out: rt.out, Keys: rt.keys, Log: a.log},
		inbox.ProcessDeps{Site: rt.site, Store: db, Items: inbox.StoreItems{Store: db}, Social: rt.social,
			Fetcher: rt.resolver, Out: rt.out, Keys: rt.keys, Log: a.log, Now: a.opts.Now})
}

// wireVerifier builds the remote actor resolver and the signature
// verifier. It runs before the federation handler exists (the handler
// asks the verifier about signed GETs), so the resolver finds the
// primary persona, whose key signs every fetch, through rt.fed once it
// is set.
func (a *App) wireVerifier(rt *running) {
	db := rt.eng.store
	rt.resolver = federation.NewResolver(federation.ResolverDeps{Site: rt.site, Store: db, Keys: rt.keys, Client: rt.out,
		Log: a.log, Now: a.opts.Now, Primary: func(ctx context.Context) (*murlog.Persona, error) {
			if rt.fed == nil {
				return nil, nil // still being built
			}
			return rt.fed.Primary(ctx)
		}})
	rt.verifier = federation.NewVerifier(federation.VerifierDeps{Site: rt.site, Store: db, Resolver: rt.resolver,
		Log: a.log, Now: a.opts.Now})
}

// The federation job handlers need what exists only once setup has named
// the domain (the site, the signers, the social service), but the worker
// reads its registry from the start, and serve mode completes setup in
// the same process. So the installed site's registry gets, for each
// federation topic, a forwarder with the topic's policy, and the running
// site builds the real handlers into rt.fedJobs, where the forwarders
// find them.

// registerFederationJobs registers every federation job type into r: the
// deliveries and the inbox's processing and quote answers.
func registerFederationJobs(r *worker.Registry, d deliver.Deps, p inbox.ProcessDeps) {
	deliver.Register(r, d)
	inbox.RegisterProcess(r, p)
}

// wireFederationJobs registers forwarders for the federation topics in
// the installed site's registry. The topics and policies are read from
// handlers built over the store alone, which never run.
func (a *App) wireFederationJobs(in *installed) {
	proto := worker.NewRegistry()
	st := in.eng.store
	registerFederationJobs(proto, deliver.Deps{Store: st, Log: a.log}, inbox.ProcessDeps{Store: st, Log: a.log})
	for _, topic := range proto.Topics() {
		in.registry.Handle(topic, a.forward(topic), proto.Policy(topic))
	}
}

// forward runs topic's handler of the running site. Before setup is
// complete there is none; the job is retried (nothing can have enqueued
// it then but a stray client, and it must not be lost).
func (a *App) forward(topic string) worker.HandlerFunc {
	return func(ctx context.Context, j *queue.Job) error {
		rt := a.running.Load()
		if rt == nil {
			return fmt.Errorf("%s: federation is not wired yet (setup incomplete)", topic)
		}
		fn, ok := rt.fedJobs.Handler(topic)
		if !ok {
			return queue.Permanent(fmt.Errorf("%s: no handler in the federation registry", topic))
		}
		return fn(ctx, j)
	}
}
