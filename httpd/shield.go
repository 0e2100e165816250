package httpd

import (
	"net/http"
	"net/netip"

	"github.com/murlog/murlog"
)

// Shield rate-limits an expensive anonymous endpoint per client network:
// a token bucket keyed by NetworkKey, taken before any work is done, so a
// refusal costs one map lookup. The zero Trusted trusts no proxy. Like
// Buckets, it remembers nothing across CGI processes.
type Shield struct {
	Buckets
	// Trusted are the networks whose X-Forwarded-For names the client
	// (config trusted_proxy).
	Trusted []netip.Prefix
}

// Allow takes a token for r's client network. When there is none, it
// returns an ERateLimited error whose RetryAfter says when to come back
// (WriteError turns it into a 429 with Retry-After).
func (s *Shield) Allow(r *http.Request) error {
	ok, retry := s.Buckets.Allow(NetworkKey(ClientAddr(r, s.Trusted)))
	if ok {
		return nil
	}
	return &murlog.Error{Code: murlog.ERateLimited, Message: "too many requests from your network: try again in a moment",
		RetryAfter: retry}
}

// Network sizes of NetworkKey: the block one household, office or host
// usually holds (an IPv6 site is given a /56 or a /48), so a client that
// moves between its own addresses keeps its limit.
const (
	NetworkBitsV4 = 24
	NetworkBitsV6 = 56
)

// NetworkKey is the rate-limit key of a client's network: its /24 for
// IPv4 (an IPv4-mapped IPv6 address counts as IPv4), its /56 for IPv6.
func NetworkKey(a netip.Addr) string { return prefixKey(a, NetworkBitsV4, NetworkBitsV6) }

// prefixKey is a's network of v4 bits (IPv4, an IPv4-mapped address
// included) or v6 bits, "unknown" for no address.
func prefixKey(a netip.Addr, v4, v6 int) string {
	if !a.IsValid() {
		return "unknown"
	}
	a = a.Unmap()
	bits := v6
	if a.Is4() {
		bits = v4
	}
	p, _ := a.Prefix(bits)
	return p.String()
}
