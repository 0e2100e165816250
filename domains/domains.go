// Package domains is the per-domain circuit breaker for deliveries. A
// remote server that keeps failing is declared dead for a while, and
// fan-outs stop making jobs for its inboxes: without this, one vanished
// instance with a few hundred followers costs thousands of doomed HTTP
// requests, each retried five times. The first delivery that succeeds
// again closes the breaker.
package domains

import (
	"context"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// The dead rule: a domain is dead while it has at least DeadThreshold
// failures since its last success and the last of them is less than
// DeadWindow old. The window lets a dead domain be tried again on its
// own: an hour after its last failure, the next fan-out includes it, and
// one success resets it.
const (
	DeadThreshold = 10
	DeadWindow    = time.Hour
)

// Service records delivery outcomes per domain and answers whether a
// domain is dead. Times come from the store's transaction clock, so the
// whole rule follows one clock.
type Service struct{ store store.Store }

// New returns a Service over st.
func New(st store.Store) *Service { return &Service{store: st} }

// State is a domain's failure record and whether the rule holds it dead
// now.
type State struct {
	store.DomainFailure
	Dead bool
}

// IsDeadAt is the dead rule in Go; store.DomainFailures.Dead is the same
// rule in the adapter's query language, and the tests hold them together.
func IsDeadAt(f *store.DomainFailure, now time.Time) bool {
	return f.FailureCount >= DeadThreshold && f.LastFailureAt.After(now.Add(-DeadWindow))
}

// Failure records that a delivery to domain failed because of cause
// (which may be nil). Its text is shown to the owner, cut to
// store.MaxDomainError characters.
func (s *Service) Failure(ctx context.Context, domain string, cause error) error {
	d, err := Normalize(domain)
	if err != nil {
		return err
	}
	reason := ""
	if cause != nil {
		reason = cause.Error()
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		return tx.DomainFailures().RecordFailure(d, tx.Now(), reason)
	})
}

// Success records that a delivery to domain succeeded, forgetting its
// failures. Nearly every delivery goes to a healthy domain, so the record
// is looked for in a read transaction first: a write transaction would
// take the database's single write lock for every delivery.
func (s *Service) Success(ctx context.Context, domain string) error {
	d, err := Normalize(domain)
	if err != nil {
		return err
	}
	_, err = s.get(ctx, d)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil
	}
	if err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error { return tx.DomainFailures().RecordSuccess(d) })
}

// IsDead reports whether deliveries to domain should be skipped now.
// Fan-outs use DeadSet instead: one query for all domains.
func (s *Service) IsDead(ctx context.Context, domain string) (bool, error) {
	d, err := Normalize(domain)
	if err != nil {
		return false, err
	}
	var dead bool
	err = s.store.View(ctx, func(tx store.Tx) error {
		f, err := tx.DomainFailures().Get(d)
		if err != nil {
			return err
		}
		dead = IsDeadAt(f, tx.Now())
		return nil
	})
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return false, nil
	}
	return dead, err
}

// DeadSet returns the domains that are dead now, in one query. A fan-out
// reads it once and keeps it for its whole run.
func (s *Service) DeadSet(ctx context.Context) (map[string]bool, error) {
	var ds []string
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		ds, err = tx.DomainFailures().Dead(tx.Now(), DeadThreshold, DeadWindow)
		return err
	})
	if err != nil {
		return nil, err
	}
	set := make(map[string]bool, len(ds))
	for _, d := range ds {
		set[d] = true
	}
	return set, nil
}

// List returns every domain with failures, worst first, for the owner.
func (s *Service) List(ctx context.Context) ([]*State, error) {
	var out []*State
	err := s.store.View(ctx, func(tx store.Tx) error {
		fs, err := tx.DomainFailures().List()
		if err != nil {
			return err
		}
		now := tx.Now()
		out = make([]*State, len(fs))
		for i, f := range fs {
			out[i] = &State{DomainFailure: *f, Dead: IsDeadAt(f, now)}
		}
		return nil
	})
	return out, err
}

// Reset forgets domain's failures, so the owner can bring back a server
// they know has recovered without waiting for the window to pass. A
// domain with no failures is ENotFound.
func (s *Service) Reset(ctx context.Context, domain string) error {
	d, err := Normalize(domain)
	if err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error { return tx.DomainFailures().Reset(d) })
}

func (s *Service) get(ctx context.Context, d string) (*store.DomainFailure, error) {
	var f *store.DomainFailure
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		f, err = tx.DomainFailures().Get(d)
		return err
	})
	return f, err
}

// LoadScheme returns the HTTP signature scheme remembered for domain
// (outbound.SchemeStore); ok is false when none is.
func (s *Service) LoadScheme(ctx context.Context, domain string) (scheme string, ok bool, err error) {
	d, err := Normalize(domain)
	if err != nil {
		return "", false, err
	}
	err = s.store.View(ctx, func(tx store.Tx) error {
		scheme, err = tx.SignatureSchemes().Get(d)
		return err
	})
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return "", false, nil
	}
	return scheme, err == nil, err
}

// SaveScheme remembers that domain accepted the HTTP signature scheme
// (outbound.SchemeStore).
func (s *Service) SaveScheme(ctx context.Context, domain, scheme string) error {
	d, err := Normalize(domain)
	if err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error { return tx.SignatureSchemes().Put(d, scheme, tx.Now()) })
}
