package httpd

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientAddr(t *testing.T) {
	t.Parallel()
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32")}
	for _, tc := range []struct {
		name, remote, xff string
		trusted           []netip.Prefix
		want              string
	}{
		{"direct", "203.0.113.5:1234", "", trusted, "203.0.113.5"},
		{"untrusted peer's header is ignored", "203.0.113.5:1234", "1.1.1.1", trusted, "203.0.113.5"},
		{"no trusted proxies configured", "127.0.0.1:1", "1.1.1.1", nil, "127.0.0.1"},
		{"trusted proxy", "127.0.0.1:1", "198.51.100.7", trusted, "198.51.100.7"},
		{"client-forged left entries are ignored", "127.0.0.1:1", "6.6.6.6, 198.51.100.7", trusted, "198.51.100.7"},
		{"chain of trusted proxies", "127.0.0.1:1", "198.51.100.7, 10.1.2.3", trusted, "198.51.100.7"},
		{"malformed hop", "127.0.0.1:1", "garbage", trusted, "127.0.0.1"},
		{"ipv4-mapped", "[::ffff:203.0.113.9]:80", "", trusted, "203.0.113.9"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.remote
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := ClientAddr(r, tc.trusted); got.String() != tc.want {
			t.Errorf("%s: ClientAddr = %s; want %s", tc.name, got, tc.want)
		}
	}
}

func TestClientKeyGroupsIPv6By64(t *testing.T) {
	t.Parallel()
	a := ClientKey(netip.MustParseAddr("2001:db8:1:2:aaaa::1"))
	b := ClientKey(netip.MustParseAddr("2001:db8:1:2:bbbb::9"))
	c := ClientKey(netip.MustParseAddr("2001:db8:1:3::1"))
	if a != b || a == c {
		t.Errorf("keys %q %q %q; want the first two equal (same /64) and the third different", a, b, c)
	}
	if ClientKey(netip.MustParseAddr("192.0.2.1")) != "192.0.2.1" {
		t.Error("IPv4 key should be the address")
	}
}

func TestNetworkKey(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ a, b string }{
		{"203.0.113.5", "203.0.113.250"},
		{"::ffff:203.0.113.5", "203.0.113.9"},
		{"2001:db8:0:100::1", "2001:db8:0:1ff:ffff::9"},
	} {
		if ka, kb := NetworkKey(netip.MustParseAddr(c.a)), NetworkKey(netip.MustParseAddr(c.b)); ka != kb {
			t.Errorf("NetworkKey(%s) = %s, NetworkKey(%s) = %s; want one network", c.a, ka, c.b, kb)
		}
	}
	for _, c := range []struct{ a, b string }{
		{"203.0.113.5", "203.0.114.5"},
		{"2001:db8:0:100::1", "2001:db8:0:200::1"},
		{"10.0.0.1", "::ffff:10.0.1.1"},
	} {
		if ka, kb := NetworkKey(netip.MustParseAddr(c.a)), NetworkKey(netip.MustParseAddr(c.b)); ka == kb {
			t.Errorf("NetworkKey(%s) = NetworkKey(%s) = %s; want two networks", c.a, c.b, ka)
		}
	}
	if got := NetworkKey(netip.MustParseAddr("203.0.113.5")); got != "203.0.113.0/24" {
		t.Errorf("NetworkKey(203.0.113.5) = %s; want 203.0.113.0/24", got)
	}
	if got := NetworkKey(netip.MustParseAddr("2001:db8:aa:bbcc::1")); got != "2001:db8:aa:bb00::/56" {
		t.Errorf("NetworkKey(2001:db8:aa:bbcc::1) = %s; want 2001:db8:aa:bb00::/56", got)
	}
	if got := NetworkKey(netip.Addr{}); got != "unknown" {
		t.Errorf("NetworkKey(invalid) = %s; want unknown", got)
	}
}
