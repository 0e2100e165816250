package outbound

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/murlog/murlog"
)

// StatusError is a final answer outside 2xx (after redirects and the
// double-knock). Body is its first 200 bytes, safe to log.
type StatusError struct {
	Status     int
	RetryAfter time.Duration // from Retry-After, 0 when absent
	Body       string
	// exhausted: a 401/403 that another signature scheme cannot fix.
	exhausted bool
}

func (e *StatusError) Error() string {
	s := "remote answered " + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status)
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// Permanent reports whether retrying err cannot help: a refused address,
// a bad URL, or a 4xx other than 408 and 429 — where 401/403 count only
// once both signature schemes were tried (or the request was unsigned),
// since a domain remembered as accepting one scheme may still be caching
// an old key. Delivery maps it to queue.Permanent.
func Permanent(err error) bool {
	if errors.Is(err, ErrForbiddenAddress) || errors.Is(err, errBadURL) {
		return true
	}
	var se *StatusError
	if !errors.As(err, &se) {
		return false
	}
	switch s := se.Status; {
	case s == http.StatusRequestTimeout || s == http.StatusTooManyRequests:
		return false
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return se.exhausted
	default:
		return s >= 400 && s < 500
	}
}

// maxRetryAfter bounds what a remote may ask us to wait.
const maxRetryAfter = 24 * time.Hour

// retryAfter reads Retry-After as seconds or an HTTP date relative to now.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		if n > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return max(0, min(d, maxRetryAfter))
}

// sanitize makes remote bytes safe for a log line: at most n bytes of
// valid UTF-8, cut on a character boundary, control characters as spaces.
func sanitize(b []byte, n int) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	s = strings.Map(func(r rune) rune {
		if murlog.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}
