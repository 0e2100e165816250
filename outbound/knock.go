package outbound

import (
	"context"
	"github.com/murlog/murlog/internal/lru"
	"net/http"
	"strings"
)

// Scheme is an HTTP signature generation. The Signer does the signing;
// outbound only chooses which one to ask for.
type Scheme int

// The schemes, in the order they are tried.
const (
	SchemeRFC9421 Scheme = iota // RFC 9421 HTTP Message Signatures
	SchemeCavage                // draft-cavage-http-signatures-12
)

func (s Scheme) String() string {
	if s == SchemeCavage {
		return "cavage"
	}
	return "rfc9421"
}

// Signer signs one outgoing request (headers already set, body given in
// full) with the scheme asked for. It is implemented over package httpsig.
type Signer interface {
	Sign(r *http.Request, body []byte, s Scheme) error
}

// knock sends r, signed as the domain's Memory says or RFC 9421 first;
// an unknown domain that refuses RFC 9421 with 401/403 gets one more try
// with cavage. RFC 9421 is remembered only from an accepted POST. exhausted reports that a 401/403 cannot be fixed by
// another scheme (both were tried, or the request was not signed).
func (c *Client) knock(ctx context.Context, r request, s Signer) (resp *http.Response, exhausted bool, err error) {
	if s == nil {
		resp, err = c.send(ctx, r, nil, 0)
		return resp, true, err
	}
	domain := strings.ToLower(r.u.Host)
	scheme, known := c.mem.Scheme(domain)
	if !known {
		scheme = SchemeRFC9421
	}
	resp, err = c.send(ctx, r, s, scheme)
	if err != nil {
		return nil, false, err
	}
	switch {
	case known:
		return resp, false, nil
	case ok(resp.StatusCode):
		// A 2xx to a GET proves nothing about the scheme: most servers
		// serve public documents whatever the signature, and one that
		// speaks only cavage would then be remembered as RFC 9421 and
		// refuse every delivery. A POST is always verified.
		if r.method != http.MethodGet {
			c.mem.Remember(domain, scheme)
		}
		return resp, false, nil
	case resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden:
		return resp, false, nil
	}
	discard(resp)
	resp, err = c.send(ctx, r, s, SchemeCavage)
	if err != nil {
		return nil, false, err
	}
	if ok(resp.StatusCode) {
		c.mem.Remember(domain, SchemeCavage)
	}
	return resp, true, nil
}

// Memory remembers which scheme a domain accepted, so the double-knock
// happens once per domain rather than once per request. The domain is the
// URL's host in lower case, with its port when the URL names one.
type Memory interface {
	Scheme(domain string) (Scheme, bool)
	Remember(domain string, s Scheme)
}

// NewMemory returns an in-memory Memory holding at most max domains
// (least recently used evicted first), safe for concurrent use. A max
// below 1 means 1.
func NewMemory(max int) Memory {
	return memory{lru.New[string, Scheme](max)}
}

// memory is a Memory over a bounded LRU; domains are kept in lower case.
type memory struct{ c *lru.Cache[string, Scheme] }

func (m memory) Scheme(domain string) (Scheme, bool) { return m.c.Get(strings.ToLower(domain)) }

func (m memory) Remember(domain string, s Scheme) { m.c.Put(strings.ToLower(domain), s) }
