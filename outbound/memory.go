package outbound

import (
	"container/list"
	"net/http"
	"strings"
	"sync"
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

// Memory remembers which scheme a domain accepted, so the double-knock
// happens once per domain rather than once per request.
type Memory interface {
	Scheme(domain string) (Scheme, bool)
	Remember(domain string, s Scheme)
}

// NewMemory returns an in-memory Memory holding at most max domains
// (least recently used evicted first), safe for concurrent use. A max
// below 1 means 1.
func NewMemory(max int) Memory {
	if max < 1 {
		max = 1
	}
	return &lru{max: max, order: list.New(), byName: map[string]*list.Element{}}
}

type lru struct {
	mu     sync.Mutex
	max    int
	order  *list.List // front = most recently used; values are *lruEntry
	byName map[string]*list.Element
}

type lruEntry struct {
	domain string
	scheme Scheme
}

func (m *lru) Scheme(domain string) (Scheme, bool) {
	domain = strings.ToLower(domain)
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.byName[domain]
	if !ok {
		return 0, false
	}
	m.order.MoveToFront(e)
	return e.Value.(*lruEntry).scheme, true
}

func (m *lru) Remember(domain string, s Scheme) {
	domain = strings.ToLower(domain)
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.byName[domain]; ok {
		e.Value.(*lruEntry).scheme = s
		m.order.MoveToFront(e)
		return
	}
	m.byName[domain] = m.order.PushFront(&lruEntry{domain, s})
	for m.order.Len() > m.max {
		old := m.order.Back()
		m.order.Remove(old)
		delete(m.byName, old.Value.(*lruEntry).domain)
	}
}
