package app

import "github.com/murlog/murlog/inbox"

// wireInbox builds the inbox endpoint over the federation handler's
// personas and the signature verifier.
func (a *App) wireInbox(rt *running) {
	rate := float64(rt.cfg.InboxRateLimit)
	rt.inbox = inbox.New(inbox.Deps{Personas: rt.fed, Store: rt.eng.store, Verifier: rt.verifier,
		Log: a.log, TrustedProxies: rt.cfg.TrustedProxy, OneShot: a.opts.OneShot,
		ClientRate: rate, ClientBurst: 4 * rate, DomainRate: rate, DomainBurst: 4 * rate})
}
