package fedtest

import "github.com/murlog/murlog/app"

// federate points an instance's outbound client at names (it reaches
// loopback because Start sets MURLOG_ALLOW_PRIVATE_NETWORK) and makes it a
// cavage-only peer when asked.
func federate(o *app.Options, names *Names, cavageOnly bool) {
	o.Resolver = names
	o.CavageOnly = cavageOnly
}
