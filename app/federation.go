package app

import (
	"github.com/murlog/murlog"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/social"
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

// wireFederation builds what federation needs once the domain is known
// (setup complete): the social service, the personas' signers and the
// endpoints' handler with its ports over the store.
func (a *App) wireFederation(rt *runtime) {
	db := rt.eng.store
	rt.social = social.New(db, rt.site)
	rt.keys = federation.NewKeys(rt.site, a.opts.Now)
	ports := federation.StorePorts{Store: db}
	rt.fed = federation.New(federation.Deps{Site: rt.site, Store: db, Log: a.log, Now: a.opts.Now, OneShot: a.opts.OneShot,
		Tombstones: ports, Followers: ports, FollowerCheck: ports, Pins: ports})
}
