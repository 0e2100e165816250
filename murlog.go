// Package murlog holds the domain vocabulary shared by every layer: the error
// codes, identifiers and the domain types that services, the store port and
// the transports exchange. It imports nothing of murlog's own and no I/O.
package murlog

// Version is the release of this binary; set at build time with
// -ldflags "-X github.com/murlog/murlog.Version=v1.2.3".
var Version = "dev"
