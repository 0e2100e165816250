package outbound

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeDNS maps names to addresses, standing in for the system resolver
// so tests can point public-looking names at loopback servers.
type fakeDNS struct {
	mu      sync.Mutex
	names   map[string][]netip.Addr
	lookups int
	// nat rewrites a dialled (verified) address to a loopback one, so a
	// name can pass the guard as public and still reach a test server.
	nat map[netip.Addr]netip.Addr
}

func dns(m map[string]string) *fakeDNS {
	f := &fakeDNS{names: map[string][]netip.Addr{}, nat: map[netip.Addr]netip.Addr{}}
	for name, addrs := range m {
		f.set(name, addrs)
	}
	return f
}

// set maps name to a comma-separated list of addresses.
func (f *fakeDNS) set(name, addrs string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var as []netip.Addr
	for _, a := range splitComma(addrs) {
		as = append(as, netip.MustParseAddr(a))
	}
	f.names[name] = as
}

// route makes connections to public arrive at local.
func (f *fakeDNS) route(public, local string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nat[netip.MustParseAddr(public)] = netip.MustParseAddr(local)
}

func (f *fakeDNS) lookupCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lookups
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func (f *fakeDNS) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups++
	as, ok := f.names[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return append([]netip.Addr(nil), as...), nil
}

// server is a loopback test server that counts the connections it accepts.
type server struct {
	*httptest.Server
	conns atomic.Int32
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewUnstartedServer(h)
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// port is the server's port, to build URLs with names the fakeDNS maps.
func (s *server) port() string {
	u, _ := url.Parse(s.URL)
	return u.Port()
}

// at is the server's URL for path under host name.
func (s *server) at(name, path string) string {
	return fmt.Sprintf("http://%s:%s%s", name, s.port(), path)
}

// newClient builds a Client over d and counts its connection attempts.
func newClient(t *testing.T, o Options, d *fakeDNS) (*Client, *atomic.Int32) {
	t.Helper()
	o.Resolver = d
	c := New(o)
	t.Cleanup(c.Close)
	var dials atomic.Int32
	real := c.dialAddr
	c.dialAddr = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		ap := netip.MustParseAddrPort(addr)
		d.mu.Lock()
		to, ok := d.nat[ap.Addr()]
		d.mu.Unlock()
		if ok {
			addr = netip.AddrPortFrom(to, ap.Port()).String()
		}
		return real(ctx, network, addr)
	}
	return c, &dials
}

// testSigner marks requests with the scheme and the URL they were signed
// for, the way a real signature covers @target-uri, and counts its calls.
type testSigner struct{ calls atomic.Int32 }

func (s *testSigner) Sign(r *http.Request, body []byte, sc Scheme) error {
	s.calls.Add(1)
	r.Header.Set("X-Test-Scheme", sc.String())
	r.Header.Set("X-Test-Target", r.URL.String())
	r.Header.Set("X-Test-Body-Len", fmt.Sprint(len(body)))
	return nil
}
