package blog

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"time"

	"github.com/murlog/murlog/controls"
	"github.com/murlog/murlog/theme"
)

// The reader's device (issue 16, layer 1): a Service Worker at the
// site's root (/sw.js) that keeps what a reader has seen, and the runtime
// pointer (/api/pub/runtime) through which already-rendered pages learn
// the kill switches. Both are pure functions of their inputs (the themes;
// the controls and the clock), so they can be written as artifacts; no
// page embeds a switch's value.

// workerSource is the worker's code; ServiceWorker puts its settings in
// front of it.
//
//go:embed sw.js
var workerSource string

// WorkerPath is where the worker is served: the root, so that its scope
// is the whole site without a Service-Worker-Allowed header.
const WorkerPath = "/sw.js"

// RuntimePath is the runtime pointer's address.
const RuntimePath = "/api/pub/runtime"

// WorkerCSP is the worker's own policy (a worker's fetches obey the CSP
// of its script): it fetches from this origin and loads nothing else.
const WorkerCSP = "default-src 'none'; connect-src 'self'"

// workerSettings is the first line of /sw.js.
type workerSettings struct {
	Version  string          `json:"version"`
	Precache []precacheEntry `json:"precache"`
}

type precacheEntry struct {
	URL       string `json:"url"`
	Integrity string `json:"integrity"`
}

// ServiceWorker renders /sw.js from the themes: its settings (the
// version, and every theme's stylesheets and scripts with their SRI
// values to precache) then its code. The version is a hash of both, so a
// deploy that changes an asset or the worker changes the script, which
// the browser's update check then installs, and the new version's
// activation deletes the old precache.
func ServiceWorker(themes *theme.Set) (body []byte, version string) {
	var st workerSettings
	for _, a := range themes.PageAssets() {
		st.Precache = append(st.Precache, precacheEntry{URL: a.URL, Integrity: a.Integrity})
	}
	list, _ := json.Marshal(st.Precache) // strings only: cannot fail
	d := sha256.New()
	d.Write(list)
	d.Write([]byte(workerSource))
	st.Version = hex.EncodeToString(d.Sum(nil))[:10]
	head, _ := json.Marshal(st)
	body = make([]byte, 0, len(head)+len(workerSource)+32)
	body = append(body, "self.MURLOG_SW = "...)
	body = append(body, head...)
	body = append(body, ";\n"...)
	return append(body, workerSource...), st.Version
}

// Controls is what the runtime pointer reads of the owner's controls
// (controls.Service): the last known state, an error only when it was
// never read and cannot be now.
type Controls interface {
	Current(ctx context.Context) (controls.State, error)
}

// RuntimeDoc answers GET /api/pub/runtime: what a reader's page must obey
// now, whenever it was rendered. Nothing in it is secret.
type RuntimeDoc struct {
	ServiceWorker bool `json:"service_worker"`
	Comments      bool `json:"comments"`
	PageViews     bool `json:"page_views"`
	LinkPreviews  bool `json:"link_previews"`
	Lockdown      bool `json:"lockdown"`
	// Version is the worker's (ServiceWorker): a page can tell that the
	// site was deployed anew.
	Version string `json:"version"`
}

// Runtime is the runtime pointer of the controls st at now.
func Runtime(st controls.State, now time.Time, version string) RuntimeDoc {
	sw := st.Switches
	return RuntimeDoc{ServiceWorker: sw.ServiceWorker, Comments: sw.Comments, PageViews: sw.PageViews,
		LinkPreviews: sw.LinkPreviews, Lockdown: st.Lockdown.Active(now), Version: version}
}

// RuntimeCacheControl is the pointer's Cache-Control: no-cache (every
// use revalidated), but while lockdown holds nothing can change what it
// says, so readers may keep it a minute (issue 16, point 7).
func RuntimeCacheControl(d RuntimeDoc) string {
	if d.Lockdown {
		return "public, max-age=60"
	}
	return "no-cache"
}

// worker serves /sw.js.
func (h *Handler) worker(w http.ResponseWriter, r *http.Request) {
	body, _ := ServiceWorker(h.themes)
	h.writeCC(w, r, http.StatusOK, h.hdr.js, WorkerCSP, h.hdr.noCache, body)
}

// runtime serves the runtime pointer. Without controls (a Handler built
// without them) every feature is on, as a site that never set a switch.
func (h *Handler) runtime(w http.ResponseWriter, r *http.Request) {
	st := controls.State{Switches: controls.DefaultSwitches}
	if h.controls != nil {
		var err error
		if st, err = h.controls.Current(r.Context()); err != nil {
			h.fail(w, r, err) // never read and unreadable: 503, Retry-After
			return
		}
	}
	_, version := ServiceWorker(h.themes)
	d := Runtime(st, h.now(), version)
	h.writeCC(w, r, http.StatusOK, h.hdr.json, BaseCSP, []string{RuntimeCacheControl(d)}, RenderJSON(d))
}
