package api

import (
	"context"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/social"
)

// The social methods (issue 7 point 5): accounts, follows both ways,
// blocks. Every one is the owner's and takes an optional persona_id (the
// primary persona when omitted). Writes go through the social service,
// which enqueues the activities they send in the same transaction; the
// views are then read in a transaction of their own.

var (
	errNoSocial = murlog.Errorf(murlog.EUnavailable, "federation is not set up on this site yet")
	errNoRemote = murlog.Errorf(murlog.EUnavailable, "federation is not configured")
)

// soc returns the social service, or unavailable before it is wired.
func (s *Server) soc() (*social.Service, error) {
	if s.deps.Social == nil || s.deps.Store == nil {
		return nil, errNoSocial
	}
	return s.deps.Social, nil
}

type personaParam struct {
	PersonaID string `json:"persona_id"`
}

type pageParams struct {
	personaParam
	Cursor string `json:"cursor"`
	Limit  int    `json:"limit"`
}

// personaIDParams name one thing by its id.
type personaIDParams struct {
	personaParam
	ID string `json:"id"`
}

type actorParams struct {
	personaParam
	ActorID string `json:"actor_id"`
}

// limitOf checks a page size: 0 (omitted) is the default.
func limitOf(n int) (int, error) {
	switch {
	case n == 0:
		return social.DefaultPage, nil
	case n < 1 || n > social.MaxPage:
		return 0, murlog.Invalid("limit", "must be between 1 and %d", social.MaxPage)
	}
	return n, nil
}

// pageCall validates page parameters whose cursor is an id and returns
// the page size and the social service.
func (s *Server) pageCall(p *pageParams) (int, *social.Service, error) {
	if p.Cursor != "" && !murlog.ValidID(p.Cursor) {
		return 0, nil, murlog.Invalid("cursor", "is not a valid cursor")
	}
	n, err := limitOf(p.Limit)
	if err != nil {
		return 0, nil, err
	}
	svc, err := s.soc()
	return n, svc, err
}

// paged fetches a page of n, asking for one more when the service allows
// it to tell whether another page follows; at the service's maximum a full
// page is taken to have a next one (which may then be empty).
func paged[T any](n int, fetch func(n int) ([]T, error), id func(T) string) ([]T, string, error) {
	ask := min(n+1, social.MaxPage)
	xs, err := fetch(ask)
	if err != nil {
		return nil, "", err
	}
	if len(xs) > n || (ask == n && len(xs) == n) {
		xs = xs[:n]
		return xs, id(xs[n-1]), nil
	}
	return xs, "", nil
}

func (s *Server) registerSocial() {
	s.registerActors()
	s.registerFollows()
	s.registerFollowers()
	s.registerBlocks()
	s.registerSocialPosts()
}

func (s *Server) registerActors() {
	register(s, "actors.lookup", owner, false, func(ctx context.Context, p *struct {
		personaParam
		Q string `json:"q"`
	}) (any, error) {
		q := strings.TrimSpace(p.Q)
		if q == "" || len(q) > 2048 {
			return nil, murlog.Invalid("q", "must be @user@host, user@host or an actor URL")
		}
		if _, err := s.soc(); err != nil {
			return nil, err
		}
		if s.deps.Remote == nil {
			return nil, errNoRemote
		}
		// The persona first: an unknown one must not cost a remote fetch.
		if err := s.withViews(ctx, p.PersonaID, func(*views) error { return nil }); err != nil {
			return nil, err
		}
		a, err := s.deps.Remote.Resolve(ctx, q)
		if err != nil {
			return nil, remoteError(err, hostOfQuery(q), "q")
		}
		return viewed(s, ctx, p.PersonaID, func(v *views) (*actorView, error) { return v.actorByID(a.ID, true) })
	})
	register(s, "actors.get", owner, false, func(ctx context.Context, p *personaIDParams) (any, error) {
		if err := checkID(p.ID); err != nil {
			return nil, err
		}
		return viewed(s, ctx, p.PersonaID, func(v *views) (*actorView, error) { return v.actorByID(p.ID, true) })
	})
	s.registerRemoteCollections()
}

func (s *Server) registerFollows() {
	register(s, "follows.list", owner, false, func(ctx context.Context, p *struct {
		pageParams
		State murlog.FollowState `json:"state"`
	}) (any, error) {
		if p.State != "" && p.State != murlog.FollowPending && p.State != murlog.FollowAccepted {
			return nil, murlog.Invalid("state", "must be pending or accepted")
		}
		return listPage(s, ctx, &p.pageParams, func(svc *social.Service, after string, n int) ([]*murlog.Follow, error) {
			return svc.Following(ctx, p.PersonaID, p.State, after, n)
		}, func(f *murlog.Follow) string { return f.ID }, (*views).follow)
	})
	register(s, "follows.check", owner, false, func(ctx context.Context, p *actorParams) (any, error) {
		svc, err := s.actorCall(p)
		if err != nil {
			return nil, err
		}
		f, err := svc.FollowOf(ctx, p.PersonaID, p.ActorID)
		switch murlog.ErrorCode(err) {
		case "":
			return map[string]string{"state": string(f.State)}, nil
		case murlog.ENotFound:
			// The actor unknown is not found; known and not followed is "none".
			if _, err := viewed(s, ctx, p.PersonaID, func(v *views) (*murlog.RemoteActor, error) { return v.actor(p.ActorID) }); err != nil {
				return nil, err
			}
			return map[string]string{"state": "none"}, nil
		}
		return nil, err
	})
	register(s, "follows.create", owner, true, func(ctx context.Context, p *actorParams) (any, error) {
		svc, err := s.actorCall(p)
		if err != nil {
			return nil, err
		}
		f, err := svc.Follow(ctx, p.PersonaID, p.ActorID)
		if err != nil {
			return nil, err
		}
		return viewed(s, ctx, p.PersonaID, func(v *views) (*followView, error) { return v.follow(f) })
	})
	register(s, "follows.delete", owner, true, func(ctx context.Context, p *actorParams) (any, error) {
		svc, err := s.actorCall(p)
		if err != nil {
			return nil, err
		}
		return nil, svc.Unfollow(ctx, p.PersonaID, p.ActorID)
	})
}

func (s *Server) registerFollowers() {
	for name, state := range map[string]murlog.FollowState{"followers.list": murlog.FollowAccepted, "followers.pending": murlog.FollowPending} {
		register(s, name, owner, false, func(ctx context.Context, p *pageParams) (any, error) {
			return listPage(s, ctx, p, func(svc *social.Service, after string, n int) ([]*murlog.Follower, error) {
				return svc.Followers(ctx, p.PersonaID, state, after, n)
			}, func(f *murlog.Follower) string { return f.ID }, (*views).follower)
		})
	}
	register(s, "followers.approve", owner, true, func(ctx context.Context, p *actorParams) (any, error) {
		svc, err := s.actorCall(p)
		if err != nil {
			return nil, err
		}
		if err := svc.Approve(ctx, p.PersonaID, p.ActorID); err != nil {
			return nil, err
		}
		return viewed(s, ctx, p.PersonaID, func(v *views) (*followerView, error) {
			f, err := v.tx.Followers().GetByActor(v.p.ID, p.ActorID)
			if err != nil {
				return nil, err
			}
			return v.follower(f)
		})
	})
	for name, fn := range map[string]func(*social.Service, context.Context, string, string) error{
		"followers.reject": (*social.Service).Reject,
		"followers.delete": (*social.Service).Remove,
	} {
		register(s, name, owner, true, func(ctx context.Context, p *actorParams) (any, error) {
			svc, err := s.actorCall(p)
			if err != nil {
				return nil, err
			}
			return nil, fn(svc, ctx, p.PersonaID, p.ActorID)
		})
	}
}

func (s *Server) registerBlocks() {
	register(s, "blocks.list", owner, false, func(ctx context.Context, p *pageParams) (any, error) {
		n, svc, err := s.pageCall(p)
		if err != nil {
			return nil, err
		}
		bs, err := svc.Blocks(ctx, p.PersonaID)
		if err != nil {
			return nil, err
		}
		// The service lists every block (a persona blocks few accounts);
		// the cursor is the last actor of the previous page.
		if p.Cursor != "" {
			i := 0
			for i < len(bs) && bs[i].ActorID != p.Cursor {
				i++
			}
			if i == len(bs) {
				return nil, murlog.Invalid("cursor", "is not a blocked account")
			}
			bs = bs[i+1:]
		}
		next := ""
		if len(bs) > n {
			bs = bs[:n]
			next = bs[n-1].ActorID
		}
		items, err := viewed(s, ctx, p.PersonaID, func(v *views) ([]*actorView, error) {
			return mapViews(bs, func(b *murlog.Block) (*actorView, error) { return v.actorByID(b.ActorID, true) })
		})
		if err != nil {
			return nil, err
		}
		return newPage(items.([]*actorView), next), nil
	})
	register(s, "blocks.create", owner, true, func(ctx context.Context, p *actorParams) (any, error) {
		svc, err := s.actorCall(p)
		if err != nil {
			return nil, err
		}
		_, err = svc.Block(ctx, p.PersonaID, p.ActorID)
		return nil, err
	})
	register(s, "blocks.delete", owner, true, func(ctx context.Context, p *actorParams) (any, error) {
		svc, err := s.actorCall(p)
		if err != nil {
			return nil, err
		}
		return nil, svc.Unblock(ctx, p.PersonaID, p.ActorID)
	})
	register(s, "domain_blocks.list", owner, false, func(ctx context.Context, _ *noParams) (any, error) {
		svc, err := s.soc()
		if err != nil {
			return nil, err
		}
		bs, err := svc.DomainBlocks(ctx)
		if err != nil {
			return nil, err
		}
		items, _ := mapViews(bs, func(b *murlog.DomainBlock) (*domainBlockView, error) { return newDomainBlockView(b), nil })
		return newPage(items, ""), nil
	})
	register(s, "domain_blocks.create", owner, true, func(ctx context.Context, p *struct {
		Domain string `json:"domain"`
		Reason string `json:"reason"`
	}) (any, error) {
		svc, err := s.soc()
		if err != nil {
			return nil, err
		}
		b, err := svc.DomainBlock(ctx, p.Domain, p.Reason)
		if err != nil {
			return nil, err
		}
		return newDomainBlockView(b), nil
	})
	register(s, "domain_blocks.delete", owner, true, func(ctx context.Context, p *struct {
		Domain string `json:"domain"`
	}) (any, error) {
		svc, err := s.soc()
		if err != nil {
			return nil, err
		}
		return nil, svc.DomainUnblock(ctx, p.Domain)
	})
}

// actorCall checks the actor_id of p and returns the social service.
func (s *Server) actorCall(p *actorParams) (*social.Service, error) {
	return s.idCall("actor_id", p.ActorID)
}

// idCall checks the required id parameter field and returns the social
// service.
func (s *Server) idCall(field, id string) (*social.Service, error) {
	if err := required(field, id); err != nil {
		return nil, err
	}
	return s.soc()
}

// required validates a required id parameter.
func required(field, id string) error {
	if id == "" {
		return murlog.Invalid(field, "is required")
	}
	if !murlog.ValidID(id) {
		return murlog.Invalid(field, "is not a valid id")
	}
	return nil
}

// checkID validates a required id parameter named id.
func checkID(id string) error { return required("id", id) }

// listPage is the shape of the id-paged lists: check the page, fetch
// through the service, render in one read transaction.
func listPage[T, V any](s *Server, ctx context.Context, p *pageParams, fetch func(svc *social.Service, after string, n int) ([]T, error),
	id func(T) string, render func(*views, T) (V, error)) (any, error) {
	n, svc, err := s.pageCall(p)
	if err != nil {
		return nil, err
	}
	xs, next, err := paged(n, func(n int) ([]T, error) { return fetch(svc, p.Cursor, n) }, id)
	if err != nil {
		return nil, err
	}
	items, err := viewed(s, ctx, p.PersonaID, func(v *views) ([]V, error) {
		return mapViews(xs, func(x T) (V, error) { return render(v, x) })
	})
	if err != nil {
		return nil, err
	}
	return newPage(items.([]V), next), nil
}
