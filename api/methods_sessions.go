package api

import (
	"context"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/auth"
)

// sessionView is one logged-in browser. The id is the first 16 hex digits
// of the token hash: enough to name it, nothing towards the cookie.
type sessionView struct {
	ID         string    `json:"id"`
	UserAgent  string    `json:"user_agent"`
	CreatedAt  time.Time `json:"created_at"`
	LastSeenAt time.Time `json:"last_seen_at"`
	ExpiresAt  time.Time `json:"expires_at"`
	Current    bool      `json:"current"` // the session making this call
}

// registerSessions adds the owner's view of their browser sessions. All
// of it is session-only: a token has no session of its own to tell apart,
// and ending sessions is the owner's answer to a stolen one.
func (s *Server) registerSessions() {
	register(s, "sessions.list", owner, false, func(ctx context.Context, _ *noParams) (any, error) {
		if err := sessionOnly(ctx, "sessions.list"); err != nil {
			return nil, err
		}
		ss, err := s.deps.Auth.ListSessions(ctx)
		if err != nil {
			return nil, err
		}
		self := murlog.CallerFrom(ctx).SessionHash
		views := make([]*sessionView, len(ss))
		for i, x := range ss {
			views[i] = &sessionView{ID: auth.SessionID(x.TokenHash), UserAgent: x.UserAgent, CreatedAt: x.CreatedAt,
				LastSeenAt: x.LastSeenAt, ExpiresAt: x.ExpiresAt, Current: x.TokenHash == self}
		}
		return newPage(views, ""), nil
	})
	register(s, "sessions.revoke", owner, true, func(ctx context.Context, p *struct {
		ID string `json:"id"`
	}) (any, error) {
		if err := sessionOnly(ctx, "sessions.revoke"); err != nil {
			return nil, err
		}
		if err := s.deps.Auth.RevokeSession(ctx, p.ID); err != nil {
			return nil, err
		}
		// Ending one's own session is a logout.
		if p.ID == auth.SessionID(murlog.CallerFrom(ctx).SessionHash) {
			setCookie(ctx, s.deps.Cookies.ClearSession())
		}
		return nil, nil
	})
	register(s, "sessions.revoke_others", owner, true, func(ctx context.Context, _ *noParams) (any, error) {
		if err := sessionOnly(ctx, "sessions.revoke_others"); err != nil {
			return nil, err
		}
		n, err := s.deps.Auth.RevokeOtherSessions(ctx, murlog.CallerFrom(ctx).SessionHash)
		if err != nil {
			return nil, err
		}
		return map[string]any{"status": "ok", "revoked": n}, nil
	})
}
