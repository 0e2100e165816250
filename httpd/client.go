package httpd

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientAddr returns the client's address: the connection's peer, or, when
// that peer is a trusted proxy, the right-most X-Forwarded-For entry that is
// not itself a trusted proxy. Entries a client wrote itself (to the left)
// are never believed.
func ClientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	peer = peer.Unmap()
	if !contains(trusted, peer) {
		return peer
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return peer // a malformed hop: stop trusting the chain
		}
		a = a.Unmap()
		if !contains(trusted, a) {
			return a
		}
	}
	return peer
}

// ClientKey is the rate-limit key for a client address. IPv6 clients are
// grouped by /64, the block a single subscriber usually holds, so rotating
// addresses within it does not reset the limit.
func ClientKey(a netip.Addr) string {
	if !a.IsValid() {
		return "unknown"
	}
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

func contains(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
