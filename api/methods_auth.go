package api

import (
	"context"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/auth"
)

type loginParams struct {
	Password string `json:"password"`
	TOTPCode string `json:"totp_code"` // the second factor, once two-factor login is on
}

type changePasswordParams struct {
	CurrentPassword string `json:"current_password"`
	NewPassword     string `json:"new_password"`
	RevokeTokens    bool   `json:"revoke_tokens"` // also revoke every API token
}

// sessionOnly refuses a call made with a bearer token. Minting or
// revoking tokens and changing the password widen or move credentials: a
// leaked token must not be able to outlive its own revocation by minting
// another, nor lock the owner out. Two-factor changes and the sessions
// methods use it too.
func sessionOnly(ctx context.Context, method string) error {
	if murlog.CallerFrom(ctx).Via != "session" {
		return murlog.Errorf(murlog.EForbidden, "%s needs a logged-in browser session; API tokens may not call it", method)
	}
	return nil
}

type tokenView struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Token      string     `json:"token,omitempty"` // only in tokens.create's answer
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
}

func (s *Server) registerAuth() {
	register(s, "auth.login", public, true, func(ctx context.Context, p *loginParams) (any, error) {
		c := murlog.CallerFrom(ctx)
		if p.Password == "" {
			return nil, murlog.Invalid("password", "is required")
		}
		secret, sess, err := s.deps.Auth.Login(ctx, auth.LoginInput{Password: p.Password, TOTPCode: p.TOTPCode,
			ClientKey: c.ClientKey, UserAgent: c.UserAgent})
		if err != nil {
			return nil, err
		}
		setCookie(ctx, s.deps.Cookies.Session(secret, sess.ExpiresAt))
		// A new CSRF token on login, so a token planted before login is useless after.
		setCookie(ctx, s.deps.Cookies.CSRF())
		return map[string]any{"status": "ok", "expires_at": sess.ExpiresAt}, nil
	})
	register(s, "auth.logout", owner, true, func(ctx context.Context, _ *noParams) (any, error) {
		c := murlog.CallerFrom(ctx)
		if c.Via == "session" {
			if err := s.deps.Auth.Logout(ctx, c.SessionHash); err != nil {
				return nil, err
			}
			setCookie(ctx, s.deps.Cookies.ClearSession())
		}
		return nil, nil
	})
	register(s, "auth.change_password", owner, true, func(ctx context.Context, p *changePasswordParams) (any, error) {
		if err := sessionOnly(ctx, "auth.change_password"); err != nil {
			return nil, err
		}
		c := murlog.CallerFrom(ctx)
		n, err := s.deps.Auth.ChangePassword(ctx, auth.ChangePasswordInput{Current: p.CurrentPassword, Next: p.NewPassword,
			KeepSession: c.SessionHash, RevokeTokens: p.RevokeTokens, ClientKey: c.ClientKey})
		if err != nil {
			return nil, err
		}
		return map[string]any{"status": "ok", "tokens_revoked": n}, nil
	})

	register(s, "tokens.create", owner, true, func(ctx context.Context, p *struct {
		Name string `json:"name"`
	}) (any, error) {
		if err := sessionOnly(ctx, "tokens.create"); err != nil {
			return nil, err
		}
		secret, t, err := s.deps.Auth.CreateToken(ctx, p.Name)
		if err != nil {
			return nil, err
		}
		return &tokenView{ID: t.ID, Name: t.Name, Prefix: t.Prefix, Token: secret, CreatedAt: t.CreatedAt}, nil
	})
	register(s, "tokens.list", owner, false, func(ctx context.Context, _ *noParams) (any, error) {
		ts, err := s.deps.Auth.ListTokens(ctx)
		if err != nil {
			return nil, err
		}
		views := make([]*tokenView, len(ts))
		for i, t := range ts {
			views[i] = &tokenView{ID: t.ID, Name: t.Name, Prefix: t.Prefix, CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt}
		}
		return newPage(views, ""), nil
	})
	register(s, "tokens.revoke", owner, true, func(ctx context.Context, p *struct {
		ID string `json:"id"`
	}) (any, error) {
		if err := sessionOnly(ctx, "tokens.revoke"); err != nil {
			return nil, err
		}
		return nil, s.deps.Auth.RevokeToken(ctx, p.ID)
	})
}
