package httpsig

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Scheme is the generation of HTTP signature a request carries.
type Scheme int

// The two generations. The zero value is Cavage, the one every fediverse
// server understands.
const (
	Cavage  Scheme = iota // draft-cavage-http-signatures-12: the Signature header alone
	RFC9421               // RFC 9421: Signature-Input + Signature
)

func (s Scheme) String() string {
	if s == RFC9421 {
		return "rfc9421"
	}
	return "cavage"
}

// Key is a signing key and the keyId under which remote servers find its
// public half (the actor's publicKey.id, e.g. https://h/@a#main-key).
type Key struct {
	ID      string
	Private crypto.Signer // *rsa.PrivateKey or ed25519.PrivateKey
}

// Error is every refusal of this package. Reason names what was wrong
// precisely enough for a log line ("date header not signed"); it may carry
// remote input, so callers log it and answer 401 without it.
type Error struct {
	Reason string
}

func (e *Error) Error() string { return "httpsig: " + e.Reason }

func fail(reason string) error { return &Error{Reason: reason} }

// Mastodon's window (app/lib/signed_request.rb): a signature lives until its
// expires parameter, or 5 minutes after its creation without one, but never
// longer than 12 hours; either end may be off by an hour of clock skew.
const (
	DefaultMaxAge   = 12 * time.Hour
	DefaultMaxSkew  = time.Hour
	DefaultLifetime = 5 * time.Minute
)

// MaxHeaderLen caps every signature-related header value; a longer one is
// refused before it is parsed.
const MaxHeaderLen = 8 << 10

// VerifyOptions says where and when a request is verified. The zero value of
// MaxAge and MaxSkew means Mastodon's defaults.
type VerifyOptions struct {
	Now time.Time
	// Base is the scheme and host the request was addressed to
	// ("https://example.com"): @target-uri, @authority and host are built
	// from it, not from what the client claims. Empty means r.Host and
	// r.TLS.
	Base string
	// MaxAge caps a signature's lifetime even when its expires parameter
	// says longer; one without expires lives DefaultLifetime (or MaxAge
	// when that is shorter).
	MaxAge time.Duration
	// MaxSkew is how far the signer's clock may be off, at both ends.
	MaxSkew time.Duration
}

// Signature is a parsed inbound signature whose required components were
// found signed and whose time is inside the window. Verify checks it.
type Signature struct {
	Scheme     Scheme
	KeyID      string
	Algorithm  string // as sent: "rsa-sha256", "hs2019", "rsa-v1_5-sha256", "ed25519" or "" (RFC 9421 without alg)
	Created    time.Time
	Components []string // signed components in order: header names (lower case), (request-target) or @method …

	base    []byte // the signature base (cavage: signing string)
	altBase []byte // cavage only: the base without the query string, which older Mastodon signed
	sig     []byte
}

// Parse reads the signature of r — RFC 9421 when Signature-Input is present,
// else cavage — and checks, without crypto and without the body, that the
// components murlog requires are signed, that the time is inside the window
// and that the headers are well-formed. hasBody says whether the request has
// a body (a POST), which makes the digest header required.
func Parse(r *http.Request, hasBody bool, o VerifyOptions) (*Signature, error) {
	for _, h := range [...]string{"Signature", "Signature-Input", "Date", "Digest", "Content-Digest"} {
		if headerLen(r.Header, h) > MaxHeaderLen {
			return nil, fail(strings.ToLower(h) + " header too long")
		}
	}
	target, err := targetOf(r, o.Base)
	if err != nil {
		return nil, err
	}
	if len(r.Header.Values("Signature-Input")) > 0 {
		return parseRFC9421(r, target, hasBody, o, true)
	}
	return parseCavage(r, target, hasBody, o)
}

func headerLen(h http.Header, name string) int {
	n := 0
	for _, v := range h.Values(name) {
		n += len(v) + 2
	}
	return n
}

// target is where a request was addressed: the pieces both generations sign.
type target struct {
	scheme string
	host   string // as the client sent it (cavage host)
	uri    string // request-target in origin form: /path?query
}

func targetOf(r *http.Request, base string) (target, error) {
	t := target{scheme: "http", host: r.Host, uri: r.URL.RequestURI()}
	if strings.HasPrefix(r.RequestURI, "/") {
		t.uri = r.RequestURI // the bytes the client sent, not a re-encoding
	}
	if r.TLS != nil {
		t.scheme = "https"
	}
	if base != "" {
		u, err := url.Parse(base)
		if err != nil || u.Host == "" {
			return t, fail("verify options: bad base URL")
		}
		t.scheme, t.host = u.Scheme, u.Host
	}
	if t.host == "" {
		t.host = r.URL.Host
	}
	return t, nil
}

// authority is @authority: the host lower-cased, without the scheme's default port.
func (t target) authority() string {
	h := strings.ToLower(t.host)
	if t.scheme == "https" {
		return strings.TrimSuffix(h, ":443")
	}
	return strings.TrimSuffix(h, ":80")
}

func (t target) targetURI() string { return t.scheme + "://" + t.authority() + t.uri }

// window checks created (and expires, when non-zero) against Mastodon's rules.
func (o VerifyOptions) window(created, expires time.Time) error {
	maxAge, skew := o.MaxAge, o.MaxSkew
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	if skew <= 0 {
		skew = DefaultMaxSkew
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	if created.After(now.Add(skew)) {
		return fail("signature created in the future")
	}
	if expires.IsZero() {
		expires = created.Add(min(DefaultLifetime, maxAge))
	}
	if limit := created.Add(maxAge); expires.After(limit) {
		expires = limit
	}
	if now.After(expires.Add(skew)) {
		return fail("signature expired")
	}
	return nil
}

// Verify checks the signature with the actor's public key: RSA PKCS#1 v1.5
// with SHA-256, or Ed25519. The algorithm the signer named must fit the key.
func (s *Signature) Verify(pub crypto.PublicKey) error {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		switch s.Algorithm {
		case "rsa-sha256", "hs2019", "rsa-v1_5-sha256", "":
		default:
			return fail("algorithm " + s.Algorithm + " does not fit an RSA key")
		}
		if k.N.BitLen() > maxRSABits {
			return fail("rsa key too large")
		}
		h := sha256.Sum256(s.base)
		if rsa.VerifyPKCS1v15(k, crypto.SHA256, h[:], s.sig) == nil {
			return nil
		}
		if s.altBase != nil {
			h = sha256.Sum256(s.altBase)
			if rsa.VerifyPKCS1v15(k, crypto.SHA256, h[:], s.sig) == nil {
				return nil
			}
		}
	case ed25519.PublicKey:
		switch s.Algorithm {
		case "hs2019", "ed25519", "":
		default:
			return fail("algorithm " + s.Algorithm + " does not fit an Ed25519 key")
		}
		if len(k) != ed25519.PublicKeySize {
			return fail("bad ed25519 key")
		}
		if ed25519.Verify(k, s.base, s.sig) {
			return nil
		}
		if s.altBase != nil && ed25519.Verify(k, s.altBase, s.sig) {
			return nil
		}
	default:
		return fail("unsupported key type")
	}
	return fail("signature invalid")
}

// knownAlgorithm reports whether an algorithm name is one this package
// verifies, so Parse can refuse the others before any key is fetched.
func knownAlgorithm(s Scheme, alg string) bool {
	if s == Cavage {
		return alg == "rsa-sha256" || alg == "hs2019" || alg == "ed25519"
	}
	return alg == "" || alg == "rsa-v1_5-sha256" || alg == "ed25519"
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// isRSA tells the two kinds of signing key apart and refuses any other.
func isRSA(k crypto.Signer) (bool, error) {
	switch k.(type) {
	case *rsa.PrivateKey:
		return true, nil
	case ed25519.PrivateKey:
		return false, nil
	}
	return false, fail("unsupported private key type")
}

// signBytes signs base with k: PKCS#1 v1.5 over SHA-256 for RSA, plain
// Ed25519 otherwise.
func signBytes(k Key, base []byte) ([]byte, error) {
	switch p := k.Private.(type) {
	case *rsa.PrivateKey:
		h := sha256.Sum256(base)
		return rsa.SignPKCS1v15(nil, p, crypto.SHA256, h[:])
	case ed25519.PrivateKey:
		return ed25519.Sign(p, base), nil
	}
	return nil, fail("unsupported private key type")
}

// signTarget is where an outbound request goes, and sets r.Host so the Host
// header sent is the one signed.
func signTarget(r *http.Request) target {
	if r.Host == "" {
		r.Host = r.URL.Host
	}
	return target{scheme: r.URL.Scheme, host: r.Host, uri: r.URL.RequestURI()}
}

// signedValue is headerValue for a signature base, refusing a value over
// MaxHeaderLen so a base stays small.
func signedValue(h http.Header, name string) (string, error) {
	v, ok := headerValue(h, name)
	if !ok {
		return "", fail("signed header " + name + " missing")
	}
	if len(v) > MaxHeaderLen {
		return "", fail("signed header " + name + " too long")
	}
	return v, nil
}

// headerValue is a header field's value as both generations sign it: every
// line trimmed, joined with ", ".
func headerValue(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	if len(vs) == 1 {
		return strings.TrimSpace(vs[0]), true
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strings.TrimSpace(v)
	}
	return strings.Join(out, ", "), true
}
