package app

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/worker"
)

// wireInbox builds the inbox endpoint over the federation handler's
// personas and the signature verifier.
func (a *App) wireInbox(rt *runtime) {
	rate := float64(rt.cfg.InboxRateLimit)
	rt.inbox = inbox.New(inbox.Deps{Personas: rt.fed, Store: rt.eng.store, Verifier: rt.verifier,
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

// registerInboxProcess registers inbox.process and the answers to quote
// requests (accept_quote, reject_quote) of rt into r (see
// registerFederationJobs): the items the inbox endpoint stored, the
// resolver's signed GETs, the social service. For the prototype runtime
// the handlers are built but never run.
func registerInboxProcess(r *worker.Registry, rt *runtime, log *slog.Logger, now func() time.Time) {
	d := inbox.ProcessDeps{Site: rt.site, Store: rt.eng.store, Items: inbox.StoreItems{Store: rt.eng.store}, Log: log, Now: now}
	if rt.out != nil {
		d.Out = rt.out
	}
	if rt.keys != nil {
		d.Keys = rt.keys
	}
	if rt.resolver != nil {
		d.Fetcher = rt.resolver
	}
	if rt.social != nil {
		d.Social = rt.social
	}
	inbox.RegisterProcess(r, d)
}
