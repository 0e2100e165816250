package federation

import (
	"crypto"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/outbound"
)

// Keys turns personas into outbound signers. A persona's private key is
// parsed once and kept: parsing a PKCS#8 RSA key costs about as much as
// signing with it, and a fan-out signs thousands of requests with one key.
// A persona whose key changed (a rotation) is parsed again, because the
// cache is keyed by the PEM text too.
type Keys struct {
	site murlog.Site
	now  func() time.Time
	// Schemes limits the signature generations these signers produce; nil
	// allows both. A test peer that speaks only draft-cavage sets
	// {outbound.SchemeCavage}.
	schemes []outbound.Scheme

	mu     sync.Mutex
	parsed map[string]parsedKey // by persona id
}

type parsedKey struct {
	pem string
	key crypto.Signer
}

// NewKeys returns the signers of site's personas; now is the clock (the
// Date and created of every signature), time.Now when nil.
func NewKeys(site murlog.Site, now func() time.Time, schemes ...outbound.Scheme) *Keys {
	if now == nil {
		now = time.Now
	}
	return &Keys{site: site, now: now, schemes: schemes, parsed: map[string]parsedKey{}}
}

// Now is the clock the signatures are dated by.
func (k *Keys) Now() time.Time { return k.now() }

// Signer returns the outbound signer of persona p: its requests carry
// keyId site.KeyID(p.Username).
func (k *Keys) Signer(p *murlog.Persona) (outbound.Signer, error) {
	key, err := k.private(p)
	if err != nil {
		return nil, err
	}
	return signer{keys: k, key: httpsig.Key{ID: k.site.KeyID(p.Username), Private: key}}, nil
}

func (k *Keys) private(p *murlog.Persona) (crypto.Signer, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if c, ok := k.parsed[p.ID]; ok && c.pem == p.PrivateKeyPEM {
		return c.key, nil
	}
	key, err := httpsig.ParsePrivateKeyPEM(p.PrivateKeyPEM)
	if err != nil {
		// Never the PEM itself: it is a secret.
		return nil, murlog.Internal(fmt.Errorf("persona %s: private key unreadable: %w", p.ID, err))
	}
	k.parsed[p.ID] = parsedKey{pem: p.PrivateKeyPEM, key: key}
	return key, nil
}

type signer struct {
	keys *Keys
	key  httpsig.Key
}

// Sign signs r in scheme s. When the Keys allow only some schemes, a
// scheme outside them is replaced by the first allowed one: a peer that
// speaks only draft-cavage signs everything with cavage.
func (s signer) Sign(r *http.Request, body []byte, scheme outbound.Scheme) error {
	if len(s.keys.schemes) > 0 && !contains(s.keys.schemes, scheme) {
		scheme = s.keys.schemes[0]
	}
	now := s.keys.now()
	if scheme == outbound.SchemeCavage {
		return httpsig.SignCavage(r, body, s.key, now)
	}
	return httpsig.SignRFC9421(r, body, s.key, now)
}

func contains(ss []outbound.Scheme, s outbound.Scheme) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
