package httpd

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"time"
)

// Cookie and header names. csrf_token is also the hidden form field name;
// scripted installs scrape it, so it does not change.
const (
	SessionCookie = "murlog_session"
	CSRFCookie    = "csrf_token"
	CSRFField     = "csrf_token"
	CSRFHeader    = "X-CSRF-Token"
)

// Cookies makes murlog's cookies. Secure is true unless the install is
// served over plain http for local testing (scheme = http).
type Cookies struct{ Secure bool }

// Session returns the session cookie: HttpOnly so scripts cannot read it,
// SameSite=Strict so no other site's page can send it.
func (c Cookies) Session(secret string, expires time.Time) *http.Cookie {
	return &http.Cookie{Name: SessionCookie, Value: secret, Path: "/", Expires: expires,
		MaxAge: int(time.Until(expires).Seconds()), HttpOnly: true, Secure: c.Secure, SameSite: http.SameSiteStrictMode}
}

// ClearSession returns a cookie that deletes the session cookie.
func (c Cookies) ClearSession() *http.Cookie {
	return &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: c.Secure, SameSite: http.SameSiteStrictMode}
}

// CSRF returns a CSRF cookie with a fresh token. It is readable by our own
// scripts on purpose (double submit: the SPA echoes it in X-CSRF-Token); it
// grants nothing by itself, and other sites can neither read nor send it.
func (c Cookies) CSRF() *http.Cookie {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("httpd: crypto/rand failed: " + err.Error())
	}
	return &http.Cookie{Name: CSRFCookie, Value: base64.RawURLEncoding.EncodeToString(b), Path: "/",
		Secure: c.Secure, SameSite: http.SameSiteStrictMode}
}

// EnsureCSRF returns the request's CSRF token, issuing a cookie with a new
// one when the request had none.
func (c Cookies) EnsureCSRF(w http.ResponseWriter, r *http.Request) string {
	if ck, err := r.Cookie(CSRFCookie); err == nil && len(ck.Value) >= 32 {
		return ck.Value
	}
	ck := c.CSRF()
	http.SetCookie(w, ck)
	return ck.Value
}

// CSRFMatches reports whether token equals the request's CSRF cookie.
func CSRFMatches(r *http.Request, token string) bool {
	ck, err := r.Cookie(CSRFCookie)
	if err != nil || len(ck.Value) < 32 || token == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(ck.Value), []byte(token)) == 1
}
