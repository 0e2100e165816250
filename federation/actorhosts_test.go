package federation_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/store"
)

// actorHost is a loopback server whose actors the test writes: each
// path serves its document, or redirects.
type actorHost struct {
	srv      *httptest.Server
	hits     atomic.Int64
	mu       sync.Mutex
	docs     map[string]map[string]any
	redirect map[string]string
}

func newActorHost(t *testing.T) *actorHost {
	t.Helper()
	h := &actorHost{docs: map[string]map[string]any{}, redirect: map[string]string{}}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.hits.Add(1)
		h.mu.Lock()
		doc, to := h.docs[r.URL.Path], h.redirect[r.URL.Path]
		h.mu.Unlock()
		switch {
		case to != "":
			http.Redirect(w, r, to, http.StatusFound)
		case doc != nil:
			w.Header().Set("Content-Type", "application/activity+json")
			json.NewEncoder(w).Encode(doc)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// person puts an actor at path with a key and the given fields over the
// defaults (every URL on its own host), and returns its id.
func (h *actorHost) person(path, pub string, fields map[string]any) string {
	id := h.srv.URL + path
	doc := map[string]any{"@context": "https://www.w3.org/ns/activitystreams", "id": id, "type": "Person",
		"preferredUsername": strings.TrimPrefix(path, "/users/"),
		"inbox":             id + "/inbox", "outbox": id + "/outbox", "followers": id + "/followers",
		"following": id + "/following", "featured": id + "/featured",
		"endpoints": map[string]string{"sharedInbox": h.srv.URL + "/inbox"},
		"publicKey": map[string]string{"id": id + "#main-key", "owner": id, "publicKeyPem": pub}}
	for k, v := range fields {
		doc[k] = v
	}
	h.mu.Lock()
	h.docs[path] = doc
	h.mu.Unlock()
	return id
}

type hostsEnv struct {
	s    *testsite.Site
	rv   *federation.Resolver
	v    *federation.Verifier
	logs *testsite.SyncBuffer
}

func newHostsEnv(t *testing.T) *hostsEnv {
	t.Helper()
	e := &hostsEnv{s: testsite.New(t), logs: &testsite.SyncBuffer{}}
	log := slog.New(slog.NewJSONHandler(e.logs, nil))
	site := murlog.Site{Scheme: "http", Domain: e.s.Domain()}
	h := federation.New(federation.Deps{Site: site, Store: e.s.App.Store()})
	e.rv = federation.NewResolver(federation.ResolverDeps{Site: site, Store: e.s.App.Store(), Primary: h.Primary, Log: log,
		Client: outbound.New(outbound.Options{AllowPrivate: true, AllowHTTP: true})})
	e.v = federation.NewVerifier(federation.VerifierDeps{Site: site, Store: e.s.App.Store(), Resolver: e.rv, Log: log})
	return e
}

func testKey(t *testing.T, name string) (httpsig.Key, string) {
	t.Helper()
	read := func(f string) string {
		b, err := os.ReadFile(filepath.Join("..", "httpsig", "testdata", name+f))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	priv, err := httpsig.ParsePrivateKeyPEM(read(".pkcs8.pem"))
	if err != nil {
		t.Fatal(err)
	}
	return httpsig.Key{Private: priv}, read(".pub.pem")
}

// An actor whose inbox is on another host is refused whole: murlog would
// sign its deliveries to it, followers-only posts included, to a third
// server. It is not stored, so nothing is ever delivered there.
func TestActorWithItsInboxElsewhereIsRefused(t *testing.T) {
	t.Parallel()
	e := newHostsEnv(t)
	peer, third := newActorHost(t), newActorHost(t)
	_, pub := testKey(t, "rsa-a")
	id := peer.person("/users/eve", pub, map[string]any{"inbox": third.srv.URL + "/users/eve/inbox"})
	_, err := e.rv.Resolve(ctx, id)
	if murlog.ErrorCode(err) != murlog.EInvalid || !strings.Contains(err.Error(), "inbox") {
		t.Fatalf("Resolve(actor with its inbox on another host) = %v; want invalid naming the inbox", err)
	}
	if storedActor(t, e.s, id) != nil {
		t.Error("the actor was stored")
	}
	if n := third.hits.Load(); n != 0 {
		t.Errorf("the third server was reached %d times", n)
	}
}

// Every other URL murlog later delivers to or fetches from — the shared
// inbox, outbox, followers, following, featured — is dropped when it is
// on another host, with a log line each; deliveries then go to the
// actor's own inbox.
func TestActorURLsElsewhereAreDropped(t *testing.T) {
	t.Parallel()
	e := newHostsEnv(t)
	peer, third := newActorHost(t), newActorHost(t)
	_, pub := testKey(t, "rsa-a")
	x := third.srv.URL
	id := peer.person("/users/eve", pub, map[string]any{"outbox": x + "/o", "followers": x + "/f", "following": x + "/g",
		"featured": x + "/p", "endpoints": map[string]string{"sharedInbox": x + "/inbox"}})
	a, err := e.rv.Resolve(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if a.SharedInbox != "" || a.Outbox != "" || a.Followers != "" || a.Following != "" || a.Featured != "" {
		t.Errorf("stored %+v; want every URL on %s dropped", a, x)
	}
	if a.DeliveryInbox() != id+"/inbox" {
		t.Errorf("DeliveryInbox() = %q; want the actor's own inbox", a.DeliveryInbox())
	}
	for _, f := range []string{"endpoints.sharedInbox", "outbox", "followers", "following", "featured"} {
		if !strings.Contains(e.logs.String(), `"msg":"remote actor URL dropped"`) || !strings.Contains(e.logs.String(), `"field":"`+f+`"`) {
			t.Errorf("no log line names the dropped %s:\n%s", f, e.logs)
		}
	}
	// On its own host they are kept, as Mastodon and Misskey send them.
	id = peer.person("/users/ann", pub, nil)
	if a, err = e.rv.Resolve(ctx, id); err != nil || a.SharedInbox != peer.srv.URL+"/inbox" || a.Featured != id+"/featured" {
		t.Errorf("Resolve(actor on its own host) = %+v, %v; want its shared inbox and collections", a, err)
	}
}

// The actors of real servers keep what they send: Mastodon's and
// Misskey's shared inbox is on their host, GoToSocial sends none.
func TestFixtureActorsKeepTheirURLs(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"mastodon/actor.json", "mastodon/actor_ed25519.json", "misskey/actor.json", "gotosocial/actor.json"} {
		b, err := os.ReadFile(filepath.Join("..", "activitypub", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		o, err := activitypub.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		a, err := federation.ActorRecord(o, time.Now(), nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if a.SharedInbox != o.Endpoints.SharedInbox || a.Outbox != o.Outbox || a.Followers != o.Followers || a.Featured != o.Featured || a.Inbox != o.Inbox {
			t.Errorf("%s: stored %+v; want its URLs as sent", f, a)
		}
	}
}

// A key is used only for an actor on the keyId's host, however the actor
// was found: a keyId whose actor URL redirects to another host, or an
// actor that names a key id on another host, is refused.
func TestKeyOnlyVerifiesForItsHost(t *testing.T) {
	t.Parallel()
	e := newHostsEnv(t)
	a, b := newActorHost(t), newActorHost(t)
	key, pub := testKey(t, "rsa-a")
	// b's actor claims a key id on a's host; a redirects the key's actor
	// URL to b.
	bob := b.srv.URL + "/users/bob"
	keyOnA := a.srv.URL + "/users/bob#main-key"
	b.person("/users/bob", pub, map[string]any{"publicKey": map[string]string{"id": keyOnA, "owner": bob, "publicKeyPem": pub}})
	a.mu.Lock()
	a.redirect["/users/bob"] = bob
	a.mu.Unlock()
	signedGet := func(keyID string) *http.Request {
		req := httptest.NewRequest("GET", "http://"+e.s.Domain()+"/@alice", nil)
		key.ID = keyID
		if err := httpsig.SignCavage(req, nil, key, time.Now()); err != nil {
			t.Fatal(err)
		}
		return req
	}
	if who, err := e.v.Requester(signedGet(keyOnA)); err == nil {
		t.Fatalf("a keyId on %s redirected to an actor on %s verified as %s; want refused", a.srv.URL, b.srv.URL, who)
	}
	if storedActor(t, e.s, bob) == nil {
		t.Fatal("the redirect was not followed (the test needs bob stored)")
	}
	// Now bob is known, with a key id on a's host: found in the store
	// without a fetch, still refused.
	hits := a.hits.Load() + b.hits.Load()
	if who, err := e.v.Requester(signedGet(keyOnA)); err == nil {
		t.Fatalf("the stored actor on %s verified a keyId on %s as %s; want refused", b.srv.URL, a.srv.URL, who)
	}
	if n := a.hits.Load() + b.hits.Load() - hits; n != 0 {
		t.Errorf("the second request fetched %d times; want the stored actor", n)
	}
	err := e.s.App.Store().View(ctx, func(tx store.Tx) error { _, err := tx.RemoteActors().GetByKeyID(keyOnA); return err })
	if err != nil {
		t.Errorf("bob's key id is not in the store (%v): the second request did not test the store path", err)
	}
}
