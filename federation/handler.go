// Package federation serves murlog's side of ActivityPub discovery and
// dereferencing: WebFinger, host-meta, NodeInfo, the Mastodon instance
// probe, the actor, its key, notes and articles (Tombstone once deleted)
// and the outbox, followers, following, featured and replies collections.
// It also holds the builders (builders.go) that turn local personas and
// posts into the JSON those endpoints serve and the delivery jobs send,
// the personas' signers (signer.go), the signature Verifier (keys.go) and
// the Resolver of remote actors and objects with the sanitisers of what
// they say (resolve.go, remote.go). What arrives at the inboxes is
// package inbox's.
//
// The documents every remote server fetches — the actor, the WebFinger
// answer, host-meta, NodeInfo — are rendered once into bytes and kept in
// memory: no request reads the database in the steady state. The copy is
// dropped by Invalidate (a persona or a site setting changed) and after a
// short TTL, so several processes over one database converge.
package federation

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/store"
)

// SettingAuthorizedFetch is the settings key that, at "1", makes murlog
// require a signed GET for its ActivityPub JSON.
const SettingAuthorizedFetch = murlog.SettingAuthorizedFetch

// DefaultTTL is how long a rendered document is served before it is
// rebuilt from the database even without Invalidate.
const DefaultTTL = 10 * time.Second

// PageSize is the number of items in a collection page.
const PageSize = 20

// Tombstones tells which deleted posts once existed (store: tombstones).
type Tombstones interface {
	Tombstone(ctx context.Context, postID string) (deletedAt time.Time, ok bool, err error)
}

// Followers lists the ids of a persona's accepted followers and of the
// actors it follows, page by page: after is the cursor ("" for the first
// page), next the cursor of the following page ("" on the last).
type Followers interface {
	FollowerURIs(ctx context.Context, personaID, after string, limit int) (uris []string, next string, err error)
	FollowingURIs(ctx context.Context, personaID, after string, limit int) (uris []string, next string, err error)
}

// FollowerChecker says whether a remote actor is an accepted follower of
// a persona: a followers-only post is served only to a signed fetch by one.
type FollowerChecker interface {
	IsFollower(ctx context.Context, personaID, actorURI string) (bool, error)
}

// Pins lists a persona's pinned posts, newest pin first.
type Pins interface {
	PinnedPostIDs(ctx context.Context, personaID string) ([]string, error)
}

// Requester verifies the HTTP signature of a GET and returns the signing
// actor's id: "" and no error for an unsigned request, an error (a
// *murlog.Error: EUnauthorized for a bad signature, EForbidden for a
// blocked actor or domain) when the signature is refused.
type Requester interface {
	Requester(r *http.Request) (actorURI string, err error)
}

// Deps are what the handler reads. Store and Site are required; every
// interface may be nil until its implementation lands, and then the
// handler behaves as if there were nothing to find (no tombstones, no
// followers listed or recognised, no pins, no signatures understood).
type Deps struct {
	Site  murlog.Site
	Store store.Store
	Log   *slog.Logger
	Now   func() time.Time // time.Now when nil
	TTL   time.Duration    // DefaultTTL when 0
	// OneShot skips the in-memory copies (CGI: one request per process).
	OneShot bool

	Tombstones    Tombstones
	Followers     Followers
	FollowerCheck FollowerChecker
	Pins          Pins
	Requester     Requester
}

// Handler serves the federation endpoints. Mount its Patterns on the
// app's mux, and send it the reads of the profile paths ("/@…") that ask
// for ActivityPub (the app's dispatch decides).
type Handler struct {
	d Deps
	// muxes are the discovery mux and the one of the "/@name…" paths
	// (apart: their wildcards overlap the discovery paths), built on the
	// first request: a CGI process serving a page never routes here, and
	// parsing the patterns was a share of its start.
	muxes func() [2]*http.ServeMux

	hdr headers

	gen        atomic.Uint64 // bumped by Invalidate
	mu         sync.Mutex    // one rebuild at a time
	snap       atomic.Pointer[snapshot]
	statsCache atomic.Pointer[stats]
}

// New returns a Handler.
func New(d Deps) *Handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.TTL == 0 {
		d.TTL = DefaultTTL
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{d: d, hdr: newHeaders()}
	h.muxes = sync.OnceValue(h.routes)
	return h
}

func (h *Handler) routes() [2]*http.ServeMux {
	mux, profile := http.NewServeMux(), http.NewServeMux()
	mux.HandleFunc("GET /.well-known/webfinger", h.webfinger)
	mux.HandleFunc("GET /.well-known/host-meta", h.hostMeta)
	mux.HandleFunc("GET /.well-known/host-meta.json", h.hostMeta)
	mux.HandleFunc("GET /.well-known/nodeinfo", h.nodeinfoLinks)
	mux.HandleFunc("GET /nodeinfo/{version}", h.nodeinfo)
	mux.HandleFunc("GET /api/v1/instance", h.instance)
	mux.HandleFunc("/", h.notFound)
	profile.HandleFunc("GET /{at}", h.actor)
	profile.HandleFunc("GET /{at}/main-key", h.actor)
	profile.HandleFunc("GET /{at}/outbox", h.outbox)
	profile.HandleFunc("GET /{at}/followers", h.followers)
	profile.HandleFunc("GET /{at}/following", h.following)
	profile.HandleFunc("GET /{at}/featured", h.featured)
	profile.HandleFunc("GET /{at}/{id}", h.post)
	profile.HandleFunc("GET /{at}/{seg}/{sub}", h.postPart)
	profile.HandleFunc("/", h.notFound)
	return [2]*http.ServeMux{mux, profile}
}

// Patterns are the app mux patterns to route to the Handler, besides
// the profile paths under "/@" (a pattern cannot match a path prefix
// inside a segment, so the app's catch-all hands those over).
func Patterns() []string {
	return []string{
		"GET /.well-known/webfinger", "GET /.well-known/host-meta", "GET /.well-known/host-meta.json",
		"GET /.well-known/nodeinfo", "GET /nodeinfo/{version}", "GET /api/v1/instance",
	}
}

// IsProfilePath reports whether path is under a persona's "/@name".
func IsProfilePath(path string) bool { return strings.HasPrefix(path, "/@") && len(path) > 2 }

// ServeHTTP serves the federation endpoints.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := h.muxes()
	if IsProfilePath(r.URL.Path) {
		m[1].ServeHTTP(w, r)
		return
	}
	m[0].ServeHTTP(w, r)
}

// Invalidate drops the rendered documents: the next request rebuilds them.
// The app calls it when a persona or a site setting changes.
func (h *Handler) Invalidate() { h.gen.Add(1) }

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	httpd.WriteError(w, r, h.d.Log, murlog.NotFound("page"))
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	httpd.WriteError(w, r, h.d.Log, err)
}

// headers are response header values built once per handler rather
// than per request. They are never modified: net/http copies on append.
type headers struct{ ap, jrd, vary, anyOrigin []string }

func newHeaders() headers {
	return headers{ap: []string{activitypub.MediaType + "; charset=utf-8"}, jrd: []string{"application/jrd+json; charset=utf-8"},
		vary: []string{"Accept"}, anyOrigin: []string{"*"}}
}

// writeDoc answers 200 with a rendered document.
func writeDoc(w http.ResponseWriter, ct []string, cache string, body []byte) {
	hd := w.Header()
	hd["Content-Type"] = ct
	if cache != "" {
		hd.Set("Cache-Control", cache)
	}
	w.Write(body)
}

// persona finds the persona of a "/@name/…" path. Every such URL is
// negotiated, so each answer varies by Accept; the app sends here the
// requests that ask for ActivityPub (app/dispatch.go) and a browser's to
// the blog.
func (h *Handler) persona(w http.ResponseWriter, r *http.Request) (*snapshot, *personaDoc, bool) {
	w.Header()["Vary"] = h.hdr.vary
	at := r.PathValue("at")
	if len(at) < 2 || at[0] != '@' {
		h.notFound(w, r)
		return nil, nil, false
	}
	s, err := h.snapshot(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return nil, nil, false
	}
	pd := s.byName[strings.ToLower(at[1:])]
	if pd == nil {
		h.notFound(w, r)
		return nil, nil, false
	}
	return s, pd, true
}

// Persona returns the persona named name (any case) from the in-memory
// snapshot, as the "/@name" endpoints find it; ENotFound when there is
// none. The inbox of "/@name/inbox" asks it.
func (h *Handler) Persona(ctx context.Context, name string) (*murlog.Persona, error) {
	s, err := h.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if pd := s.byName[strings.ToLower(name)]; pd != nil {
		return pd.p, nil
	}
	return nil, murlog.NotFound("persona")
}

// signer applies authorized fetch. With it on, it returns the verified
// signing actor and false when it has answered: 401 for an unsigned
// request, or the Requester's refusal of a bad signature. With it off it
// verifies nothing (a signature costs an RSA operation, and public
// documents are public) and returns "".
func (h *Handler) signer(w http.ResponseWriter, r *http.Request, s *snapshot) (string, bool) {
	if !s.authorizedFetch {
		return "", true
	}
	actor, err := h.requester(r)
	switch {
	case err != nil:
		h.fail(w, r, err)
		return "", false
	case actor == "":
		h.fail(w, r, murlog.Errorf(murlog.EUnauthorized, "this server requires signed requests (authorized fetch)"))
		return "", false
	}
	return actor, true
}

func (h *Handler) requester(r *http.Request) (string, error) {
	if h.d.Requester == nil {
		return "", nil
	}
	if r.Header.Get("Signature") == "" && r.Header.Get("Signature-Input") == "" &&
		!strings.HasPrefix(r.Header.Get("Authorization"), "Signature ") {
		return "", nil
	}
	actor, err := h.d.Requester.Requester(r)
	if err != nil && murlog.ErrorCode(err) == murlog.EInternal {
		h.d.Log.Warn("signature verification failed", "path", r.URL.Path, "err", err)
		err = murlog.Errorf(murlog.EUnauthorized, "the request's signature could not be verified")
	}
	return actor, err
}

// publicCache is the Cache-Control of documents anyone may fetch; with
// authorized fetch on, a shared cache must not hand them to others.
func publicCache(s *snapshot) string {
	if s.authorizedFetch {
		return "private, max-age=60"
	}
	return "public, max-age=180"
}

// actor serves the Person at /@name and at /@name/main-key, so keyIds in
// both the "#main-key" and the "/main-key" form resolve (gotosocial#1186).
func (h *Handler) actor(w http.ResponseWriter, r *http.Request) {
	s, pd, ok := h.persona(w, r)
	if !ok {
		return
	}
	if !s.authorizedFetch {
		writeDoc(w, h.hdr.ap, publicCache(s), pd.actor)
		return
	}
	if actor, err := h.requester(r); err != nil || actor == "" {
		// The key stays fetchable unsigned, or nobody could verify this
		// persona's signatures: the technical attributes only.
		writeDoc(w, h.hdr.ap, "private, max-age=60", pd.keyActor)
		return
	}
	writeDoc(w, h.hdr.ap, publicCache(s), pd.actor)
}
