package outbound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"github.com/murlog/murlog"
)

// ErrForbiddenAddress is wrapped by every error of the address guard: a
// host that resolves (or redirects) to a loopback, private, link-local,
// CGNAT, metadata or otherwise non-public address. errors.Is finds it.
var ErrForbiddenAddress = errors.New("outbound: forbidden address")

// addrError names the refused address; it stays in logs (through
// murlog.Error.Err), the client-safe message names only the host.
type addrError struct {
	host   string
	addr   netip.Addr
	reason string
}

func (e *addrError) Error() string {
	return fmt.Sprintf("refused address %s for host %s (%s)", e.addr, e.host, e.reason)
}

func (e *addrError) Unwrap() error { return ErrForbiddenAddress }

// special is one range that is never dialled, with the reason logged.
type special struct {
	p      netip.Prefix
	reason string
}

func prefixes(reason string, ps ...string) []special {
	out := make([]special, len(ps))
	for i, p := range ps {
		out[i] = special{netip.MustParsePrefix(p), reason}
	}
	return out
}

// refused4 follows IANA's IPv4 special-purpose registry: no range in it
// holds a server reachable on the public internet.
var refused4 = concat(
	prefixes("this network", "0.0.0.0/8"),
	prefixes("private network", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"),
	prefixes("shared address space (CGNAT)", "100.64.0.0/10"),
	prefixes("loopback", "127.0.0.0/8"),
	prefixes("link-local or cloud metadata", "169.254.0.0/16"),
	prefixes("IETF protocol assignments", "192.0.0.0/24"),
	prefixes("documentation", "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"),
	prefixes("6to4 relay anycast", "192.88.99.0/24"),
	prefixes("benchmarking", "198.18.0.0/15"),
	prefixes("multicast", "224.0.0.0/4"),
	prefixes("reserved or broadcast", "240.0.0.0/4"),
)

// refused6 lists IPv6 ranges to name a reason for; anything outside
// global unicast 2000::/3 is refused as well.
var refused6 = concat(
	prefixes("unspecified", "::/128"),
	prefixes("loopback", "::1/128"),
	prefixes("private network (unique local)", "fc00::/7"),
	prefixes("site-local", "fec0::/10"),
	prefixes("link-local", "fe80::/10"),
	prefixes("multicast", "ff00::/8"),
	prefixes("discard", "100::/64"),
	prefixes("local-use NAT64", "64:ff9b:1::/48"),
	prefixes("IETF protocol assignments", "2001::/23"),
	prefixes("documentation", "2001:db8::/32", "3fff::/20"),
)

var (
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
)

func concat(ss ...[]special) []special {
	var out []special
	for _, s := range ss {
		out = append(out, s...)
	}
	return out
}

// refusal says why a is not a public unicast address, or "" when it is.
// Forms that embed an IPv4 address (IPv4-mapped, NAT64 64:ff9b::/96 as
// DNS64 synthesises on IPv6-only hosts, 6to4) are judged by that address.
func refusal(a netip.Addr) string {
	if a.Zone() != "" {
		return "scoped address"
	}
	if a.Is4In6() {
		a = a.Unmap()
	}
	if a.Is4() {
		for _, s := range refused4 {
			if s.p.Contains(a) {
				return s.reason
			}
		}
		return ""
	}
	b := a.As16()
	switch {
	case nat64.Contains(a):
		if r := refusal(netip.AddrFrom4([4]byte(b[12:16]))); r != "" {
			return "NAT64 of " + r
		}
		return ""
	case sixToFour.Contains(a):
		if r := refusal(netip.AddrFrom4([4]byte(b[2:6]))); r != "" {
			return "6to4 of " + r
		}
		return ""
	}
	for _, s := range refused6 {
		if s.p.Contains(a) {
			return s.reason
		}
	}
	if !globalUnicast6.Contains(a) {
		return "reserved"
	}
	return ""
}

// forbidden builds the error for a refused address.
func forbidden(host string, a netip.Addr, reason string) error {
	return &murlog.Error{
		Code:    murlog.EForbidden,
		Message: fmt.Sprintf("host %s is not on the public internet", host),
		Err:     &addrError{host: host, addr: a, reason: reason},
	}
}

// resolve returns the addresses host stands for, refusing the lot when
// any of them is forbidden: a name with one public and one private
// address must not be a way in. A literal IP is checked the same way.
func (c *Client) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = c.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, &murlog.Error{Code: murlog.EUnavailable, Message: fmt.Sprintf("cannot resolve host %s", host), Err: err}
		}
		if len(addrs) == 0 {
			return nil, &murlog.Error{Code: murlog.EUnavailable, Message: fmt.Sprintf("host %s has no address", host)}
		}
	}
	for i, a := range addrs {
		if !c.o.AllowPrivate {
			if r := refusal(a); r != "" {
				return nil, forbidden(host, a, r)
			}
		}
		addrs[i] = a.Unmap()
	}
	return addrs, nil
}

// dial is the Transport's DialContext: it resolves the name itself,
// checks every address and connects to a verified one, so the address
// checked is the address dialled (no second lookup that DNS rebinding
// could answer differently). TLS and Host still use the name, since the
// Transport takes them from the URL.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	addrs, err := c.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, a := range addrs {
		conn, err := c.dialAddr(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, &murlog.Error{Code: murlog.EUnavailable, Message: fmt.Sprintf("cannot connect to host %s", host), Err: errors.Join(errs...)}
}
