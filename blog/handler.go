package blog

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/strictjson"
	"github.com/murlog/murlog/theme"
)

// MaxByIDsBody bounds the body of POST /api/pub/posts/by-ids: 20 ids in
// JSON take about 800 bytes.
const MaxByIDsBody = 4 << 10

// maxUsername bounds the name part of "/@name" paths before any lookup.
const maxUsername = 64

// Handler serves the public site: parse the request, load the model,
// render it, write it with the security and caching headers. The app
// routes to it the paths listed in Patterns, the browsers' "/@…" paths
// and the themed 404 of other HTML requests (NotFound).
type Handler struct {
	l            *Loader
	themes       *theme.Set
	log          *slog.Logger
	mux          *http.ServeMux
	hdr          headers
	slots        *httpd.Slots // the public API's answers in flight (apilimits.go)
	searchShield *httpd.Shield
	controls     Controls         // the kill switches the runtime pointer publishes (sw.go)
	now          func() time.Time // the runtime pointer's clock
}

// HandlerOptions are the Handler's settings; the zero value works.
type HandlerOptions struct {
	// TrustedProxies are the networks whose X-Forwarded-For names the
	// client (config trusted_proxy).
	TrustedProxies []netip.Prefix
	// SearchRate and SearchBurst are the search shield: searches per
	// second and at once from one client network (httpd.NetworkKey);
	// DefaultSearchRate and DefaultSearchBurst when 0.
	SearchRate, SearchBurst float64
	// Now is the shield's clock; time.Now when nil.
	Now func() time.Time
	// Controls are the owner's kill switches and lockdown, published by
	// the runtime pointer; without them it says every feature is on.
	Controls Controls
}

// The search shield's defaults. A search may cost up to
// store.SearchBudget of a core, so one network gets about a tenth of a
// core at most, and a reader paging through results or refining a query
// never notices.
const (
	DefaultSearchRate  = 1
	DefaultSearchBurst = 10
)

// headers are response header values built once, never modified
// (net/http copies on append).
type headers struct {
	html, rss, atom, xml, text, json, js, nosniff, referrer, noCache, vary, baseCSP []string
}

// Patterns are the app mux patterns to route to the Handler, besides the
// "/@…" paths that browsers ask for and the themed 404.
func Patterns() []string {
	return []string{"GET /{$}", "GET /search", "GET /tags/", "GET /sitemap.xml", "GET /robots.txt", "GET /themes/", "/api/pub/", "GET " + WorkerPath}
}

// NewHandler returns a Handler over l, with the options when given (at
// most one).
func NewHandler(l *Loader, opts ...HandlerOptions) *Handler {
	var o HandlerOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.SearchRate <= 0 {
		o.SearchRate = DefaultSearchRate
	}
	if o.SearchBurst <= 0 {
		o.SearchBurst = DefaultSearchBurst
	}
	// The runtime pointer's clock is the pages' (lockdown's from and until).
	now := l.Now
	if now == nil {
		now = time.Now
	}
	h := &Handler{l: l, themes: l.Themes, log: l.log(), mux: http.NewServeMux(), controls: o.Controls, now: now, searchShield: &httpd.Shield{
		Buckets: httpd.Buckets{Rate: o.SearchRate, Burst: o.SearchBurst, Now: o.Now}, Trusted: o.TrustedProxies}, hdr: headers{
		html: []string{"text/html; charset=utf-8"}, rss: []string{"application/rss+xml; charset=utf-8"},
		atom: []string{"application/atom+xml; charset=utf-8"}, xml: []string{"application/xml; charset=utf-8"},
		text: []string{"text/plain; charset=utf-8"}, json: []string{"application/json"},
		js:      []string{"text/javascript; charset=utf-8"},
		nosniff: []string{"nosniff"}, referrer: []string{"strict-origin-when-cross-origin"},
		noCache: []string{"no-cache"}, vary: []string{"Accept"}, baseCSP: []string{BaseCSP},
	}, slots: httpd.NewSlots(httpd.AnonInFlight, httpd.AnonWait, "public API requests").Counting(dbstat.ShieldAnonAPI)}
	m := h.mux
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { h.site(w, r, "") })
	m.HandleFunc("GET /search", func(w http.ResponseWriter, r *http.Request) { h.search(w, r, "") })
	m.HandleFunc("GET /tags/{tag}", h.tag)
	m.HandleFunc("GET /tags/{tag}/feed.rss", func(w http.ResponseWriter, r *http.Request) { h.feed(w, r, "", r.PathValue("tag"), false) })
	m.HandleFunc("GET /tags/{tag}/feed.atom", func(w http.ResponseWriter, r *http.Request) { h.feed(w, r, "", r.PathValue("tag"), true) })
	m.HandleFunc("GET /sitemap.xml", h.sitemap)
	m.HandleFunc("GET /robots.txt", h.robots)
	m.HandleFunc("GET /themes/{theme}/{file}", h.asset)
	m.HandleFunc("GET /api/pub/posts/{id}", h.apiPost)
	m.HandleFunc("GET /api/pub/posts/by-ids", h.apiByIDs)
	m.HandleFunc("POST /api/pub/posts/by-ids", h.apiByIDs)
	m.HandleFunc("GET /api/pub/personas/{username}/posts", h.apiPosts)
	m.HandleFunc("GET /api/pub/personas/{username}/config", h.apiConfig)
	m.HandleFunc("GET "+RuntimePath, h.runtime)
	m.HandleFunc("GET "+WorkerPath, h.worker)
	m.HandleFunc("/api/pub/", func(w http.ResponseWriter, r *http.Request) { h.fail(w, r, murlog.NotFound("resource")) })
	m.HandleFunc("/", h.fallback)
	return h
}

// ServeHTTP serves the public site.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// NotFound answers the themed 404 page (the app's catch-all for HTML);
// a client asking for JSON gets the JSON error.
func (h *Handler) NotFound(w http.ResponseWriter, r *http.Request) {
	if httpd.WantsJSON(r) {
		h.fail(w, r, murlog.NotFound("page"))
		return
	}
	p, err := h.l.ErrorPage(r.Context(), http.StatusNotFound)
	h.page(w, r, p, err)
}

// fallback serves "/@name…" paths and the themed 404 of the rest.
func (h *Handler) fallback(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.fail(w, r, murlog.NotFound("page"))
		return
	}
	if !strings.HasPrefix(r.URL.Path, "/@") || len(r.URL.Path) < 3 {
		h.NotFound(w, r)
		return
	}
	w.Header()["Vary"] = h.hdr.vary // the same URLs answer ActivityPub JSON
	name, rest, _ := strings.Cut(r.URL.Path[2:], "/")
	if name == "" || len(name) > maxUsername {
		h.NotFound(w, r)
		return
	}
	switch {
	case rest == "":
		h.site(w, r, name)
	case rest == "search":
		h.search(w, r, name)
	case rest == "feed.rss":
		h.feed(w, r, name, "", false)
	case rest == "feed.atom":
		h.feed(w, r, name, "", true)
	case !strings.Contains(rest, "/"):
		p, err := h.l.PostPage(r.Context(), name, rest)
		h.page(w, r, p, err)
	default:
		h.NotFound(w, r)
	}
}

func (h *Handler) site(w http.ResponseWriter, r *http.Request, username string) {
	q := r.URL.Query()
	p, err := h.l.SitePage(r.Context(), SiteQuery{Username: username, Mode: q.Get("mode"), Oldest: q.Get("order") == "oldest",
		After: q.Get("after")})
	h.page(w, r, p, err)
}

// search serves a search page. A query costs the client network a token
// of the shield first (the form alone is free); with none left, the
// answer is a bare 429, which costs nothing to make.
func (h *Handler) search(w http.ResponseWriter, r *http.Request, username string) {
	q := r.URL.Query()
	if q.Get("q") != "" {
		if err := h.searchShield.Allow(r); err != nil {
			dbstat.Dropped(r.Context(), dbstat.ShieldSearch)
			h.fail(w, r, err)
			return
		}
	}
	p, err := h.l.SearchPage(r.Context(), username, q.Get("q"), q.Get("mode"), q.Get("after"))
	h.page(w, r, p, err)
}

func (h *Handler) tag(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, err := h.l.TagPage(r.Context(), r.PathValue("tag"), q.Get("mode"), q.Get("order") == "oldest", q.Get("after"))
	h.page(w, r, p, err)
}

// page renders and writes a themed page with its status.
func (h *Handler) page(w http.ResponseWriter, r *http.Request, p *Page, err error) {
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if p.Redirect != "" {
		// No-cache like every page: a slug can be renamed back, and a
		// browser keeping an old 301 would then go round in a loop.
		h.security(w.Header(), BaseCSP)
		w.Header()["Cache-Control"] = h.hdr.noCache
		http.Redirect(w, r, p.Redirect, http.StatusMovedPermanently)
		return
	}
	if p.Transient {
		w.Header().Set(artifact.TransientHeader, "1")
	}
	h.write(w, r, p.Status(), h.hdr.html, CSP(p), RenderPage(h.themes, p))
}

func (h *Handler) feed(w http.ResponseWriter, r *http.Request, username, tag string, atom bool) {
	d, err := h.l.Feed(r.Context(), username, tag)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ct := h.hdr.rss
	if atom {
		ct = h.hdr.atom
	}
	h.write(w, r, http.StatusOK, ct, BaseCSP, RenderFeed(d, atom))
}

func (h *Handler) sitemap(w http.ResponseWriter, r *http.Request) {
	urls, err := h.l.Sitemap(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.write(w, r, http.StatusOK, h.hdr.xml, BaseCSP, RenderSitemap(urls))
}

func (h *Handler) robots(w http.ResponseWriter, r *http.Request) {
	d, err := h.l.Robots(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.write(w, r, http.StatusOK, h.hdr.text, BaseCSP, RenderRobots(d))
}

// asset serves a theme's hashed asset; theme.Set sets its own caching.
func (h *Handler) asset(w http.ResponseWriter, r *http.Request) {
	h.security(w.Header(), BaseCSP)
	h.themes.ServeAsset(w, r)
}

func (h *Handler) apiPost(w http.ResponseWriter, r *http.Request) {
	if !h.apiSlot(w, r) {
		return
	}
	defer h.slots.Release()
	d, err := h.l.APIPost(r.Context(), r.PathValue("id"))
	h.jsonDoc(w, r, d, err)
}

func (h *Handler) apiPosts(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	pq := PostsQuery{Username: r.PathValue("username"), After: q.Get("after"), Oldest: q.Get("order") == "oldest"}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxAPILimit {
			h.fail(w, r, murlog.Invalid("limit", "must be a number from 1 to %d", MaxAPILimit))
			return
		}
		pq.Limit = n
	}
	if len(pq.Username) > maxUsername {
		h.fail(w, r, murlog.NotFound("persona"))
		return
	}
	if !h.apiSlot(w, r) {
		return
	}
	defer h.slots.Release()
	d, err := h.l.APIPosts(r.Context(), pq)
	h.jsonList(w, r, d, true, err)
}

func (h *Handler) apiConfig(w http.ResponseWriter, r *http.Request) {
	u := r.PathValue("username")
	if len(u) > maxUsername {
		h.fail(w, r, murlog.NotFound("persona"))
		return
	}
	if !h.apiSlot(w, r) {
		return
	}
	defer h.slots.Release()
	d, err := h.l.APIConfig(r.Context(), u)
	h.jsonDoc(w, r, d, err)
}

func (h *Handler) apiByIDs(w http.ResponseWriter, r *http.Request) {
	var ids []string
	if r.Method == http.MethodPost {
		var err error
		if ids, err = readIDs(w, r); err != nil {
			h.fail(w, r, err)
			return
		}
	} else if s := r.URL.Query().Get("ids"); s != "" {
		ids = strings.Split(s, ",")
	}
	if !h.apiSlot(w, r) {
		return
	}
	defer h.slots.Release()
	d, err := h.l.APIByIDs(r.Context(), ids)
	h.jsonList(w, r, d, false, err)
}

// readIDs reads a by-ids body: {"ids": [...]} or a bare array of strings.
func readIDs(w http.ResponseWriter, r *http.Request) ([]string, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxByIDsBody))
	if err != nil {
		return nil, murlog.Invalid("body", "must be at most %d bytes", MaxByIDsBody)
	}
	body = bytes.TrimSpace(body)
	// As the RPC does: a key given twice (which encoding/json would let
	// the last of win), invalid UTF-8 and the like are refused, named.
	if err := strictjson.Check(body); err != nil {
		return nil, err
	}
	raw := json.RawMessage(body)
	if len(body) > 0 && body[0] == '{' {
		var obj struct {
			IDs json.RawMessage `json:"ids"`
		}
		if err := json.Unmarshal(body, &obj); err != nil {
			return nil, murlog.Invalid("body", "must be a JSON object {\"ids\": [...]} or an array of ids")
		}
		raw = obj.IDs
	}
	var items []any
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, murlog.Invalid("ids", "must be an array of post ids")
	}
	if len(items) > store.MaxByIDs {
		return nil, murlog.Invalid("ids", "at most %d ids", store.MaxByIDs)
	}
	ids := make([]string, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, murlog.Invalid("ids", "must be strings")
		}
		ids[i] = s
	}
	return ids, nil
}

// fail answers an error through httpd (JSON for the API, text for the
// rest; a store failure is a 500 with no detail, logged). A browser
// asking for a page while the site cannot serve it (EUnavailable: the disk
// is full, the database is busy) gets the theme's error page instead, 503
// with Retry-After (unavailable.go).
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	if h.unavailablePage(w, r, err) {
		return
	}
	h.security(w.Header(), BaseCSP)
	httpd.WriteError(w, r, h.log, err)
}

func (h *Handler) security(hd http.Header, csp string) {
	if csp == BaseCSP {
		hd["Content-Security-Policy"] = h.hdr.baseCSP
	} else {
		hd["Content-Security-Policy"] = []string{csp}
	}
	hd["X-Content-Type-Options"] = h.hdr.nosniff
	hd["Referrer-Policy"] = h.hdr.referrer
}

// write answers with body: security headers, a strong ETag of the bytes
// and Cache-Control: no-cache (caches revalidate; a matching
// If-None-Match gets 304 and no body), Content-Length, no body for HEAD.
func (h *Handler) write(w http.ResponseWriter, r *http.Request, status int, ct []string, csp string, body []byte) {
	h.writeCC(w, r, status, ct, csp, h.hdr.noCache, body)
}

// writeCC is write with the Cache-Control cc.
func (h *Handler) writeCC(w http.ResponseWriter, r *http.Request, status int, ct []string, csp string, cc []string, body []byte) {
	hd := w.Header()
	h.security(hd, csp)
	hd["Content-Type"] = ct
	hd["Cache-Control"] = cc
	tag := ETag(body)
	hd["Etag"] = []string{tag}
	if status == http.StatusOK && httpd.MatchETag(r.Header.Get("If-None-Match"), tag) {
		delete(hd, "Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// ETag is the strong entity tag of a body (artifact.ETagOf), so the
// same bytes, from a request or an artifact, get the same tag in every
// process and a browser's copy stays valid across the two.
func ETag(body []byte) string { return artifact.ETagOf(artifact.Sum(body)) }
