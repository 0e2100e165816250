package app

import "github.com/murlog/murlog/api"

// socialAPI adds the social side to the API's deps once federation is
// wired (setup complete): the social service, the store its views read
// and the resolver for remote lookups. Before that the social methods
// answer unavailable.
func socialAPI(rt *runtime, d api.Deps) api.Deps {
	if rt.social == nil {
		return d
	}
	d.Social, d.Store = rt.social, rt.eng.store
	if rt.resolver != nil {
		d.Remote = rt.resolver
	}
	return d
}
