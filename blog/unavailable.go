package blog

import (
	"net/http"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/httpd"
)

// unavailablePage answers a browser's page request that failed with
// EUnavailable (store.ErrDiskFull, a busy database) with the theme's
// error page in the primary persona's theme: 503, Retry-After, and a
// message a reader understands, rather than a line of text. It reports
// false, writing nothing, for other errors and clients, and when the
// error page itself cannot be loaded. The loader keeps the persona's
// settings in memory, so a store that cannot answer the page can usually
// still give this one.
func (h *Handler) unavailablePage(w http.ResponseWriter, r *http.Request, err error) bool {
	if murlog.ErrorCode(err) != murlog.EUnavailable || !httpd.WantsHTML(r) {
		return false
	}
	p, perr := h.l.ErrorPage(r.Context(), http.StatusServiceUnavailable)
	if perr != nil {
		return false
	}
	httpd.SetRetryAfter(w, err)
	h.write(w, r, p.Status(), h.hdr.html, CSP(p), RenderPage(h.themes, p))
	return true
}
