package prerender

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/artifact"
)

// Renderer renders artifacts with the app's handler and stores them.
type Renderer struct {
	// Handler answers the public routes as they are served dynamically
	// (the app's routes, without Serve in front of them).
	Handler http.Handler
	// Store keeps the artifacts.
	Store artifact.Store
	// Site is the host the site answers at (murlog.Site.Domain).
	Site string
	// Rebuilt, when set, is told how long each Rebuild took (the
	// artifact_rebuild_seconds histogram; wall time, not the site's clock).
	Rebuilt func(d time.Duration)
}

// Turner is an artifact store whose writers can take turns across
// processes (fsstore.Store.Turn). Renders that store what they rendered
// take one: a pass over dirty marks an exclusive turn per mark, a render
// on a miss a shared one. Without it, the worker spawned by one CGI
// request could still be rendering a page from the database as it was
// when the next request's own pass rendered the new one, and store the
// old page last, after the mark that would render it again was cleared.
type Turner interface {
	Turn(ctx context.Context, exclusive bool) (release func(), err error)
}

// turn waits (within ctx) for a turn to render and store; a store that
// cannot take turns renders without.
func (rd *Renderer) turn(ctx context.Context, exclusive bool) (release func(), err error) {
	t, ok := rd.Store.(Turner)
	if !ok {
		return func() {}, nil
	}
	return t.Turn(ctx, exclusive)
}

// Result is one rendered document: a 200 to store, or another answer
// (404, 410, a redirect, an error) that is served as it is and stored
// never.
type Result struct {
	Status int
	Header http.Header
	Body   []byte
	// Transient is a 200 the route marked as no artifact's
	// (artifact.TransientHeader, left out of Header).
	Transient bool
}

// OK reports whether the result is an artifact.
func (r *Result) OK() bool { return r.Status == http.StatusOK && !r.Transient }

// Render answers d with the handler, without storing anything.
func (rd *Renderer) Render(ctx context.Context, d Doc) *Result {
	rec := httptest.NewRecorder()
	rd.Handler.ServeHTTP(rec, d.Request(rd.Site).WithContext(ctx))
	res := &Result{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes(),
		Transient: rec.Header().Get(artifact.TransientHeader) != ""}
	res.Header.Del(artifact.TransientHeader)
	if res.OK() && isHTML(res.Header.Get("Content-Type")) {
		res.Body = withMetaCSP(res.Body, res.Header.Get("Content-Security-Policy"))
	}
	return res
}

// Rebuild renders k and stores the result: a 200 is Put (with its
// variants), anything else a page no longer answers with (404, 410, a
// redirect) deletes the artifact, so the dynamic route answers from then
// on. A server error leaves the artifact as it was — the last known state
// is served meanwhile — and is returned.
func (rd *Renderer) Rebuild(ctx context.Context, k artifact.Key) (*Result, error) {
	res, _, err := rd.rebuild(ctx, k, false)
	return res, err
}

// RebuildChanged is Rebuild for a pass over the marks: a 200 whose body
// and type are those already stored, with its variants beside it, is not
// compressed or written again, and changed is false. A publish marks
// the documents that may have changed — the actor, the featured
// collection, the pointers — and many have not. What a write costs is
// mostly the files: on this project's test machine (ext4 on a virtual
// disk) creating one costs 0.13 ms of CPU and a rename 0.1 ms, and a
// document is six of each (body, variants, their sidecars); a stat is
// 2 µs. A document left as it was also stays in the micro-cache.
func (rd *Renderer) RebuildChanged(ctx context.Context, k artifact.Key) (res *Result, changed bool, err error) {
	return rd.rebuild(ctx, k, true)
}

// rebuild is Rebuild, and with keepSame RebuildChanged.
func (rd *Renderer) rebuild(ctx context.Context, k artifact.Key, keepSame bool) (res *Result, changed bool, err error) {
	d, ok := DocOf(k, rd.Site)
	if !ok {
		return nil, false, murlog.Invalid("key", "%s is not the key of a public document", k)
	}
	start := time.Now()
	res = rd.Render(ctx, d)
	changed = !keepSame || !res.OK() || !rd.stored(ctx, k, res)
	if changed {
		err = rd.Save(ctx, k, res)
	}
	if rd.Rebuilt != nil {
		rd.Rebuilt(time.Since(start))
	}
	return res, changed, err
}

// stored reports whether k is stored with res's body and type, and with
// every variant a body like it has.
func (rd *Renderer) stored(ctx context.Context, k artifact.Key, res *Result) bool {
	ct := res.Header.Get("Content-Type")
	m, err := rd.Store.Stat(ctx, k)
	if err != nil || m.ContentType != ct || m.Length != int64(len(res.Body)) || m.SHA256 != artifact.Sum(res.Body) {
		return false
	}
	if !compressible(ct) || len(res.Body) < minCompress {
		return true
	}
	// Brotli may have lost to gzip (compress): gzip is always there.
	vk, err := artifact.ParseKey(k.String() + encodings[len(encodings)-1].suffix)
	if err != nil {
		return false
	}
	_, err = rd.Store.Stat(ctx, vk)
	return err == nil
}

// Save stores res under k as Rebuild does.
func (rd *Renderer) Save(ctx context.Context, k artifact.Key, res *Result) error {
	_, err := rd.save(ctx, k, res)
	return err
}

// save is Save, returning the variants it stored with a 200.
func (rd *Renderer) save(ctx context.Context, k artifact.Key, res *Result) (variants, error) {
	switch {
	case res.OK():
		ct := res.Header.Get("Content-Type")
		vs := compress(ct, res.Body)
		_, err := put(ctx, rd.Store, k, ct, res.Body, &vs)
		return vs, err
	case res.Status >= 500:
		return variants{}, murlog.Errorf(murlog.EUnavailable, "rendering %s answered %d: the artifact is kept as it was", k, res.Status)
	default:
		return variants{}, Delete(ctx, rd.Store, k)
	}
}

// Put stores body under k and, for a compressible body, its precompressed
// variants beside it (K.br, K.gz). The variants are written first, so that
// a reader who finds the new body never finds an old variant beside it for
// long; one that finds a variant whose body is gone is answered from the
// plain key.
func Put(ctx context.Context, st artifact.Store, k artifact.Key, contentType string, body []byte) (artifact.Meta, error) {
	vs := compress(contentType, body)
	return put(ctx, st, k, contentType, body, &vs)
}

func put(ctx context.Context, st artifact.Store, k artifact.Key, contentType string, body []byte, vs *variants) (artifact.Meta, error) {
	for i, enc := range encodings {
		vk, err := artifact.ParseKey(k.String() + enc.suffix)
		if err != nil {
			return artifact.Meta{}, err
		}
		if vs[i] != nil {
			_, err = st.Put(ctx, vk, contentType, vs[i])
		} else if err = st.Delete(ctx, vk); murlog.ErrorCode(err) == murlog.ENotFound {
			err = nil
		}
		if err != nil {
			return artifact.Meta{}, err
		}
	}
	return st.Put(ctx, k, contentType, body)
}

// Delete removes k and its variants; a key that is not there is no error.
func Delete(ctx context.Context, st artifact.Store, k artifact.Key) error {
	var errs []error
	names := []string{k.String()}
	for _, enc := range encodings {
		names = append(names, k.String()+enc.suffix)
	}
	for _, s := range names {
		key, err := artifact.ParseKey(s)
		if err == nil {
			err = st.Delete(ctx, key)
		}
		if err != nil && murlog.ErrorCode(err) != murlog.ENotFound {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func isHTML(contentType string) bool { return strings.HasPrefix(contentType, "text/html") }

// withMetaCSP puts the page's own policy into its head as a meta element.
// An artifact is served by Apache or Serve with one fixed policy for
// every page (ArtifactCSP: the union of what any page may need); a
// browser enforces both, so the page gets exactly its own. The
// directives a meta element cannot carry (frame-ancestors, report-uri,
// sandbox) are left out: the header has frame-ancestors 'none'.
func withMetaCSP(body []byte, policy string) []byte {
	if policy == "" {
		return body
	}
	var keep []string
	for _, d := range strings.Split(policy, ";") {
		d = strings.TrimSpace(d)
		name, _, _ := strings.Cut(d, " ")
		switch name {
		case "", "frame-ancestors", "report-uri", "report-to", "sandbox":
			continue
		}
		keep = append(keep, d)
	}
	i := bytes.Index(body, []byte("<head>"))
	if i < 0 {
		return body
	}
	i += len("<head>")
	meta := fmt.Sprintf(`<meta http-equiv="Content-Security-Policy" content="%s">`, html.EscapeString(strings.Join(keep, "; ")))
	out := make([]byte, 0, len(body)+len(meta))
	out = append(out, body[:i]...)
	out = append(out, meta...)
	return append(out, body[i:]...)
}
