package httpd

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/murlog/murlog"
)

// CheckOrigin refuses a browser request sent by another site's page. It
// compares the Origin header, or without one the Referer, with the site's
// own origin exactly: scheme, host and port (default ports filled in).
// A request with neither passes: scripts and curl send none, and browsers
// always send Origin on the POSTs that could change anything. "null" (a
// sandboxed frame, a file:// page) is another site. The CSRF token still
// guards every mutating call; this also stops a sibling subdomain that
// planted its own csrf_token cookie (cookie tossing). An unknown site
// (before setup completes) cannot be compared, so nothing is refused.
func CheckOrigin(r *http.Request, site murlog.Site) error {
	if site.Domain == "" {
		return nil
	}
	from, header := r.Header.Get("Origin"), "Origin"
	if from == "" {
		from, header = r.Header.Get("Referer"), "Referer"
		if from == "" {
			return nil
		}
	}
	own, _ := originOf(site.Base())
	if got, ok := originOf(from); ok && got == own {
		return nil
	}
	return murlog.Errorf(murlog.EForbidden, "cross-site request refused: its %s is not this site (%s)", header, site.Base())
}

// originOf returns scheme://host:port of an absolute http(s) URL, lower
// case with the default port made explicit.
func originOf(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	switch {
	case scheme == "https" && port == "":
		port = "443"
	case scheme == "http" && port == "":
		port = "80"
	case scheme != "https" && scheme != "http":
		return "", false
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port), true
}

// writeRPCRefusal answers a whole RPC request with one JSON-RPC error,
// the way a refusal before any call is parsed must (id null).
func writeRPCRefusal(w http.ResponseWriter, err error) {
	e := RPCErrorOf(err)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(Status(err))
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "error": e, "id": nil})
}
