package social

import (
	"context"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// Notifications returns the persona's notifications of kinds (nil for
// all), newest first, after the notification before.
func (s *Service) Notifications(ctx context.Context, personaID string, kinds []murlog.NotificationKind, before string, n int) ([]*murlog.Notification, error) {
	if err := checkCursor("before", before); err != nil {
		return nil, err
	}
	for _, k := range kinds {
		if !k.Valid() {
			return nil, murlog.Invalid("kinds", "unknown notification kind %q", k)
		}
	}
	return view(s, ctx, personaID, func(tx store.Tx, p *murlog.Persona) ([]*murlog.Notification, error) {
		return tx.Notifications().List(store.NotificationQuery{PersonaID: p.ID, Kinds: kinds, Before: before, Limit: limit(n)})
	})
}

// CountUnread counts the persona's unread notifications.
func (s *Service) CountUnread(ctx context.Context, personaID string) (int, error) {
	return view(s, ctx, personaID, func(tx store.Tx, p *murlog.Persona) (int, error) {
		return tx.Notifications().CountUnread(p.ID)
	})
}

// Read marks notifications read and says how many changed.
func (s *Service) Read(ctx context.Context, personaID string, ids ...string) (int, error) {
	if len(ids) > MaxPage {
		return 0, murlog.Invalid("ids", "at most %d at once", MaxPage)
	}
	for _, id := range ids {
		if err := checkID("ids", id); err != nil {
			return 0, err
		}
	}
	return update(s, ctx, personaID, func(tx store.Tx, p *murlog.Persona) (int, error) {
		return tx.Notifications().MarkRead(p.ID, ids...)
	})
}

// ReadAll marks every notification of the persona read.
func (s *Service) ReadAll(ctx context.Context, personaID string) (int, error) {
	return update(s, ctx, personaID, func(tx store.Tx, p *murlog.Persona) (int, error) {
		return tx.Notifications().MarkAllRead(p.ID)
	})
}

// DeleteNotification deletes one notification; ENotFound if it is not the
// persona's.
func (s *Service) DeleteNotification(ctx context.Context, personaID, id string) error {
	if err := checkID("id", id); err != nil {
		return err
	}
	return s.updatePersona(ctx, personaID, func(tx store.Tx, p *murlog.Persona) error {
		return tx.Notifications().Delete(p.ID, id)
	})
}

// Home is the persona's home timeline: its own published posts and the
// posts received from the accounts it follows, newest first, after the
// item before.
func (s *Service) Home(ctx context.Context, personaID, before string, n int) ([]*store.TimelineItem, error) {
	if err := checkCursor("before", before); err != nil {
		return nil, err
	}
	return view(s, ctx, personaID, func(tx store.Tx, p *murlog.Persona) ([]*store.TimelineItem, error) {
		return tx.Timeline().List(p.ID, tx.Now(), before, limit(n))
	})
}

// MaxPins is how many posts a persona may feature, as Mastodon's default.
const MaxPins = 5

// Pin features one of the persona's own published public or unlisted
// posts (EInvalid otherwise); more than MaxPins is EConflict, pinning a
// pinned post changes nothing.
func (s *Service) Pin(ctx context.Context, personaID, postID string) error {
	if err := checkID("post_id", postID); err != nil {
		return err
	}
	return s.updatePersona(ctx, personaID, func(tx store.Tx, p *murlog.Persona) error {
		post, err := tx.Posts().Get(postID)
		if err != nil {
			return err
		}
		if post.PersonaID != p.ID {
			return murlog.NotFound("post")
		}
		if !post.PublicAt(tx.Now()) {
			return murlog.Invalid("post_id", "only published public or unlisted posts can be pinned")
		}
		if post.Page {
			return murlog.Invalid("post_id", "a page is in the site menu, not among the posts: it cannot be pinned")
		}
		pins, err := tx.Pins().List(p.ID)
		if err != nil {
			return err
		}
		for _, pin := range pins {
			if pin.PostID == post.ID {
				return nil
			}
		}
		if len(pins) >= MaxPins {
			return murlog.Errorf(murlog.EConflict, "at most %d posts can be pinned", MaxPins)
		}
		return tx.Pins().Pin(&murlog.Pin{PersonaID: p.ID, PostID: post.ID, PinnedAt: tx.Now()})
	})
}

// Unpin stops featuring a post. Not pinned is not an error.
func (s *Service) Unpin(ctx context.Context, personaID, postID string) error {
	if err := checkID("post_id", postID); err != nil {
		return err
	}
	return s.updatePersona(ctx, personaID, func(tx store.Tx, p *murlog.Persona) error {
		if err := tx.Pins().Unpin(p.ID, postID); murlog.ErrorCode(err) != murlog.ENotFound {
			return err
		}
		return nil
	})
}

// Pins lists the persona's pinned posts, most recently pinned first.
func (s *Service) Pins(ctx context.Context, personaID string) ([]*murlog.Pin, error) {
	return view(s, ctx, personaID, func(tx store.Tx, p *murlog.Persona) ([]*murlog.Pin, error) {
		return tx.Pins().List(p.ID)
	})
}

// Deliveries says where a local post went (posts.deliveries): counts per
// state and the latest failures.
func (s *Service) Deliveries(ctx context.Context, postID string) (*store.DeliverySummary, error) {
	if err := checkID("post_id", postID); err != nil {
		return nil, err
	}
	var sum *store.DeliverySummary
	err := s.store.View(ctx, func(tx store.Tx) error {
		if _, err := tx.Posts().Get(postID); err != nil {
			return err
		}
		var err error
		sum, err = tx.Deliveries().Summary(postID)
		return err
	})
	return sum, err
}
