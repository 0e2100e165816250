package app

import (
	"net/http"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/outbound"
)

// newOutbound returns the one HTTP client of a runtime: every remote
// fetch and delivery goes through it, and so through its address guard.
// A site served over plain http (a lab, the two-instance tests) may fetch
// over http too; allow_private_network lets it reach loopback and private
// addresses.
func (a *App) newOutbound(cfg *config.Config, site murlog.Site) *outbound.Client {
	ua := "murlog/" + murlog.Version
	if site.Domain != "" {
		ua += " (+" + site.Base() + "/)"
	}
	o := outbound.Options{
		AllowPrivate: cfg.AllowPrivateNetwork,
		AllowHTTP:    cfg.Scheme == "http",
		Resolver:     a.opts.Resolver,
		UserAgent:    ua,
	}
	if a.opts.CavageOnly {
		o.Memory = cavageOnly{}
	}
	return outbound.New(o)
}

// cavageOnly is the outbound scheme memory of a CavageOnly instance:
// every domain is known to want draft-cavage, so RFC 9421 is never tried.
type cavageOnly struct{}

func (cavageOnly) Scheme(string) (outbound.Scheme, bool) { return outbound.SchemeCavage, true }
func (cavageOnly) Remember(string, outbound.Scheme)      {}

// refuseRFC9421Inbox answers 401 to an inbox POST signed with RFC 9421
// (it carries Signature-Input), as a server that knows only draft-cavage
// refuses a signature it cannot read. Test-only: see Options.CavageOnly.
func refuseRFC9421Inbox(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inbox := r.URL.Path == "/inbox" || strings.HasSuffix(r.URL.Path, "/inbox")
		if r.Method == http.MethodPost && inbox && r.Header.Get("Signature-Input") != "" {
			http.Error(w, "signature not understood (this peer speaks only draft-cavage)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
