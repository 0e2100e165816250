package blog

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/httpd"
)

// The public read API is anonymous, so it gets the JSON-RPC API's
// anonymous limits (httpd): at most httpd.AnonInFlight answers made at
// once per process, each at most APIBudget bytes. Lists carry excerpts,
// not bodies, so they stay far below it; what can still pass it (a page
// of posts with thousands of tags each) is cut short rather than held.

// APIBudget is the most bytes one answer of /api/pub/ may have.
const APIBudget = httpd.AnonBudget

// apiSlot takes one of the API's slots for r, or answers 503 with
// Retry-After and reports false. A true must be followed by
// h.slots.Release().
func (h *Handler) apiSlot(w http.ResponseWriter, r *http.Request) bool {
	if h.slots.Acquire(r.Context()) {
		return true
	}
	h.fail(w, r, h.slots.Busy())
	return false
}

// jsonDoc writes a document of one post or the config, refused whole when
// it is over the budget.
func (h *Handler) jsonDoc(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		h.fail(w, r, err)
		return
	}
	body := RenderJSON(v)
	if len(body) > APIBudget {
		h.fail(w, r, murlog.Errorf(murlog.EInvalid,
			"the answer is %d bytes, over the public API's response budget of %d; read the post at its address", len(body), APIBudget))
		return
	}
	h.write(w, r, http.StatusOK, h.hdr.json, BaseCSP, body)
}

// jsonList writes a list document within the budget (RenderList).
func (h *Handler) jsonList(w http.ResponseWriter, r *http.Request, l *PostList, cursor bool, err error) {
	if err != nil {
		h.fail(w, r, err)
		return
	}
	body, err := RenderList(l, APIBudget, cursor)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.write(w, r, http.StatusOK, h.hdr.json, BaseCSP, body)
}

// listItem is a post as a list carries it: its excerpt (description), not
// its body; the empty ContentHTML shadows the post's and is left out.
type listItem struct {
	*PostView
	ContentHTML string `json:"content_html,omitempty"`
}

// RenderList renders a list document as RenderJSON does, post by post
// against a budget of limit bytes: when a post would not fit, the list
// ends before it, and with cursor its Next becomes the last post that did
// fit, so a client paging on goes on from there (without, the rest are
// left out, as by-ids leaves out what is not listed). A first post that
// does not fit alone is EInvalid.
func RenderList(l *PostList, limit int, cursor bool) ([]byte, error) {
	b := httpd.Budget{Limit: limit}
	// The frame, and room for a cursor should the list be cut.
	b.Take(len(`{"posts":[],"next":""}`+"\n") + 2*len(murlog.NewID()))
	var buf bytes.Buffer
	buf.WriteString(`{"posts":[`)
	n := 0
	for i := range l.Posts {
		pj, err := json.Marshal(listItem{PostView: &l.Posts[i]})
		if err != nil {
			return nil, murlog.Internal(err)
		}
		if !b.Take(len(pj) + 1) {
			break
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		buf.Write(pj)
		n++
	}
	next := l.Next
	if n < len(l.Posts) {
		if n == 0 {
			return nil, murlog.Errorf(murlog.EInvalid,
				"the first post alone is over the public API's response budget of %d bytes; read it at its address", limit)
		}
		next = ""
		if cursor {
			next = l.Posts[n-1].ID
		}
	}
	buf.WriteString("]")
	if next != "" {
		buf.WriteString(`,"next":`)
		nj, _ := json.Marshal(next)
		buf.Write(nj)
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}
