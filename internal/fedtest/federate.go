package fedtest

import "github.com/murlog/murlog/app"

// federate points an instance's outbound client at names and lets it
// reach loopback addresses.
//
// TODO(interop): set o.Resolver = names, o.AllowPrivateNetwork = true and
// o.CavageOnly once app.Options has them (app/federation.go, from main).
func federate(o *app.Options, names *Names, cavageOnly bool) {}
