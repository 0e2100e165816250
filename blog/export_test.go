package blog

import (
	"net/http"

	"github.com/murlog/murlog/httpd"
)

// APISlots is h's cap on public API answers in flight, for the tests that
// hold it full.
func APISlots(h *Handler) *httpd.Slots { return h.slots }

// Fail is h's answer to a request that failed with err.
func Fail(h *Handler, w http.ResponseWriter, r *http.Request, err error) { h.fail(w, r, err) }
