package httpd

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/murlog/murlog"
)

// Phase is how far setup has come.
type Phase int

const (
	PhaseNoConfig Phase = iota // no murlog.ini: step 1 (/admin/setup/server) next
	PhaseNoSite                // ini but setup_complete unset: step 2 (/admin/setup) next
	PhaseReady
)

// Setup wizard paths.
const (
	SetupServerPath = "/admin/setup/server"
	SetupSitePath   = "/admin/setup"
)

// Guard runs first on every request. Until setup is complete it sends
// browsers to the next wizard step (303) and answers everything else with a
// 503 naming the step, so API clients and crawlers get an error rather than
// a redirect loop. Paths under /admin/ always pass: the wizard and the
// reset page live there.
func Guard(phase func(*http.Request) Phase, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := phase(r)
		if p == PhaseReady || strings.HasPrefix(r.URL.Path, "/admin/") || r.URL.Path == "/healthz" {
			next.ServeHTTP(w, r)
			return
		}
		step := SetupSitePath
		if p == PhaseNoConfig {
			step = SetupServerPath
		}
		if WantsHTML(r) {
			http.Redirect(w, r, step, http.StatusSeeOther)
			return
		}
		err := murlog.Errorf(murlog.EUnavailable, "murlog is not set up yet: open %s in a browser to finish setup", step)
		if r.URL.Path == RPCPath {
			WriteRPCError(w, err)
			return
		}
		WriteError(w, r, nil, err)
	})
}

// RPCPath is the JSON-RPC endpoint.
const RPCPath = "/api/mur/v1/rpc"

// WriteRPCError answers with a single JSON-RPC error response (id null),
// for failures found before any request object was read.
func WriteRPCError(w http.ResponseWriter, err error) {
	SetRetryAfter(w, err)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(Status(err))
	json.NewEncoder(w).Encode(struct {
		JSONRPC string   `json:"jsonrpc"`
		Error   RPCError `json:"error"`
		ID      any      `json:"id"`
	}{"2.0", RPCErrorOf(err), nil})
}
