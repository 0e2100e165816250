package api

import (
	"context"

	"github.com/murlog/murlog"
)

// Republisher is what the API needs of the public site's rendering
// (package prerender): how many marks wait, and a mark of everything.
type Republisher interface {
	Pending(ctx context.Context) (int, error)
	RebuildAll(ctx context.Context) error
	// WithdrawActivityPub removes the stored ActivityPub documents at
	// once: authorized fetch was turned on, and no unsigned fetch may get
	// one from a file meanwhile.
	WithdrawActivityPub(ctx context.Context) error
}

// registerArtifacts registers the public site's rendering (issue 16):
// site.artifacts.status says how many marks wait for the rebuild (its
// progress: a theme change marks every page); site.artifacts.rebuild
// marks everything, so every artifact is rendered again in the
// background while the previous ones are served. Republishing is allowed
// under lockdown (lockdownExempt): it changes nothing but derived files.
func (s *Server) registerArtifacts() {
	status := func(ctx context.Context) (any, error) {
		if s.deps.Artifacts == nil {
			return nil, murlog.Errorf(murlog.EUnavailable, "the site keeps no artifacts")
		}
		n, err := s.deps.Artifacts.Pending(ctx)
		if err != nil {
			return nil, err
		}
		return map[string]any{"pending": n, "rebuilding": n > 0}, nil
	}
	register(s, "site.artifacts.status", owner, false, func(ctx context.Context, _ *noParams) (any, error) {
		return status(ctx)
	})
	register(s, "site.artifacts.rebuild", owner, true, func(ctx context.Context, _ *noParams) (any, error) {
		if s.deps.Artifacts == nil {
			return nil, murlog.Errorf(murlog.EUnavailable, "the site keeps no artifacts")
		}
		if err := s.deps.Artifacts.RebuildAll(ctx); err != nil {
			return nil, err
		}
		return status(ctx)
	})
}
