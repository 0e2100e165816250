package api

import (
	"context"
	"time"

	"github.com/murlog/murlog/domains"
)

// domainView is one domain the delivery circuit breaker has seen failing.
type domainView struct {
	Domain         string    `json:"domain"`
	FailureCount   int       `json:"failure_count"`
	FirstFailureAt time.Time `json:"first_failure_at"`
	LastFailureAt  time.Time `json:"last_failure_at"`
	LastError      string    `json:"last_error"`
	// Dead says fan-outs skip the domain now (domains.DeadThreshold
	// failures, the last under domains.DeadWindow ago).
	Dead bool `json:"dead"`
}

func newDomainView(d *domains.State) *domainView {
	return &domainView{Domain: d.Domain, FailureCount: d.FailureCount, FirstFailureAt: d.FirstFailureAt,
		LastFailureAt: d.LastFailureAt, LastError: d.LastError, Dead: d.Dead}
}

func (s *Server) registerDomains() {
	// One page always: only failing domains have a row, and a success
	// removes it, so the list stays short.
	register(s, "domains.list_failures", owner, false, func(ctx context.Context, _ *noParams) (any, error) {
		ds, err := s.deps.Domains.List(ctx)
		if err != nil {
			return nil, err
		}
		views := make([]*domainView, len(ds))
		for i, d := range ds {
			views[i] = newDomainView(d)
		}
		return newPage(views, ""), nil
	})
	register(s, "domains.reset_failure", owner, true, func(ctx context.Context, p *struct {
		Domain string `json:"domain"`
	}) (any, error) {
		return nil, s.deps.Domains.Reset(ctx, p.Domain)
	})
}
