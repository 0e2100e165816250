package federation_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/outbound"
)

// fediServer answers WebFinger, an actor, its HTML profile page and a
// note, recording whether each request was signed.
type fediServer struct {
	srv           *httptest.Server
	hits, signed  atomic.Int64
	idHost        string // when set, the actor claims an id on this host
	lastSignature atomic.Value
	signedPath    sync.Map // path → whether its last request was signed
}

func newFediServer(t *testing.T) *fediServer {
	t.Helper()
	f := &fediServer{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fediServer) host() string { return strings.TrimPrefix(f.srv.URL, "http://") }

func (f *fediServer) serve(w http.ResponseWriter, r *http.Request) {
	f.hits.Add(1)
	sig := r.Header.Get("Signature") + r.Header.Get("Signature-Input")
	if sig != "" {
		f.signed.Add(1)
		f.lastSignature.Store(sig)
	}
	f.signedPath.Store(r.URL.Path, sig != "")
	actor := f.srv.URL + "/users/ann"
	switch r.URL.Path {
	case "/.well-known/webfinger":
		if r.URL.Query().Get("resource") != "acct:ann@"+f.host() {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/jrd+json")
		json.NewEncoder(w).Encode(map[string]any{"subject": "acct:ann@" + f.host(), "links": []map[string]string{
			{"rel": "http://webfinger.net/rel/profile-page", "type": "text/html", "href": f.srv.URL + "/@ann"},
			{"rel": "self", "type": "application/activity+json", "href": actor},
		}})
	case "/@ann":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html><head><title>ann</title>
<link rel="alternate" type="application/activity+json" href="/users/ann"></head><body>ann</body></html>`))
	case "/users/ann":
		id := actor
		if f.idHost != "" {
			id = "http://" + f.idHost + "/users/ann"
		}
		w.Header().Set("Content-Type", "application/activity+json")
		json.NewEncoder(w).Encode(map[string]any{
			"@context": "https://www.w3.org/ns/activitystreams", "id": id, "type": "Person",
			"preferredUsername": "ann", "name": "Ann\u0007 " + strings.Repeat("x", 300),
			"summary": `<p>hi <script>alert(1)</script><a href="javascript:alert(1)" onclick="x()">link</a></p>`,
			"inbox":   actor + "/inbox", "url": f.srv.URL + "/@ann",
			"attachment": []map[string]string{{"type": "PropertyValue", "name": "web", "value": `<a href="https://ann.example" onmouseover="x()">ann.example</a>`}},
			"publicKey":  map[string]string{"id": actor + "#main-key", "owner": actor, "publicKeyPem": "-----BEGIN PUBLIC KEY-----\nAA==\n-----END PUBLIC KEY-----\n"},
		})
	case "/users/ann/statuses/1":
		w.Header().Set("Content-Type", "application/activity+json")
		json.NewEncoder(w).Encode(map[string]any{"id": f.srv.URL + r.URL.Path, "type": "Note", "attributedTo": actor, "content": "<p>a note</p>"})
	default:
		http.NotFound(w, r)
	}
}

func newResolver(t *testing.T, s *testsite.Site) *federation.Resolver {
	t.Helper()
	site := murlog.Site{Scheme: "http", Domain: s.Domain()}
	h := federation.New(federation.Deps{Site: site, Store: s.App.Store()})
	return federation.NewResolver(federation.ResolverDeps{Site: site, Store: s.App.Store(), Primary: h.Primary,
		Client: outbound.New(outbound.Options{AllowPrivate: true, AllowHTTP: true})})
}

func TestResolveByHandleSanitisesAndCaches(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	f := newFediServer(t)
	rv := newResolver(t, s)
	a, err := rv.Resolve(ctx, "@ann@"+f.host())
	if err != nil {
		t.Fatalf("Resolve(@ann@%s): %v", f.host(), err)
	}
	if a.URI != f.srv.URL+"/users/ann" || a.Username != "ann" || a.Domain != f.host() || a.Inbox != a.URI+"/inbox" {
		t.Errorf("actor = %+v; want ann's id, handle and inbox", a)
	}
	if strings.ContainsAny(a.DisplayName, "\a") || len([]rune(a.DisplayName)) > federation.MaxDisplayName {
		t.Errorf("display name %q: want plain text of at most %d characters", a.DisplayName, federation.MaxDisplayName)
	}
	for _, bad := range []string{"<script", "javascript:", "onclick", "onmouseover"} {
		if strings.Contains(a.Summary, bad) || len(a.Fields) == 1 && strings.Contains(a.Fields[0].Value, bad) {
			t.Errorf("summary %q / fields %+v keep %q", a.Summary, a.Fields, bad)
		}
	}
	if !strings.Contains(a.Summary, "<p>hi") || len(a.Fields) != 1 || !strings.Contains(a.Fields[0].Value, "ann.example") {
		t.Errorf("summary %q, fields %+v: want the safe parts kept", a.Summary, a.Fields)
	}
	if f.signed.Load() == 0 || !strings.Contains(f.lastSignature.Load().(string), "/@alice#main-key") {
		t.Errorf("the actor fetch was not signed with the primary persona's key (last signature %v)", f.lastSignature.Load())
	}
	hits := f.hits.Load()
	for _, q := range []string{"ann@" + f.host(), f.srv.URL + "/users/ann"} {
		if b, err := rv.Resolve(ctx, q); err != nil || b.ID != a.ID {
			t.Fatalf("Resolve(%q) again = %+v, %v; want the cached actor", q, b, err)
		}
	}
	if n := f.hits.Load(); n != hits {
		t.Errorf("resolving a fresh actor again made %d requests; want 0", n-hits)
	}
	if _, err := rv.Refresh(ctx, a.URI); err != nil || f.hits.Load() != hits+1 {
		t.Errorf("Refresh: %v, %d requests; want one fetch", err, f.hits.Load()-hits)
	}
}

func TestResolveProfilePageAndObjects(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	f := newFediServer(t)
	rv := newResolver(t, s)
	a, err := rv.Resolve(ctx, f.srv.URL+"/@ann")
	if err != nil || a.URI != f.srv.URL+"/users/ann" {
		t.Fatalf("Resolve(profile page) = %+v, %v; want the actor its alternate link names", a, err)
	}
	o, err := rv.FetchObject(ctx, f.srv.URL+"/users/ann/statuses/1")
	if err != nil || o.Type != "Note" || o.Content != "<p>a note</p>" {
		t.Fatalf("FetchObject = %+v, %v; want the note", o, err)
	}
	if _, err := rv.FetchObject(ctx, f.srv.URL+"/nothing"); murlog.ErrorCode(err) != murlog.EUnavailable || !strings.Contains(err.Error(), f.host()) {
		t.Errorf("FetchObject(404) = %v; want unavailable naming %s", err, f.host())
	}
}

func TestResolveRefusesActorsClaimingAnotherHost(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	f := newFediServer(t)
	f.idHost = "victim.example"
	rv := newResolver(t, s)
	_, err := rv.Resolve(ctx, f.srv.URL+"/users/ann")
	if murlog.ErrorCode(err) != murlog.EForbidden {
		t.Fatalf("Resolve(actor claiming another host) = %v; want forbidden", err)
	}
	if storedActor(t, s, "http://victim.example/users/ann") != nil {
		t.Error("the impostor was stored")
	}
	if _, err := rv.Resolve(ctx, "@ann@unreachable.invalid"); murlog.ErrorCode(err) != murlog.EUnavailable || !strings.Contains(err.Error(), "unreachable.invalid") {
		t.Errorf("Resolve(unreachable host) = %v; want unavailable naming the host", err)
	}
	if _, err := rv.Resolve(ctx, "not a handle"); murlog.ErrorCode(err) != murlog.EInvalid {
		t.Errorf("Resolve(garbage) = %v; want invalid", err)
	}
}

// What murlog signs, as docs/federation.md says: every fetch of an
// ActivityPub document (the actor, an object), with the primary
// persona's key; not the WebFinger lookup, which is public by design and
// which Mastodon does not sign either.
func TestFetchesAreSignedWebFingerIsNot(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	f := newFediServer(t)
	rv := newResolver(t, s)
	if _, err := rv.Resolve(ctx, "@ann@"+f.host()); err != nil {
		t.Fatal(err)
	}
	if _, err := rv.FetchObject(ctx, f.srv.URL+"/users/ann/statuses/1"); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{"/.well-known/webfinger": false, "/users/ann": true, "/users/ann/statuses/1": true} {
		if got, ok := f.signedPath.Load(path); !ok || got.(bool) != want {
			t.Errorf("GET %s signed = %v (requested: %v); want %v", path, got, ok, want)
		}
	}
}
