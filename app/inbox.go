package app

import (
	"context"
	"net/http"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/httpd"
)

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

// wireInbox builds the inbox endpoint over the federation handler.
func (a *App) wireInbox(rt *runtime) {
	rate := float64(rt.cfg.InboxRateLimit)
	rt.inbox = federation.NewInbox(federation.InboxDeps{Handler: rt.fed, Store: rt.eng.store, Verifier: rt.verifier,
		Log: a.log, TrustedProxies: rt.cfg.TrustedProxy, OneShot: a.opts.OneShot,
		ClientRate: rate, ClientBurst: 4 * rate, DomainRate: rate, DomainBurst: 4 * rate})
}

// inbox serves POST /inbox and POST /@name/inbox once setup is complete.
func (a *App) inbox(w http.ResponseWriter, r *http.Request) {
	if rt := a.rt.Load(); rt != nil && rt.inbox != nil {
		rt.inbox.ServeHTTP(w, r)
		return
	}
	httpd.WriteError(w, r, a.log, murlog.NotFound("page"))
}
