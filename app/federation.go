package app

import (
	"github.com/murlog/murlog"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/outbound"
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
