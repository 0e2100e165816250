// Package outbound is the one HTTP client murlog uses for every remote
// fetch and delivery. It refuses hosts that resolve (or redirect) to
// loopback, private, link-local, CGNAT, metadata and other non-public
// addresses, dials exactly the address it checked, bounds time, body
// size and redirects, names murlog in User-Agent, and signs requests with
// a double-knock: RFC 9421 first, draft-cavage on 401/403, remembering per
// domain which one was accepted.
package outbound

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/murlog/murlog"
)

// Resolver looks up a host's addresses; *net.Resolver implements it, and
// tests inject one that maps names to loopback addresses.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configure a Client. The zero value is a strict client: https
// only, public addresses only, the defaults below.
type Options struct {
	AllowPrivate bool          // allow_private_network: skip the address guard (tests, labs)
	AllowHTTP    bool          // permit http:// URLs (site scheme = http); https only otherwise
	Resolver     Resolver      // nil: net.DefaultResolver
	UserAgent    string        // e.g. "murlog/dev (+https://example.com/)"
	Timeout      time.Duration // whole request, redirects and second knock included; default 10 s
	MaxBody      int64         // response bytes read (after decompression); default 1 MiB
	MaxRedirects int           // default 3; GET only, POSTs do not follow redirects
	Memory       Memory        // nil: NewMemory(10000)
}

// The defaults of Options.
const (
	DefaultTimeout      = 10 * time.Second
	DefaultMaxBody      = 1 << 20
	DefaultMaxRedirects = 3
	DefaultUserAgent    = "murlog"
)

// maxURL bounds a URL (given or from Location) before it is parsed.
const maxURL = 4096

// Client is safe for concurrent use; one per application instance, so
// deliveries to one host share its pooled connections.
type Client struct {
	o         Options
	resolver  Resolver
	mem       Memory
	transport *http.Transport
	hc        *http.Client
	// dialAddr connects to a verified address; tests wrap it to count
	// connection attempts.
	dialAddr func(ctx context.Context, network, addr string) (net.Conn, error)
}

// New returns a Client for o, filling in defaults.
func New(o Options) *Client {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	c := &Client{o: o, resolver: o.Resolver, mem: o.Memory}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	if c.mem == nil {
		c.mem = NewMemory(10000)
	}
	d := &net.Dialer{Timeout: min(5*time.Second, o.Timeout), KeepAlive: 30 * time.Second}
	c.dialAddr = d.DialContext
	c.transport = &http.Transport{
		// Never a proxy from the environment: it would dial for us and
		// bypass the address guard.
		Proxy:                  nil,
		DialContext:            c.dial,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    min(5*time.Second, o.Timeout),
		ResponseHeaderTimeout:  o.Timeout,
		ExpectContinueTimeout:  time.Second,
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    16,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	c.hc = &http.Client{
		Transport: c.transport,
		// Redirects are followed by do, which re-checks and re-signs each.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c
}

// Close drops idle connections.
func (c *Client) Close() { c.transport.CloseIdleConnections() }

// Response is a 2xx answer with its body read in full.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	URL    string // final, after redirects
}

// Get fetches url with the given Accept header, signed by s unless s is
// nil, following up to MaxRedirects redirects (each re-checked and
// re-signed). A status other than 2xx is a *StatusError.
func (c *Client) Get(ctx context.Context, url, accept string, s Signer) (*Response, error) {
	return c.do(ctx, http.MethodGet, url, accept, nil, s)
}

// Post sends body to url, signed by s unless s is nil. Redirects are not
// followed (a 3xx is a *StatusError); on the double-knock the same bytes
// are sent again.
func (c *Client) Post(ctx context.Context, url, contentType string, body []byte, s Signer) (*Response, error) {
	return c.do(ctx, http.MethodPost, url, contentType, body, s)
}

// request is one hop: what send needs to build a fresh *http.Request.
type request struct {
	method string
	u      *url.URL
	// media is Accept for a GET, Content-Type for a POST.
	media string
	body  []byte
}

func (c *Client) do(ctx context.Context, method, rawURL, media string, body []byte, s Signer) (*Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	u, err := c.checkURL(rawURL)
	if err != nil {
		return nil, err
	}
	for hop := 0; ; hop++ {
		r := request{method: method, u: u, media: media, body: body}
		resp, exhausted, err := c.knock(ctx, r, s)
		if err != nil {
			return nil, err
		}
		if loc := resp.Header.Get("Location"); method == http.MethodGet && isRedirect(resp.StatusCode) && loc != "" {
			discard(resp)
			if hop >= c.o.MaxRedirects {
				return nil, &murlog.Error{Code: murlog.EUnavailable, Message: fmt.Sprintf("%s %s: more than %d redirects", method, rawURL, c.o.MaxRedirects), Err: errTooManyRedirects}
			}
			if len(loc) > maxURL {
				return nil, badURL("redirect target is over %d bytes", maxURL)
			}
			next, err := u.Parse(loc)
			if err != nil {
				return nil, badURL("bad redirect target %q", sanitize([]byte(loc), 200))
			}
			if u, err = c.checkURL(next.String()); err != nil {
				return nil, err
			}
			continue
		}
		return c.finish(resp, r, exhausted)
	}
}

var errTooManyRedirects = errors.New("outbound: too many redirects")

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

func ok(status int) bool { return status >= 200 && status < 300 }

// send builds a fresh request (no headers left from an earlier knock),
// signs it and sends it.
func (c *Client) send(ctx context.Context, r request, s Signer, scheme Scheme) (*http.Response, error) {
	var rd io.Reader
	if r.body != nil {
		rd = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.u.String(), rd)
	if err != nil {
		return nil, badURL("cannot build request: %v", err)
	}
	req.Host = r.u.Host
	req.Header.Set("User-Agent", c.o.UserAgent)
	if r.method == http.MethodGet {
		if r.media != "" {
			req.Header.Set("Accept", r.media)
		}
	} else if r.media != "" {
		req.Header.Set("Content-Type", r.media)
	}
	if s != nil {
		if err := s.Sign(req, r.body, scheme); err != nil {
			return nil, murlog.Internal(fmt.Errorf("outbound: sign %s %s (%s): %w", r.method, r.u, scheme, err))
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, transportError(r, err)
	}
	return resp, nil
}

// transportError keeps a murlog error raised by the dialer (the guard)
// and makes every other failure EUnavailable, wrapped for errors.Is.
func transportError(r request, err error) error {
	var me *murlog.Error
	if errors.As(err, &me) {
		return me
	}
	msg := fmt.Sprintf("%s %s failed", r.method, r.u.Redacted())
	if errors.Is(err, context.DeadlineExceeded) {
		msg = fmt.Sprintf("%s %s timed out", r.method, r.u.Redacted())
	}
	return &murlog.Error{Code: murlog.EUnavailable, Message: msg, Err: err}
}

// finish reads a 2xx body within MaxBody or turns any other status into
// a *StatusError. The body is always closed.
func (c *Client) finish(resp *http.Response, r request, exhausted bool) (*Response, error) {
	defer resp.Body.Close()
	if !ok(resp.StatusCode) {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return nil, fmt.Errorf("%s %s: %w", r.method, r.u.Redacted(), &StatusError{
			Status:     resp.StatusCode,
			RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now()),
			Body:       sanitize(head, 200),
			exhausted:  exhausted,
		})
	}
	tooBig := &murlog.Error{Code: murlog.EInvalid, Message: fmt.Sprintf("%s %s: response is over %d bytes", r.method, r.u.Redacted(), c.o.MaxBody)}
	if resp.ContentLength > c.o.MaxBody {
		return nil, tooBig
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.o.MaxBody+1))
	if err != nil {
		return nil, transportError(r, err)
	}
	if int64(len(b)) > c.o.MaxBody {
		return nil, tooBig
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b, URL: r.u.String()}, nil
}

// discard drains a little of a body we do not want, so the connection can
// be reused, and closes it.
func discard(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
}

// errBadURL marks URLs no retry can fix; Permanent finds it.
var errBadURL = errors.New("outbound: bad URL")

func badURL(format string, args ...any) error {
	return &murlog.Error{Code: murlog.EInvalid, Field: "url", Message: fmt.Sprintf(format, args...), Err: errBadURL}
}

// checkURL parses a URL to fetch: absolute, https (or http when allowed),
// a host, no credentials. The fragment is dropped; it is never sent.
func (c *Client) checkURL(raw string) (*url.URL, error) {
	if len(raw) > maxURL {
		return nil, badURL("URL is over %d bytes", maxURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, badURL("cannot parse URL %q", sanitize([]byte(raw), 200))
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !c.o.AllowHTTP {
			return nil, badURL("refused http URL %s: only https is fetched unless the site's scheme is http", u.Redacted())
		}
	default:
		return nil, badURL("refused URL %q: scheme must be https", sanitize([]byte(raw), 200))
	}
	if u.Hostname() == "" {
		return nil, badURL("URL %s has no host", u.Redacted())
	}
	if u.User != nil {
		return nil, badURL("refused URL %s: credentials in URLs are not sent", u.Redacted())
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}
