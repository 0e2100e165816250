package blog

import "github.com/murlog/murlog/httpd"

// APISlots is h's cap on public API answers in flight, for the tests that
// hold it full.
func APISlots(h *Handler) *httpd.Slots { return h.slots }
