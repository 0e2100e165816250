package outbound

import (
	"context"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/murlog/murlog"
)

func TestRefusal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr, want string // want "" = allowed
	}{
		{"93.184.216.34", ""},
		{"8.8.8.8", ""},
		{"2606:4700::6810:84e5", ""},
		{"64:ff9b::5db8:d822", ""}, // DNS64 form of 93.184.216.34
		{"2002:5db8:d822::1", ""},  // 6to4 of a public address
		{"127.0.0.1", "loopback"},
		{"127.255.0.9", "loopback"},
		{"10.0.0.5", "private network"},
		{"172.16.3.4", "private network"},
		{"172.31.255.255", "private network"},
		{"192.168.1.1", "private network"},
		{"169.254.169.254", "link-local or cloud metadata"},
		{"100.64.0.1", "CGNAT"},
		{"100.127.255.254", "CGNAT"},
		{"0.0.0.0", "this network"},
		{"0.1.2.3", "this network"},
		{"192.0.0.8", "IETF protocol"},
		{"192.0.2.1", "documentation"},
		{"198.18.0.1", "benchmarking"},
		{"198.19.255.1", "benchmarking"},
		{"224.0.0.251", "multicast"},
		{"255.255.255.255", "broadcast"},
		{"::", "unspecified"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:169.254.169.254", "metadata"},
		{"::ffff:10.1.2.3", "private network"},
		{"::127.0.0.1", "reserved"}, // deprecated IPv4-compatible form
		{"64:ff9b::a9fe:a9fe", "NAT64 of link-local"},
		{"64:ff9b:1::1", "local-use NAT64"},
		{"2002:7f00:1::", "6to4 of loopback"},
		{"2002:a00:1::", "6to4 of private"},
		{"fc00::1", "unique local"},
		{"fd12:3456::1", "unique local"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "scoped"},
		{"fec0::1", "site-local"},
		{"ff02::1", "multicast"},
		{"100::1", "discard"},
		{"2001:db8::1", "documentation"},
		{"2001::1", "IETF protocol"}, // Teredo
		{"5f00::1", "reserved"},
	} {
		got := refusal(netip.MustParseAddr(tc.addr))
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("refusal(%s) = %q; want %q", tc.addr, got, tc.want)
		}
	}
}

// TestGuardRefusesBeforeConnecting: a name resolving to any forbidden
// address is refused with no connection attempt at all, even though a
// server listens on that very loopback address.
func TestGuardRefusesBeforeConnecting(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, addrs := range []string{
		"127.0.0.1", "10.0.0.1", "169.254.169.254", "::1", "100.64.0.1", "::ffff:127.0.0.1",
		"93.184.216.34,10.0.0.1", // one public, one private
		"2606:4700::1,127.0.0.1",
	} {
		t.Run(addrs, func(t *testing.T) {
			d := dns(map[string]string{"evil.test": addrs})
			d.route("93.184.216.34", "127.0.0.1")
			d.route("2606:4700::1", "127.0.0.1")
			c, dials := newClient(t, Options{AllowHTTP: true}, d)
			for _, call := range []func() error{
				func() error { _, err := c.Get(context.Background(), s.at("evil.test", "/actor"), "", nil); return err },
				func() error {
					_, err := c.Post(context.Background(), s.at("evil.test", "/inbox"), "application/activity+json", []byte("{}"), &testSigner{})
					return err
				},
			} {
				err := call()
				if !errors.Is(err, ErrForbiddenAddress) || !Permanent(err) || murlog.ErrorCode(err) != murlog.EForbidden {
					t.Fatalf("err = %v; want ErrForbiddenAddress, permanent, code forbidden", err)
				}
				if !strings.Contains(err.Error(), "refused address ") || !strings.Contains(err.Error(), "for host evil.test (") {
					t.Errorf("err = %q; want it to name the address and host", err)
				}
				if strings.Contains(murlog.ErrorMessage(err), "refused address") {
					t.Errorf("client-safe message %q names the address", murlog.ErrorMessage(err))
				}
			}
			if n := dials.Load(); n != 0 {
				t.Errorf("%d connection attempts; want 0", n)
			}
			if n := s.conns.Load(); n != 0 {
				t.Errorf("server accepted %d connections; want 0", n)
			}
		})
	}
}

func TestGuardChecksLiteralIPs(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	d := dns(nil)
	c, dials := newClient(t, Options{AllowHTTP: true}, d)
	for _, u := range []string{
		s.URL + "/", "http://[::1]:" + s.port() + "/", "http://169.254.169.254/latest/meta-data/",
		"http://[::ffff:127.0.0.1]:" + s.port() + "/", "http://0.0.0.0:" + s.port() + "/",
	} {
		if _, err := c.Get(context.Background(), u, "", nil); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("Get(%s) = %v; want ErrForbiddenAddress", u, err)
		}
	}
	if dials.Load() != 0 || s.conns.Load() != 0 || d.lookupCount() != 0 {
		t.Errorf("dials, accepts, lookups = %d, %d, %d; want 0, 0, 0", dials.Load(), s.conns.Load(), d.lookupCount())
	}
}

// TestGuardRechecksRedirects: a public name may not redirect to a
// private one; the redirect target is refused before it is dialled.
func TestGuardRechecksRedirects(t *testing.T) {
	t.Parallel()
	var hits []string
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits = append(hits, r.Host+r.URL.Path)
		switch r.URL.Path {
		case "/to-private":
			http.Redirect(w, r, "http://meta.test:"+r.URL.Port()+"/latest/meta-data/", http.StatusFound)
		case "/to-literal":
			http.Redirect(w, r, "http://10.0.0.1/admin", http.StatusMovedPermanently)
		default:
			w.WriteHeader(http.StatusOK)
		}
	})
	d := dns(map[string]string{"public.test": "93.184.216.34", "meta.test": "169.254.169.254"})
	d.route("93.184.216.34", "127.0.0.1")
	c, dials := newClient(t, Options{AllowHTTP: true}, d)
	for _, path := range []string{"/to-private", "/to-literal"} {
		_, err := c.Get(context.Background(), s.at("public.test", path), "", nil)
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("Get(%s) = %v; want ErrForbiddenAddress at the redirect", path, err)
		}
	}
	if len(hits) != 2 || dials.Load() != 1 {
		t.Errorf("server saw %v, %d dials; want the two first hops only, over one connection", hits, dials.Load())
	}
	// The public name itself is fine, looked up once per connection.
	before := d.lookupCount()
	c.Close()
	r, err := c.Get(context.Background(), s.at("public.test", "/ok"), "", nil)
	if err != nil || r.Status != http.StatusOK {
		t.Fatalf("Get(public.test/ok) = %+v, %v; want 200", r, err)
	}
	if n := d.lookupCount() - before; n != 1 {
		t.Errorf("%d lookups for one new connection; want 1 (the address checked is the one dialled)", n)
	}
}

func TestAllowPrivate(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(r.Host)) })
	d := dns(map[string]string{"a.test": "127.0.0.1", "b.test": "::ffff:127.0.0.1,10.0.0.1"})
	c, _ := newClient(t, Options{AllowHTTP: true, AllowPrivate: true}, d)
	for _, name := range []string{"a.test", "b.test"} {
		r, err := c.Get(context.Background(), s.at(name, "/"), "", nil)
		if err != nil || string(r.Body) != name+":"+s.port() {
			t.Errorf("Get(%s) with AllowPrivate = %+v, %v; want 200 with Host %s", name, r, err, name)
		}
	}
	if d.lookupCount() != 2 {
		t.Errorf("lookups = %d; want 2: names still go through the Resolver", d.lookupCount())
	}
	if _, err := c.Get(context.Background(), s.at("unknown.test", "/"), "", nil); murlog.ErrorCode(err) != murlog.EUnavailable || Permanent(err) {
		t.Errorf("unresolvable host: err = %v; want unavailable, not permanent", err)
	}
}

// TestHTTPSOnly: without AllowHTTP, http URLs (given or redirected to)
// are refused with a clear error; https keeps the name for TLS and Host.
func TestHTTPSOnly(t *testing.T) {
	t.Parallel()
	d := dns(map[string]string{"example.com": "127.0.0.1"})
	c, dials := newClient(t, Options{AllowPrivate: true}, d)
	_, err := c.Get(context.Background(), "http://example.com/", "", nil)
	if err == nil || !strings.Contains(err.Error(), "only https") || !Permanent(err) || murlog.ErrorCode(err) != murlog.EInvalid {
		t.Fatalf("Get(http://…) = %v; want a permanent invalid error saying only https", err)
	}
	for _, u := range []string{"ftp://example.com/", "/relative", "https:///nohost", "https://user:pw@example.com/"} {
		if _, err := c.Get(context.Background(), u, "", nil); !Permanent(err) || murlog.ErrorCode(err) != murlog.EInvalid {
			t.Errorf("Get(%q) = %v; want a permanent invalid error", u, err)
		}
	}
	if dials.Load() != 0 {
		t.Errorf("%d dials for refused URLs", dials.Load())
	}

	var sni, host string
	ts := newTLSServer(t, func(w http.ResponseWriter, r *http.Request) {
		sni, host = r.TLS.ServerName, r.Host
		if r.URL.Path == "/down" {
			http.Redirect(w, r, "http://example.com:"+r.URL.Port()+"/", http.StatusFound)
			return
		}
		w.Write([]byte("ok"))
	})
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	c.transport.TLSClientConfig.RootCAs = pool
	r, err := c.Get(context.Background(), "https://example.com:"+ts.port()+"/", "", nil)
	if err != nil || string(r.Body) != "ok" {
		t.Fatalf("Get(https://example.com) = %+v, %v", r, err)
	}
	if sni != "example.com" || host != "example.com:"+ts.port() {
		t.Errorf("TLS ServerName, Host = %q, %q; want the name, not the dialled address", sni, host)
	}
	if _, err := c.Get(context.Background(), "https://example.com:"+ts.port()+"/down", "", nil); err == nil || !strings.Contains(err.Error(), "only https") {
		t.Errorf("https → http redirect: err = %v; want refused", err)
	}
}

func newTLSServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewUnstartedServer(h)
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}
