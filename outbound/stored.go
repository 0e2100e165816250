package outbound

import (
	"context"
	"log/slog"
	"strings"
	"time"
)

// SchemeStore keeps the double-knock's Memory where every process of the
// site reads it (the database). Load reports ok false for a domain never
// saved.
type SchemeStore interface {
	LoadScheme(ctx context.Context, domain string) (scheme string, ok bool, err error)
	SaveScheme(ctx context.Context, domain, scheme string) error
}

// storeTimeout bounds one read or write of the SchemeStore: the memory is
// a shortcut, and a slow database must not hold a delivery for long.
const storeTimeout = 5 * time.Second

// NewStoredMemory returns a Memory that keeps what it learns in st, with
// an in-memory LRU of at most max domains in front. Under CGI every worker
// is a new process: a memory of its own would be empty each time, and
// every worker would knock twice at each peer that speaks only cavage
// (most of the fediverse). A domain is read from st on its first use in
// the process, and written only when its scheme changes. A failed read
// counts as unknown (one more knock) and a failed write keeps the scheme
// in this process only; both are logged.
func NewStoredMemory(max int, st SchemeStore, log *slog.Logger) Memory {
	return &storedMemory{mem: NewMemory(max), st: st, log: log}
}

type storedMemory struct {
	mem Memory
	st  SchemeStore
	log *slog.Logger
}

func (m *storedMemory) Scheme(domain string) (Scheme, bool) {
	domain = strings.ToLower(domain)
	if s, ok := m.mem.Scheme(domain); ok {
		return s, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	name, ok, err := m.st.LoadScheme(ctx, domain)
	if err != nil {
		m.log.Warn("outbound: cannot read the signature scheme remembered for a domain", "domain", domain, "err", err)
		return 0, false
	}
	s, known := parseScheme(name)
	if !ok || !known {
		return 0, false
	}
	m.mem.Remember(domain, s)
	return s, true
}

func (m *storedMemory) Remember(domain string, s Scheme) {
	domain = strings.ToLower(domain)
	if old, ok := m.mem.Scheme(domain); ok && old == s {
		return
	}
	m.mem.Remember(domain, s)
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	if err := m.st.SaveScheme(ctx, domain, s.String()); err != nil {
		m.log.Warn("outbound: cannot store the signature scheme of a domain", "domain", domain, "scheme", s.String(), "err", err)
	}
}

// parseScheme is the inverse of Scheme.String.
func parseScheme(name string) (Scheme, bool) {
	switch name {
	case SchemeRFC9421.String():
		return SchemeRFC9421, true
	case SchemeCavage.String():
		return SchemeCavage, true
	}
	return 0, false
}
