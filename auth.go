package murlog

import "time"

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
