// Package fedtest runs several murlog instances in one test process, each
// behind its own httptest listener on 127.0.0.1 and known by its own host
// name ("alpha.test:PORT"), so they federate with each other as distinct
// servers would: WebFinger, signed fetches, deliveries and the inbox, over
// real HTTP. Names are resolved by a Names table the instances and the
// test's clients share instead of /etc/hosts, which tests must not edit.
package fedtest

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Names maps test host names (without port) to loopback addresses. It
// implements the outbound client's Resolver, and DialContext dials through
// it for the test's own HTTP clients. Unknown names are not found: a test
// never reaches real DNS.
type Names struct {
	mu sync.Mutex
	m  map[string]netip.Addr
}

// NewNames returns an empty table.
func NewNames() *Names { return &Names{m: map[string]netip.Addr{}} }

// Add names addr host (lower case, no port).
func (n *Names) Add(host string, addr netip.Addr) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.m[strings.ToLower(host)] = addr
}

// LookupNetIP answers the addresses of host for network "ip", "ip4" or
// "ip6", as *net.Resolver does. IP literals resolve to themselves.
func (n *Names) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a}, nil
	}
	n.mu.Lock()
	a, ok := n.m[strings.ToLower(strings.TrimSuffix(host, "."))]
	n.mu.Unlock()
	if !ok || (network == "ip6" && a.Is4()) || (network == "ip4" && !a.Is4()) {
		return nil, &net.DNSError{Err: "no such host (fedtest names)", Name: host, IsNotFound: true}
	}
	return []netip.Addr{a}, nil
}

// DialContext dials addr ("host:port") at the address the table gives
// host; it is the DialContext of the test clients' transports.
func (n *Names) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := n.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: 5 * time.Second}
	return d.DialContext(ctx, network, net.JoinHostPort(ips[0].String(), port))
}

// loopback is where every instance listens.
var loopback = netip.MustParseAddr("127.0.0.1")

func hostPort(name string, port int) string { return fmt.Sprintf("%s:%d", name, port) }
