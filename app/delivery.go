package app

import (
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/worker"
)

// registerDelivery registers the outbound delivery jobs of rt into r (see
// registerFederationJobs): the activities they build name the site's
// domain and are signed by rt's keys, both known once setup is complete.
// For the prototype runtime the handlers are built but never run.
func registerDelivery(r *worker.Registry, rt *runtime) {
	d := delivery.Deps{Store: rt.eng.store, Site: rt.site, Domains: domains.New(rt.eng.store)}
	if rt.out != nil {
		d.Out = rt.out
	}
	if rt.keys != nil {
		d.Keys = rt.keys
	}
	delivery.Register(r, d)
}
