package api

import (
	"context"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/controls"
)

// lockdownExempt are the mutating methods lockdown lets through: the
// controls themselves (an owner must be able to lift it, or flip a
// switch, while it holds), republishing the public site's artifacts
// (derived files only), pinning an existing post as the announcement
// readers see on top, and what the owner needs to secure the account
// meanwhile — logging in and out, ending sessions, changing the password.
// Every other mutating method answers 423 while it is active, alone or in
// a batch.
var lockdownExempt = map[string]bool{
	"site.controls.set_switches": true, "site.controls.set_lockdown": true,
	"site.artifacts.rebuild": true, "posts.pin": true, "posts.unpin": true,
	"auth.login": true, "auth.logout": true, "auth.change_password": true,
	"sessions.revoke": true, "sessions.revoke_others": true,
}

// controlsView is the controls as the app shows them.
type controlsView struct {
	controls.State
	// LockdownActive is whether lockdown is in force now (it may be on
	// but scheduled, or past its until).
	LockdownActive bool `json:"lockdown_active"`
}

type switchesParams struct {
	Comments      *bool `json:"comments"`
	PageViews     *bool `json:"page_views"`
	Inbox         *bool `json:"inbox"`
	Delivery      *bool `json:"delivery"`
	LinkPreviews  *bool `json:"link_previews"`
	ServiceWorker *bool `json:"service_worker"`
}

type lockdownParams struct {
	On     *bool      `json:"on"`
	From   *time.Time `json:"from"`
	Until  *time.Time `json:"until"`
	Reason string     `json:"reason"`
}

func (s *Server) registerControls() {
	now := func() time.Time {
		if s.deps.Now != nil {
			return s.deps.Now()
		}
		return time.Now()
	}
	view := func(st controls.State) any {
		return controlsView{State: st, LockdownActive: st.Lockdown.Active(now())}
	}
	need := func() (*controls.Service, error) {
		if s.deps.Controls == nil {
			return nil, murlog.Errorf(murlog.EUnavailable, "the site's controls are not configured")
		}
		return s.deps.Controls, nil
	}
	register(s, "site.controls.get", owner, false, func(ctx context.Context, _ *noParams) (any, error) {
		c, err := need()
		if err != nil {
			return nil, err
		}
		st, err := c.Current(ctx)
		if err != nil {
			return nil, err
		}
		return view(st), nil
	})
	// Switches not named keep their value: turning one off never needs
	// the others restated.
	register(s, "site.controls.set_switches", owner, true, func(ctx context.Context, p *switchesParams) (any, error) {
		c, err := need()
		if err != nil {
			return nil, err
		}
		st, err := c.Current(ctx)
		if err != nil {
			return nil, err
		}
		sw := st.Switches
		for _, f := range []struct {
			p *bool
			v *bool
		}{{p.Comments, &sw.Comments}, {p.PageViews, &sw.PageViews}, {p.Inbox, &sw.Inbox}, {p.Delivery, &sw.Delivery},
			{p.LinkPreviews, &sw.LinkPreviews}, {p.ServiceWorker, &sw.ServiceWorker}} {
			if f.p != nil {
				*f.v = *f.p
			}
		}
		if st, err = c.SetSwitches(ctx, sw); err != nil {
			return nil, err
		}
		return view(st), nil
	})
	register(s, "site.controls.set_lockdown", owner, true, func(ctx context.Context, p *lockdownParams) (any, error) {
		c, err := need()
		if err != nil {
			return nil, err
		}
		if p.On == nil {
			return nil, murlog.Required("on")
		}
		st, err := c.SetLockdown(ctx, controls.Lockdown{On: *p.On, From: p.From, Until: p.Until, Reason: p.Reason})
		if err != nil {
			return nil, err
		}
		return view(st), nil
	})
}

// locked refuses a mutating call while lockdown is active. The controls
// unknown (never read, and unreadable now) refuse it too: lockdown must
// not be lifted by a database that stopped answering.
func (s *Server) locked(ctx context.Context) error {
	if s.deps.Controls == nil {
		return nil
	}
	st, err := s.deps.Controls.Current(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	if s.deps.Now != nil {
		now = s.deps.Now()
	}
	if st.Lockdown.Active(now) {
		return controls.ErrLocked(st.Lockdown)
	}
	return nil
}
