package fedtest

import "github.com/murlog/murlog/app"

// federate points an instance's outbound client at names and lets it
// reach loopback addresses.
//
// TODO(interop): set o.Resolver = names and o.AllowPrivateNetwork = true
// once app.Options has them (app/federation.go, merged from main).
func federate(o *app.Options, names *Names) {}
