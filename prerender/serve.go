package prerender

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/httpd"
)

// How long the micro-cache trusts what it holds before it looks at the
// store again (a stat, no body read, no database): pages and documents
// a second, so a rebuild by another process (a worker, the CLI) shows at
// once; pointers TTL, stretched to LockedTTL under lockdown; theme assets
// for good (their names are their content).
const (
	PageTTL    = time.Second
	PointerTTL = 10 * time.Second
	LockedTTL  = 3 * time.Minute
)

// renderTimeout bounds a render on a miss; the readers waiting for it
// share it (singleflight), so one slow render is not repeated by each.
const renderTimeout = 10 * time.Second

// cacheEntries and cacheBytes bound the micro-cache: the hot set of a
// crowd (a post, its actor and note, the home page, the theme assets) is
// a few dozen documents, well under a megabyte with their compressed
// twins; a crawler walking every post must not grow the process with them
// (the resident size after a mixed read load of a 5,000-post site is
// issue 15's figure: 8 MiB of bodies held it at 46.7 MB against 40). A
// document of more than maxCached with its twins (the sitemap of a site
// of tens of thousands of posts) is read from the store each time, and
// its hash checked: a few milliseconds a read. The sitemap of 5,000
// posts (600 KB, 700 KB with its twins) still fits: at 512 KiB it was
// read each time, 521 requests/s instead of 9,000.
const (
	cacheEntries = 4096
	cacheBytes   = 2 << 20
	maxCached    = 1 << 20
)

// Headers are the fixed headers of artifact answers, the same that
// Apache sets for the same files under CGI (package cgi).
type Headers struct {
	PageCSP   string // every HTML artifact: the union of what a page may need (blog.ArtifactCSP)
	BaseCSP   string // every other artifact but these two:
	AssetCSP  string // theme assets (cgi.AssetCSP, as the theme's handler sends)
	WorkerCSP string // the reader's service worker, whose fetches its script's policy governs
}

// Server answers public reads from artifacts in front of the dynamic
// routes (serve mode): a micro-cache in memory over the store, one render
// per key at a time on a miss, which stores what it rendered (the store
// heals itself), and the last known artifact when a render fails.
type Server struct {
	Renderer *Renderer
	Headers  Headers
	Log      *slog.Logger
	// Locked reports whether lockdown is active: pointers are then kept
	// longer, here and by clients.
	Locked func() bool
	Now    func() time.Time
	// Events, when set, counts hits, misses and stale answers
	// (artifact_hits_total…), every process's adding up.
	Events *dbstat.Counter

	hits, misses, stale atomic.Uint64
	// lockedUntil is when lockedNow, Locked's last answer, is asked again:
	// a pointer hit reads the two atomics, not the controls' lock.
	lockedUntil atomic.Int64
	lockedNow   atomic.Bool

	mu     sync.RWMutex
	cache  map[string]*entry // at most cacheEntries and cacheBytes; random ones leave when full
	cached int               // bytes held in cache
	flight map[string]*call
}

// entry is an artifact held in memory, with the headers it is sent with
// made once: a hit copies them into the response's map, canonical and
// shared, and allocates nothing for them.
type entry struct {
	meta    artifact.Meta
	body    []byte
	enc     variants // the precompressed bodies
	checkAt time.Time
	hdr     http.Header                  // every answer's (Etag, Cache-Control, Vary, CSP…), not Content-Type
	ct      []string                     // Content-Type
	length  [len(encodings) + 1][]string // Content-Length of each variant, the plain body's last
}

// newEntry is an entry of k with its headers.
func (s *Server) newEntry(k artifact.Key, m artifact.Meta, body []byte, vs variants, checkAt time.Time) *entry {
	e := &entry{meta: m, body: body, enc: vs, checkAt: checkAt, hdr: http.Header{}, ct: []string{m.ContentType}}
	s.Headers.set(e.hdr, k)
	e.hdr["Etag"] = []string{m.ETag}
	for i, v := range vs {
		if v != nil {
			e.length[i] = []string{strconv.Itoa(len(v))}
		}
	}
	e.length[len(encodings)] = []string{strconv.Itoa(len(body))}
	return e
}

// The headers of a hit that vary from one answer to the next.
var (
	lockedPointer = []string{"public, max-age=60"}
	encodingNames = func() (out [len(encodings)][]string) {
		for i, enc := range encodings {
			out[i] = []string{enc.name}
		}
		return out
	}()
)

type call struct {
	done chan struct{}
	e    *entry  // the artifact rendered, or nil
	res  *Result // the render's answer when it is no artifact
}

// Counts are the Server's counters for /metrics.
type Counts struct{ Hits, Misses, Stale uint64 }

// Counts returns how many reads were hits, misses (rendered) and stale
// answers (a render failed and the last artifact was served).
func (s *Server) Counts() Counts {
	return Counts{Hits: s.hits.Load(), Misses: s.misses.Load(), Stale: s.stale.Load()}
}

func (s *Server) count(n *atomic.Uint64, e dbstat.Event) {
	n.Add(1)
	s.Events.Count(e)
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// locked is Locked's answer, asked at most once a second, and again
// after Forget.
func (s *Server) locked() bool {
	if s.Locked == nil {
		return false
	}
	now := s.now().UnixNano()
	if now < s.lockedUntil.Load() {
		return s.lockedNow.Load()
	}
	v := s.Locked()
	s.lockedNow.Store(v)
	s.lockedUntil.Store(now + int64(time.Second))
	return v
}

// Forget drops keys from the micro-cache: the rebuild calls it after
// writing them, so this process serves the new bytes at once.
func (s *Server) Forget(keys ...artifact.Key) {
	// A lockdown set or lifted renders the runtime pointer again, and
	// comes here: Locked is asked again at the next pointer.
	s.lockedUntil.Store(0)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		if e, ok := s.cache[k.String()]; ok {
			s.cached -= e.size()
			delete(s.cache, k.String())
		}
	}
}

// Wrap answers the requests an artifact answers and hands the rest to next.
func (s *Server) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, ok := KeyOf(r, s.Renderer.Site)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		e, res := s.lookup(r.Context(), k)
		switch {
		case e != nil:
			s.serve(w, r, k, e)
		case res != nil:
			writeResult(w, r, res)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// lookup finds k's artifact: in memory, in the store, or rendered now.
// It returns the artifact, or the render's answer when that is none (a
// 404, a redirect, an error with no artifact to fall back on).
func (s *Server) lookup(ctx context.Context, k artifact.Key) (*entry, *Result) {
	now := s.now()
	name := k.String()
	s.mu.RLock()
	e := s.cache[name]
	s.mu.RUnlock()
	if e != nil && (now.Before(e.checkAt) || Immutable(k)) {
		s.count(&s.hits, dbstat.ArtifactHit)
		return e, nil
	}
	// Held but due a look: the store's metadata says whether it changed.
	if e != nil {
		if m, err := s.Renderer.Store.Stat(ctx, k); err == nil && m.ETag == e.meta.ETag {
			again := *e
			again.checkAt = now.Add(s.ttl(k))
			s.keep(name, &again)
			s.count(&s.hits, dbstat.ArtifactHit)
			return e, nil
		}
	}
	if fresh, err := s.load(ctx, k, now); err == nil {
		s.count(&s.hits, dbstat.ArtifactHit)
		return fresh, nil
	}
	return s.render(ctx, k, e)
}

func (s *Server) ttl(k artifact.Key) time.Duration {
	if !Pointer(k) {
		return PageTTL
	}
	if s.locked() {
		return LockedTTL
	}
	return PointerTTL
}

func (s *Server) keep(name string, e *entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		s.cache = map[string]*entry{}
	}
	size := e.size()
	if size > maxCached {
		return
	}
	if old, ok := s.cache[name]; ok {
		s.cached -= old.size()
		delete(s.cache, name)
	}
	for other, o := range s.cache { // map order is random: random victims
		if len(s.cache) < cacheEntries && s.cached+size <= cacheBytes {
			break
		}
		s.cached -= o.size()
		delete(s.cache, other)
	}
	s.cache[name] = e
	s.cached += size
}

// size is what e holds in memory: its bodies.
func (e *entry) size() int {
	n := len(e.body)
	for _, v := range e.enc {
		n += len(v)
	}
	return n
}

// load reads k (and its variants) from the store into memory.
func (s *Server) load(ctx context.Context, k artifact.Key, now time.Time) (*entry, error) {
	body, m, err := read(ctx, s.Renderer.Store, k)
	if err != nil {
		if code := murlog.ErrorCode(err); code != murlog.ENotFound && s.Log != nil {
			// Corrupt or unreadable: rendered again below; said once here.
			s.Log.Warn("artifact unreadable, rendering it again", "key", k.String(), "err", err.Error())
		}
		return nil, err
	}
	var vs variants
	for i, enc := range encodings {
		if vk, err := artifact.ParseKey(k.String() + enc.suffix); err == nil {
			if v, _, err := read(ctx, s.Renderer.Store, vk); err == nil && decodesTo(i, v, body) {
				vs[i] = v
			}
		}
	}
	e := s.newEntry(k, m, body, vs, now.Add(s.ttl(k)))
	s.keep(k.String(), e)
	return e, nil
}

func read(ctx context.Context, st artifact.Store, k artifact.Key) ([]byte, artifact.Meta, error) {
	rc, m, err := st.Get(ctx, k)
	if err != nil {
		return nil, m, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, artifact.MaxSize+1))
	if err != nil {
		return nil, m, err
	}
	if int64(len(b)) != m.Length || artifact.Sum(b) != m.SHA256 {
		return nil, m, artifact.Corrupt(k, "body of %d bytes does not match its metadata", len(b))
	}
	return b, m, nil
}

// render renders k once for every reader waiting on it, stores a 200 and
// returns it. When the render fails (a 5xx: the database is down, say)
// the last known artifact, old is served if there is one.
func (s *Server) render(ctx context.Context, k artifact.Key, old *entry) (*entry, *Result) {
	name := k.String()
	s.mu.Lock()
	if s.flight == nil {
		s.flight = map[string]*call{}
	}
	c := s.flight[name]
	leader := c == nil
	if leader {
		c = &call{done: make(chan struct{})}
		s.flight[name] = c
	}
	s.mu.Unlock()
	if leader {
		s.count(&s.misses, dbstat.ArtifactMiss)
		c.e, c.res = s.renderNow(context.WithoutCancel(ctx), k, old)
		s.mu.Lock()
		delete(s.flight, name)
		s.mu.Unlock()
		close(c.done)
	} else {
		select {
		case <-c.done:
		case <-ctx.Done():
			return nil, &Result{Status: http.StatusServiceUnavailable}
		}
	}
	return c.e, c.res
}

func (s *Server) renderNow(ctx context.Context, k artifact.Key, old *entry) (*entry, *Result) {
	ctx, cancel := context.WithTimeout(ctx, renderTimeout)
	defer cancel()
	d, ok := DocOf(k, s.Renderer.Site)
	if !ok {
		return nil, nil
	}
	// A shared turn: misses render side by side, but not across a pass
	// over the marks, which could otherwise clear a page's mark while an
	// older render of it is still to be stored. A folder murlog cannot
	// write has no turns to take: the page is rendered all the same (and
	// not stored).
	release, err := s.Renderer.turn(ctx, false)
	switch {
	case err == nil:
		defer release()
	case ctx.Err() != nil:
		if old != nil {
			s.count(&s.stale, dbstat.ArtifactStale)
			return old, nil
		}
		return nil, &Result{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"5"}}}
	}
	res := s.Renderer.Render(ctx, d)
	if res.Status >= 500 && old != nil {
		s.count(&s.stale, dbstat.ArtifactStale)
		return old, nil
	}
	vs, err := s.Renderer.save(ctx, k, res)
	if err != nil && res.OK() && s.Log != nil {
		// Served from memory all the same; the next process renders it.
		s.Log.Warn("artifact not stored", "key", k.String(), "err", err.Error())
	}
	if !res.OK() {
		return nil, res
	}
	ct := res.Header.Get("Content-Type")
	e := s.newEntry(k, artifact.NewMeta(ct, res.Body, s.now()), res.Body, vs, s.now().Add(s.ttl(k)))
	s.keep(k.String(), e)
	return e, nil
}

// serve writes an artifact: its fixed headers, 304 for a matching
// If-None-Match, a precompressed variant when the client takes one.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, k artifact.Key, e *entry) {
	hd := w.Header()
	for name, v := range e.hdr {
		hd[name] = v
	}
	if Pointer(k) && s.locked() {
		hd["Cache-Control"] = lockedPointer
	}
	if httpd.MatchETag(r.Header.Get("If-None-Match"), e.meta.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd["Content-Type"] = e.ct
	body, length := e.body, e.length[len(encodings)]
	if i := pick(r.Header.Get("Accept-Encoding"), &e.enc); i >= 0 {
		body, length = e.enc[i], e.length[i]
		hd["Content-Encoding"] = encodingNames[i]
	}
	hd["Content-Length"] = length
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// set writes the headers every answer of k carries (serve changes a
// pointer's Cache-Control under lockdown).
func (h Headers) set(hd http.Header, k artifact.Key) {
	s := k.String()
	switch {
	case Immutable(k):
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	default:
		hd.Set("Cache-Control", "no-cache")
	}
	if Negotiated(k) {
		hd.Set("Vary", "Accept, Accept-Encoding")
	} else {
		hd.Set("Vary", "Accept-Encoding")
	}
	if strings.HasPrefix(s, "wf/") || strings.HasPrefix(s, "misc/nodeinfo") {
		hd.Set("Access-Control-Allow-Origin", "*")
	}
	switch {
	case strings.HasPrefix(s, "html/"):
		hd.Set("Content-Security-Policy", h.PageCSP)
	case Immutable(k):
		hd.Set("Content-Security-Policy", h.AssetCSP)
	case s == "misc/sw.js":
		hd.Set("Content-Security-Policy", h.WorkerCSP)
	default:
		hd.Set("Content-Security-Policy", h.BaseCSP)
	}
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "strict-origin-when-cross-origin")
}

// writeResult writes a render's answer that is no artifact as the
// dynamic route gave it.
func writeResult(w http.ResponseWriter, r *http.Request, res *Result) {
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	if res.Status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "30")
	}
	w.WriteHeader(res.Status)
	if r.Method != http.MethodHead {
		w.Write(res.Body)
	}
}
