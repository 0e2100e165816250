package app

import (
	"slices"

	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/federation"
)

// wireDelivery registers the outbound delivery jobs once setup is
// complete: the activities name the site's domain, known only then. The
// registry outlives the rewiring after setup, so they are registered
// once, by whichever wiring first sees the site complete.
func (a *App) wireDelivery(rt *runtime) {
	if !rt.complete.Load() || slices.Contains(rt.registry.Topics(), delivery.TopicDeliverPost) {
		return
	}
	delivery.Register(rt.registry, delivery.Deps{Store: rt.eng.store, Site: rt.site, Out: rt.out,
		Keys: federation.NewKeys(rt.site, a.opts.Now), Domains: domains.New(rt.eng.store), Log: a.log})
}
