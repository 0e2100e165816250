package auth

import (
	"context"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// SessionIDLen is how many hex digits of a session's token hash name it in
// the API: 64 bits, unique among one owner's sessions in practice, and a
// prefix of a hash of a 256-bit secret gives nothing towards the cookie.
const SessionIDLen = 16

// MaxSessionsListed bounds ListSessions: the most recently used ones.
const MaxSessionsListed = 100

// SessionID is the API's name of the session with this token hash.
func SessionID(tokenHash string) string {
	if len(tokenHash) < SessionIDLen {
		return tokenHash
	}
	return tokenHash[:SessionIDLen]
}

// ListSessions returns the live sessions, most recently used first, at
// most MaxSessionsListed.
func (s *Service) ListSessions(ctx context.Context) ([]*murlog.Session, error) {
	var out []*murlog.Session
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		out, err = tx.Sessions().List(tx.Now(), MaxSessionsListed)
		return err
	})
	return out, err
}

// RevokeSession ends the session named id (SessionID).
func (s *Service) RevokeSession(ctx context.Context, id string) error {
	if !validSessionID(id) {
		return murlog.Invalid("id", "must be a session id: %d lower-case hex digits", SessionIDLen)
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		n, err := tx.Sessions().DeletePrefix(id)
		if err == nil && n == 0 {
			return murlog.NotFound("session")
		}
		return err
	})
}

// RevokeOtherSessions ends every session but keep, the caller's own, and
// says how many live ones it ended.
func (s *Service) RevokeOtherSessions(ctx context.Context, keep string) (int, error) {
	if keep == "" {
		return 0, murlog.Errorf(murlog.EForbidden, "only a logged-in browser session can end the others")
	}
	n := 0
	err := s.store.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.Sessions().DeleteExpired(tx.Now()); err != nil {
			return err
		}
		var err error
		n, err = tx.Sessions().DeleteAllExcept(keep)
		return err
	})
	return n, err
}

func validSessionID(id string) bool {
	if len(id) != SessionIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
