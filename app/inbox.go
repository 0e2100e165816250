package app

import (
	"context"

	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/store"
)

// wireInbox builds the inbox endpoint over the federation handler's
// personas and the signature verifier.
func (a *App) wireInbox(rt *running) {
	rate := float64(rt.cfg.InboxRateLimit)
	var blocks *httpd.BlockShield
	var identities httpd.BlockCounter
	if rt.shields != nil {
		blocks, identities = rt.shields.inbox, store.ShieldHits{Store: rt.eng.store}
	}
	rt.inbox = inbox.New(inbox.Deps{Personas: rt.fed, Store: rt.eng.store, Verifier: rt.verifier,
		Log: a.log, TrustedProxies: rt.cfg.TrustedProxy, OneShot: a.opts.OneShot, Blocks: blocks, Identities: identities,
		ClientRate: rate, ClientBurst: 4 * rate, DomainRate: rate, DomainBurst: 4 * rate,
		SignerRate: rate, SignerBurst: 4 * rate, ActorRate: rate / 4, ActorBurst: rate, Now: a.opts.Now,
		// Controls unknown (never read, unreadable now) keep it shut:
		// the database is down anyway, and senders retry.
		Intake: func(ctx context.Context) bool {
			st, err := rt.controls.Current(ctx)
			return err == nil && st.Switches.Inbox
		}})
}
