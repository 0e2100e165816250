package api

import (
	"context"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/social"
)

type notificationListParams struct {
	pageParams
	Kinds  []murlog.NotificationKind `json:"kinds"`
	Unread bool                      `json:"unread"`
}

// maxUnreadScan bounds the pages notifications.list reads to fill a page
// of unread ones (the store filters by kind only).
const maxUnreadScan = 10

func (s *Server) registerNotifications() {
	register(s, "notifications.list", owner, false, func(ctx context.Context, p *notificationListParams) (any, error) {
		n, svc, err := s.pageCall(&p.pageParams)
		if err != nil {
			return nil, err
		}
		if p.Kinds != nil && len(p.Kinds) == 0 {
			return nil, murlog.Invalid("kinds", "must name at least one kind, or be omitted")
		}
		ns, next, err := s.notifications(ctx, svc, p, n)
		if err != nil {
			return nil, err
		}
		items, err := viewed(s, ctx, p.PersonaID, func(v *views) ([]*notificationView, error) {
			return mapViews(ns, v.notification)
		})
		if err != nil {
			return nil, err
		}
		return newPage(items.([]*notificationView), next), nil
	})
	register(s, "notifications.count_unread", owner, false, func(ctx context.Context, p *personaParam) (any, error) {
		svc, err := s.soc()
		if err != nil {
			return nil, err
		}
		c, err := svc.CountUnread(ctx, p.PersonaID)
		if err != nil {
			return nil, err
		}
		return map[string]int{"count": c}, nil
	})
	register(s, "notifications.read", owner, true, func(ctx context.Context, p *struct {
		personaParam
		IDs []string `json:"ids"`
	}) (any, error) {
		if len(p.IDs) == 0 {
			return nil, murlog.Invalid("ids", "must list at least one notification id")
		}
		svc, err := s.soc()
		if err != nil {
			return nil, err
		}
		_, err = svc.Read(ctx, p.PersonaID, p.IDs...)
		return nil, err
	})
	register(s, "notifications.read_all", owner, true, func(ctx context.Context, p *personaParam) (any, error) {
		svc, err := s.soc()
		if err != nil {
			return nil, err
		}
		_, err = svc.ReadAll(ctx, p.PersonaID)
		return nil, err
	})
	register(s, "notifications.delete", owner, true, func(ctx context.Context, p *personaIDParams) (any, error) {
		svc, err := s.idCall("id", p.ID)
		if err != nil {
			return nil, err
		}
		return nil, svc.DeleteNotification(ctx, p.PersonaID, p.ID)
	})
}

// notifications reads a page of n, newest first. With unread set it
// reads on (up to maxUnreadScan pages) until n unread ones are found; the
// cursor is then the last notification read, so the next page goes on
// from there.
func (s *Server) notifications(ctx context.Context, svc *social.Service, p *notificationListParams, n int) ([]*murlog.Notification, string, error) {
	if !p.Unread {
		return paged(n, func(k int) ([]*murlog.Notification, error) {
			return svc.Notifications(ctx, p.PersonaID, p.Kinds, p.Cursor, k)
		}, func(x *murlog.Notification) string { return x.ID })
	}
	var out []*murlog.Notification
	before := p.Cursor
	for range maxUnreadScan {
		ns, err := svc.Notifications(ctx, p.PersonaID, p.Kinds, before, social.MaxPage)
		if err != nil {
			return nil, "", err
		}
		for i, x := range ns {
			if x.Read {
				continue
			}
			out = append(out, x)
			if len(out) == n {
				if i == len(ns)-1 && len(ns) < social.MaxPage {
					return out, "", nil
				}
				return out, x.ID, nil
			}
		}
		if len(ns) < social.MaxPage {
			return out, "", nil
		}
		before = ns[len(ns)-1].ID
	}
	return out, before, nil
}
