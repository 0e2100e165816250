// Package auth authenticates the owner: password login with a database-held
// rate limit (so it also holds across CGI processes), two-factor login with
// RFC 6238 TOTP codes and recovery codes, browser sessions, bearer API
// tokens for scripts, and the file-based password reset.
package auth

import (
	"context"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// Policy values. They are fields of Service so tests can shorten them.
const (
	DefaultSessionTTL   = 14 * 24 * time.Hour
	DefaultMaxFailures  = 5
	DefaultLockout      = 5 * time.Minute
	DefaultFailureReset = 15 * time.Minute // failures older than this are forgotten
	touchEvery          = time.Hour        // how stale last_seen_at may get before a write
	MaxTokenName        = 100
)

// Service is the owner-authentication service.
type Service struct {
	store        store.Store
	SessionTTL   time.Duration
	MaxFailures  int
	Lockout      time.Duration
	FailureReset time.Duration
	// Hash and Check are the expensive password functions (HashPassword
	// and CheckPassword). Every credential check runs them last, after
	// the cheap checks; tests swap them to count calls.
	Hash  func(pw string) (string, error)
	Check func(hash, pw string) (bool, error)
	// HashWait is how long a password check waits for a free hashing
	// slot (MaxConcurrentHashes) before it is refused as unavailable.
	HashWait time.Duration
}

// MaxConcurrentHashes is how many argon2 runs (19 MiB each) one process
// does at once, whatever their callers: the per-address limit does not
// bound logins from many addresses, and each would otherwise hold its own
// 19 MiB. Two keep both cores of a small server busy.
const MaxConcurrentHashes = 2

// DefaultHashWait is Service.HashWait's default: a check takes ~30 ms, so
// a burst of logins waits its turn, and a flood is refused.
const DefaultHashWait = 2 * time.Second

// hashSlots is shared by every Service of the process: the memory is the
// process's.
var hashSlots = make(chan struct{}, MaxConcurrentHashes)

// New returns a Service with the default policy.
func New(st store.Store) *Service {
	return &Service{store: st, SessionTTL: DefaultSessionTTL, MaxFailures: DefaultMaxFailures,
		Lockout: DefaultLockout, FailureReset: DefaultFailureReset, Hash: HashPassword, Check: CheckPassword,
		HashWait: DefaultHashWait}
}

// hashing runs fn, an argon2 hash or check, in one of the process's
// hashing slots, waiting at most HashWait for one.
func (s *Service) hashing(ctx context.Context, fn func()) error {
	select {
	case hashSlots <- struct{}{}:
	default:
		t := time.NewTimer(s.HashWait)
		defer t.Stop()
		select {
		case hashSlots <- struct{}{}:
		case <-t.C:
			return &murlog.Error{Code: murlog.EUnavailable, RetryAfter: time.Second,
				Message: "too many password checks at once; try again in a second"}
		case <-ctx.Done():
			return murlog.Errorf(murlog.EUnavailable, "request ended while waiting to check the password")
		}
	}
	defer func() { <-hashSlots }()
	fn()
	return nil
}

// check is s.Check in a hashing slot.
func (s *Service) check(ctx context.Context, hash, pw string) (ok bool, err error) {
	if herr := s.hashing(ctx, func() { ok, err = s.Check(hash, pw) }); herr != nil {
		return false, herr
	}
	if err != nil {
		return false, murlog.Internal(err)
	}
	return ok, nil
}

// hash is s.Hash in a hashing slot.
func (s *Service) hash(ctx context.Context, pw string) (h string, err error) {
	if herr := s.hashing(ctx, func() { h, err = s.Hash(pw) }); herr != nil {
		return "", herr
	}
	if err != nil {
		return "", murlog.Internal(err)
	}
	return h, nil
}

// LoginInput is one login attempt.
type LoginInput struct {
	Password string
	// TOTPCode is the second factor, needed once two-factor login is on:
	// a TOTP code or an unused recovery code. Malformed, it is refused
	// whether two-factor login is on or not.
	TOTPCode  string
	ClientKey string // rate-limit key: the client's address
	UserAgent string
}

// Login checks the password and, when two-factor login is on, the code,
// and starts a session. It returns the session secret for the cookie.
// Every attempt counts against ClientKey before the password is checked,
// so parallel guesses cannot slip past the limit; a success clears the
// count.
//
// The password is checked first, and a wrong one is answered "wrong
// password" whatever the code, without touching the code (it is not used
// up). Only with the right password does a missing code answer "two-factor
// code required" and a wrong or reused one "wrong or already used code",
// both EUnauthorized on field totp_code. That tells whoever has the
// password that it is right, as the two-step logins of Mastodon and
// GitHub do; the code still stands between them and a session, and every
// code they try costs an attempt of the same limit.
func (s *Service) Login(ctx context.Context, in LoginInput) (string, *murlog.Session, error) {
	var kind codeKind
	var code string
	if in.TOTPCode != "" {
		var err error
		if kind, code, err = parseCode("totp_code", in.TOTPCode, true); err != nil {
			return "", nil, err
		}
	}
	var hash string
	err := s.store.Update(ctx, func(tx store.Tx) error {
		if err := s.countAttempt(tx, in.ClientKey); err != nil {
			return err
		}
		h, err := tx.Settings().Get(murlog.SettingPasswordHash)
		if murlog.ErrorCode(err) == murlog.ENotFound {
			return murlog.Errorf(murlog.EUnavailable, "no password is set; finish setup first")
		}
		hash = h
		return err
	})
	if err != nil {
		return "", nil, err
	}
	ok, err := s.check(ctx, hash, in.Password)
	if err != nil {
		return "", nil, err
	}
	if !ok {
		return "", nil, murlog.Errorf(murlog.EUnauthorized, "wrong password")
	}
	secret := newSecret()
	var sess *murlog.Session
	err = s.store.Update(ctx, func(tx store.Tx) error {
		// The code is used up in the transaction that starts the session:
		// of two logins racing with one code, one gets a session.
		if err := secondFactor(tx, kind, code); err != nil {
			return err
		}
		if err := tx.LoginAttempts().Delete(in.ClientKey); err != nil {
			return err
		}
		now := tx.Now()
		sess = &murlog.Session{TokenHash: HashToken(secret), CreatedAt: now, LastSeenAt: now,
			ExpiresAt: now.Add(s.SessionTTL), UserAgent: truncate(in.UserAgent, 256)}
		// Housekeeping where it costs nothing noticeable: a login is rare.
		if _, err := tx.Sessions().DeleteExpired(now); err != nil {
			return err
		}
		if _, err := tx.LoginAttempts().DeleteBefore(now.Add(-s.FailureReset)); err != nil {
			return err
		}
		return tx.Sessions().Create(sess)
	})
	if err != nil {
		return "", nil, err
	}
	return secret, sess, nil
}

// countAttempt records one password attempt (login, password change or
// reset) for key and refuses it while key is locked. It is one atomic
// statement in the store, so concurrent guesses are all counted on any
// engine, and it runs before any expensive hash, so a locked attempt costs
// one write and no argon2.
func (s *Service) countAttempt(tx store.Tx, key string) error {
	now := tx.Now()
	a, locked, err := tx.LoginAttempts().Hit(key, now, store.AttemptPolicy{Max: s.MaxFailures,
		Window: s.FailureReset, Lockout: s.Lockout})
	if err != nil {
		return err
	}
	if locked {
		return &murlog.Error{Code: murlog.ERateLimited, RetryAfter: a.LockedUntil.Sub(now),
			Message: "too many failed password attempts from this address; try again later"}
	}
	return nil
}

// Logout ends the session with the given hash.
func (s *Service) Logout(ctx context.Context, sessionHash string) error {
	return s.store.Update(ctx, func(tx store.Tx) error {
		return tx.Sessions().Delete(sessionHash)
	})
}

// Session returns the live session for a cookie secret. The second result
// is true when the session was renewed (its expiry slid forward) and the
// cookie should be sent again. Renewal writes at most once an hour, so a
// busy owner does not turn every read into a write.
func (s *Service) Session(ctx context.Context, secret string) (*murlog.Session, bool, error) {
	if secret == "" {
		return nil, false, murlog.Errorf(murlog.EUnauthorized, "not logged in")
	}
	hash := HashToken(secret)
	var sess *murlog.Session
	var stale bool
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		sess, err = tx.Sessions().Get(hash)
		if murlog.ErrorCode(err) == murlog.ENotFound {
			return murlog.Errorf(murlog.EUnauthorized, "session expired or logged out; log in again")
		}
		if err != nil {
			return err
		}
		if !tx.Now().Before(sess.ExpiresAt) {
			return murlog.Errorf(murlog.EUnauthorized, "session expired; log in again")
		}
		stale = tx.Now().Sub(sess.LastSeenAt) > touchEvery
		return nil
	})
	if err != nil || !stale {
		return sess, false, err
	}
	err = s.store.Update(ctx, func(tx store.Tx) error {
		sess.LastSeenAt = tx.Now()
		sess.ExpiresAt = tx.Now().Add(s.SessionTTL)
		return tx.Sessions().Touch(hash, sess.LastSeenAt, sess.ExpiresAt)
	})
	return sess, err == nil, err
}

// Token returns the API token for a bearer secret.
func (s *Service) Token(ctx context.Context, secret string) (*murlog.APIToken, error) {
	if !strings.HasPrefix(secret, tokenPrefix) {
		return nil, murlog.Errorf(murlog.EUnauthorized, "invalid API token")
	}
	hash := HashToken(secret)
	var tok *murlog.APIToken
	var stale bool
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		tok, err = tx.Tokens().GetByHash(hash)
		if murlog.ErrorCode(err) == murlog.ENotFound {
			return murlog.Errorf(murlog.EUnauthorized, "invalid or revoked API token")
		}
		stale = err == nil && (tok.LastUsedAt == nil || tx.Now().Sub(*tok.LastUsedAt) > touchEvery)
		return err
	})
	if err != nil {
		return nil, err
	}
	if stale {
		// Best effort: a busy database must not fail an otherwise valid call.
		_ = s.store.Update(ctx, func(tx store.Tx) error { return tx.Tokens().Touch(tok.ID, tx.Now()) })
	}
	return tok, nil
}

// ChangePasswordInput is one password change by the logged-in owner.
type ChangePasswordInput struct {
	Current, Next string
	// KeepSession is the caller's own session hash: every other session
	// ends ("" ends all).
	KeepSession string
	// RevokeTokens also revokes every API token.
	RevokeTokens bool
	ClientKey    string // rate-limit key, shared with login
}

// ChangePassword verifies the current password, stores the new one and ends
// every other session (a changed password should lock out whoever else had
// it), and with RevokeTokens every API token too. It returns how many
// tokens were revoked. Each attempt counts against the login limit before
// anything is hashed: a stolen session must not become a password oracle.
func (s *Service) ChangePassword(ctx context.Context, in ChangePasswordInput) (int, error) {
	if in.Current == "" {
		return 0, murlog.Invalid("current_password", "is required")
	}
	if err := ValidatePassword("new_password", in.Next); err != nil {
		return 0, err
	}
	var hash string
	if err := s.store.Update(ctx, func(tx store.Tx) error {
		if err := s.countAttempt(tx, in.ClientKey); err != nil {
			return err
		}
		var err error
		hash, err = tx.Settings().Get(murlog.SettingPasswordHash)
		return err
	}); err != nil {
		return 0, err
	}
	ok, err := s.check(ctx, hash, in.Current)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, murlog.Invalid("current_password", "does not match")
	}
	newHash, err := s.hash(ctx, in.Next)
	if err != nil {
		return 0, err
	}
	revoked := 0
	err = s.store.Update(ctx, func(tx store.Tx) error {
		if err := tx.LoginAttempts().Delete(in.ClientKey); err != nil {
			return err
		}
		if err := tx.Settings().Set(murlog.SettingPasswordHash, newHash); err != nil {
			return err
		}
		if err := tx.Settings().Set(murlog.SettingPasswordChangedAt, tx.Now().Format(time.RFC3339Nano)); err != nil {
			return err
		}
		if in.RevokeTokens {
			n, err := tx.Tokens().DeleteAll()
			if err != nil {
				return err
			}
			revoked = n
		}
		_, err := tx.Sessions().DeleteAllExcept(in.KeepSession)
		return err
	})
	if err != nil {
		return 0, err
	}
	return revoked, nil
}

// CreateToken makes a bearer token and returns its secret, shown only once.
func (s *Service) CreateToken(ctx context.Context, name string) (string, *murlog.APIToken, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", nil, murlog.Invalid("name", "is required")
	}
	if err := murlog.CheckName("name", name); err != nil {
		return "", nil, err
	}
	if len([]rune(name)) > MaxTokenName {
		return "", nil, murlog.Invalid("name", "must be at most %d characters", MaxTokenName)
	}
	secret := tokenPrefix + newSecret()
	tok := &murlog.APIToken{ID: murlog.NewID(), Name: name, TokenHash: HashToken(secret), Prefix: secret[:len(tokenPrefix)+6]}
	err := s.store.Update(ctx, func(tx store.Tx) error {
		tok.CreatedAt = tx.Now()
		return tx.Tokens().Create(tok)
	})
	if err != nil {
		return "", nil, err
	}
	return secret, tok, nil
}

// ListTokens returns every API token, newest first.
func (s *Service) ListTokens(ctx context.Context) ([]*murlog.APIToken, error) {
	var out []*murlog.APIToken
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		out, err = tx.Tokens().List()
		return err
	})
	return out, err
}

// RevokeToken deletes an API token; later calls with it are unauthorized.
func (s *Service) RevokeToken(ctx context.Context, id string) error {
	if !murlog.ValidID(id) {
		return murlog.Invalid("id", "is not a valid id")
	}
	return s.store.Update(ctx, func(tx store.Tx) error { return tx.Tokens().Delete(id) })
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
