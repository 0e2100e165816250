package httpd

import (
	"context"
	"net/http"
	"net/netip"
	"strings"

	"github.com/murlog/murlog"
)

// Authenticator resolves credentials; *auth.Service implements it.
type Authenticator interface {
	Session(ctx context.Context, secret string) (*murlog.Session, bool, error)
	Token(ctx context.Context, secret string) (*murlog.APIToken, error)
}

// Authenticate puts an murlog.Caller in the request context: the owner when a
// bearer token or session cookie is valid, else anonymous with the reason
// kept in AuthErr. Each endpoint decides what an anonymous caller may do.
// The one request it refuses itself (403, a JSON-RPC error) is a browser
// request that carries murlog's cookies but comes from another site's page
// (CheckOrigin against site); that check runs first, before any database
// read. Bearer-token calls are not browser calls and skip it. A renewed
// session gets its cookie re-sent.
func Authenticate(a Authenticator, cookies Cookies, trusted []netip.Prefix, site murlog.Site, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &murlog.Caller{ClientKey: ClientKey(ClientAddr(r, trusted)), UserAgent: r.UserAgent()}
		if r.Header.Get("Authorization") == "" && hasCookie(r, SessionCookie, CSRFCookie) {
			if err := CheckOrigin(r, site); err != nil {
				writeRPCRefusal(w, err)
				return
			}
		}
		if h := r.Header.Get("Authorization"); h != "" {
			c.Presented = "token"
			scheme, secret, _ := strings.Cut(h, " ")
			if !strings.EqualFold(scheme, "Bearer") {
				c.AuthErr = murlog.Errorf(murlog.EUnauthorized, "unsupported Authorization scheme; use Bearer")
			} else if tok, err := a.Token(r.Context(), strings.TrimSpace(secret)); err != nil {
				c.AuthErr = err
			} else {
				c.Owner, c.Via, c.TokenID = true, "token", tok.ID
			}
		} else if ck, err := r.Cookie(SessionCookie); err == nil && ck.Value != "" {
			c.Presented = "session"
			sess, renewed, err := a.Session(r.Context(), ck.Value)
			switch {
			case err != nil:
				c.AuthErr = err
				if murlog.ErrorCode(err) == murlog.EUnauthorized {
					http.SetCookie(w, cookies.ClearSession())
				}
			default:
				c.Owner, c.Via, c.SessionHash = true, "session", sess.TokenHash
				if renewed {
					http.SetCookie(w, cookies.Session(ck.Value, sess.ExpiresAt))
				}
			}
		}
		c.CSRFOK = CSRFMatches(r, r.Header.Get(CSRFHeader))
		next.ServeHTTP(w, r.WithContext(murlog.WithCaller(r.Context(), c)))
	})
}

// hasCookie reports whether the request carries any of the named cookies.
func hasCookie(r *http.Request, names ...string) bool {
	for _, n := range names {
		if ck, err := r.Cookie(n); err == nil && ck.Value != "" {
			return true
		}
	}
	return false
}
