package murlog

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Session is a logged-in browser. Only a hash of the cookie token is stored,
// so a leaked database does not yield live sessions.
type Session struct {
	TokenHash  string // hex SHA-256 of the cookie value
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastSeenAt time.Time
	UserAgent  string
}

// APIToken is a bearer token for scripts. The secret is shown once at
// creation; only its hash is stored.
type APIToken struct {
	ID         string
	Name       string
	TokenHash  string // hex SHA-256 of the secret
	Prefix     string // first characters of the secret, to recognise it in a list
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// LoginAttempts counts recent failed logins from one client address.
type LoginAttempts struct {
	Key         string // client address (or other limiter key)
	Failures    int
	LastFailure time.Time
	LockedUntil time.Time
}

// TOTP is the owner's two-factor login state. There is one owner, so there
// is one such record. The secrets are kept as they are (HMAC needs them);
// String and LogValue leave them out, so a state that reaches a log line
// or an error message does not carry them.
type TOTP struct {
	Secret    string     // base32 key in force; "" while two-factor login is off
	Pending   string     // base32 key being enrolled; not in force until verified
	LastStep  int64      // RFC 6238 time step of the last code accepted; codes for it or an earlier step are refused
	EnabledAt *time.Time // when Secret was verified; nil while off
}

// Enabled reports whether login needs a second factor.
func (t *TOTP) Enabled() bool { return t.Secret != "" }

// String describes the state without its secrets.
func (t *TOTP) String() string {
	return fmt.Sprintf("TOTP{enabled:%v pending:%v last_step:%d}", t.Enabled(), t.Pending != "", t.LastStep)
}

// LogValue is String for structured logs.
func (t *TOTP) LogValue() slog.Value { return slog.StringValue(t.String()) }

// Caller is who is making a request, as resolved by the HTTP edge
// (httpd.Authenticate) and read by the services and transports that
// decide what it may do.
type Caller struct {
	Owner       bool
	Via         string // "session", "token" or "" for anonymous
	Presented   string // the credential sent, valid or not: "session", "token" or ""
	SessionHash string
	TokenID     string
	// CSRFOK is set when the request proved it came from our own pages:
	// the double-submit cookie matched the X-CSRF-Token header.
	CSRFOK bool
	// AuthErr is why presented credentials were refused (expired session,
	// revoked token); the caller is then anonymous.
	AuthErr error
	// ClientKey is the rate-limit key of the client address.
	ClientKey string
	UserAgent string
}

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller in ctx, or an anonymous one.
func CallerFrom(ctx context.Context) *Caller {
	if c, ok := ctx.Value(callerKey{}).(*Caller); ok {
		return c
	}
	return &Caller{}
}
