package admin

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/murlog/murlog/i18n"
)

// Setup token (serve mode). A fresh install belongs to whoever completes
// the wizard first, so `murlog serve` prints a one-time token with the
// setup link, the way Jupyter does, and the wizard asks for it from every
// request that does not come straight from this machine. CGI installs do
// not use one: their ini is written by the first request to murlog.cgi,
// which only the person who just uploaded it knows to make.

const (
	// SetupTokenParam carries the token in the printed link.
	SetupTokenParam = "token"
	// setupTokenCookie keeps it for the rest of the wizard once given.
	setupTokenCookie = "murlog_setup"
	// setupTokenField carries it in the wizard's forms as well, for a
	// browser that refuses the cookie.
	setupTokenField = "setup_token"
)

// forwardingHeaders are set by proxies. A request carrying one came through
// a proxy, even when the proxy runs on this machine, so its loopback
// address says nothing about who sent it.
var forwardingHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Real-Ip", "X-Forwarded-Host", "X-Forwarded-Proto"}

// direct reports a request from a loopback address with no forwarding
// headers, addressed to a loopback name: someone on this machine, like the
// README's local trial. The Host test catches the proxy that forwards
// without adding a header but passes the site's name on (nginx's
// `proxy_set_header Host $host`): a browser on this machine reaching
// murlog directly asks for 127.0.0.1, [::1] or localhost.
func direct(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil || !a.Unmap().IsLoopback() || !loopbackHost(r.Host) {
		return false
	}
	for _, h := range forwardingHeaders {
		if r.Header.Get(h) != "" {
			return false
		}
	}
	return true
}

// loopbackHost reports whether a Host header names this machine:
// localhost, or a loopback address, with or without a port.
func loopbackHost(h string) bool {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Unmap().IsLoopback()
}

// setupAllowed checks the setup token on a wizard request and answers 403
// (with where to find the token) when it is needed and missing or wrong.
// A correct token from the link is kept in a cookie for the next steps.
// For POST it must run after parseForm.
func (h *Handler) setupAllowed(w http.ResponseWriter, r *http.Request, p *page) bool {
	want := ""
	if h.deps.SetupToken != nil {
		want = h.deps.SetupToken()
	}
	if want == "" || h.deps.State().Complete || direct(r) {
		return true
	}
	p.SetupToken = want // for the hidden field once accepted
	given, fromLink := r.URL.Query().Get(SetupTokenParam), true
	if given == "" {
		fromLink = false
		if r.Method == http.MethodPost {
			given = r.PostForm.Get(setupTokenField)
		}
		if ck, err := r.Cookie(setupTokenCookie); given == "" && err == nil {
			given = ck.Value
		}
	}
	if given != "" && subtle.ConstantTimeCompare([]byte(given), []byte(want)) == 1 {
		if fromLink {
			http.SetCookie(w, &http.Cookie{Name: setupTokenCookie, Value: want, Path: "/admin/setup",
				HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: h.deps.State().Cookies.Secure})
		}
		return true
	}
	p.SetupToken = ""
	p.Title = i18n.T(p.Lang, "setup.token.heading")
	p.Message = i18n.T(p.Lang, "setup.token.body")
	if given != "" {
		p.Errors = []string{i18n.T(p.Lang, "setup.token.wrong")}
	}
	h.render(w, r, http.StatusForbidden, "message", p)
	return false
}
