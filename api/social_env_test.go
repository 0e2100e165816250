package api_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/api"
	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/persona"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/setup"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
	"github.com/murlog/murlog/store/storetest"
)

// socialEnv is the real API over a real SQLite file, with the social
// service and a Remote that fetches over real HTTP from a loopback server
// standing in for a Mastodon-like instance (fedi), through the real
// federation resolver.
type socialEnv struct {
	t       *testing.T
	db      *sqlite.DB
	site    murlog.Site
	svc     *social.Service
	alice   *murlog.Persona
	owner   *client.Client // bearer token of the owner
	anon    *client.Client
	fedi    *fediServer
	fetches *atomic.Int64 // requests the remote server answered
}

func newSocialEnv(t *testing.T) *socialEnv { return startSocialEnv(t, true) }

func startSocialEnv(t *testing.T, withRemote bool) *socialEnv {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), sqlite.FileName), sqlite.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	site := murlog.Site{Scheme: "http", Domain: "blog.example"}
	su := setup.New(db)
	su.KeyPair = testsite.KeyPair
	alice, err := su.Run(ctx, setup.Input{Domain: site.Domain, Username: "alice", Password: testsite.Password, PasswordConfirm: testsite.Password})
	if err != nil {
		t.Fatal(err)
	}
	au := auth.New(db)
	secret, _, err := au.CreateToken(ctx, "social tests")
	if err != nil {
		t.Fatal(err)
	}
	fedi := newFediServer(t)
	e := &socialEnv{t: t, db: db, site: site, svc: social.New(db, site), alice: alice, fedi: fedi, fetches: &fedi.hits}
	d := api.Deps{Site: site, Auth: au, Personas: persona.New(db), Posts: post.New(db, site), Settings: settings.New(db),
		Domains: domains.New(db), Social: e.svc, Store: db}
	if withRemote {
		// The real resolver: WebFinger, GETs signed by the primary
		// persona, sanitised and cached in the store.
		d.Remote = federation.NewResolver(federation.ResolverDeps{Site: site, Store: db, Primary: persona.New(db).Primary, Log: log,
			Client: outbound.New(outbound.Options{AllowPrivate: true, AllowHTTP: true, UserAgent: "murlog-test"})})
	}
	srv := httptest.NewServer(httpd.Authenticate(au, httpd.Cookies{}, nil, site, api.New(d, log)))
	t.Cleanup(srv.Close)
	e.owner = client.New(srv.URL)
	e.owner.Token = secret
	e.anon = client.New(srv.URL)
	return e
}

func (e *socialEnv) update(fn func(store.Tx) error) {
	e.t.Helper()
	if err := e.db.Update(ctx, fn); err != nil {
		e.t.Fatal(err)
	}
}

// actor caches a remote actor the way the resolver would have.
func (e *socialEnv) actor(user, domain string) *murlog.RemoteActor {
	e.t.Helper()
	a := storetest.NewRemoteActor(user, domain, true, time.Now())
	e.update(func(tx store.Tx) error { return tx.RemoteActors().Upsert(a) })
	return a
}

// call calls method as the owner and decodes the result into out.
func (e *socialEnv) call(method string, params, out any) {
	e.t.Helper()
	if err := e.owner.Call(ctx, method, params, out); err != nil {
		e.t.Fatalf("%s(%v): %v", method, params, err)
	}
}

// jobs claims the queued jobs of topic and decodes their payloads.
func jobs[T any](e *socialEnv, topic string) []T {
	e.t.Helper()
	js, err := e.db.Queue().Claim(ctx, []string{topic}, 100, time.Minute)
	if err != nil {
		e.t.Fatal(err)
	}
	out := make([]T, 0, len(js))
	for _, j := range js {
		var v T
		if err := json.Unmarshal(j.Payload, &v); err != nil {
			e.t.Fatalf("%s payload %s: %v", topic, j.Payload, err)
		}
		out = append(out, v)
	}
	return out
}

// fediServer is a loopback stand-in for a Mastodon-like server with one
// account, bob: WebFinger, the actor, a two-page outbox (the second
// page's item only by IRI), followers (one page), a hidden following
// collection, a featured collection; mallory's collections are broken;
// /users/gone answers 410.
type fediServer struct {
	*httptest.Server
	host  string
	hits  atomic.Int64
	posts atomic.Int64 // inbox POSTs received
}

func newFediServer(t *testing.T) *fediServer {
	f := &fediServer{}
	mux := http.NewServeMux()
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.Close)
	f.host = strings.TrimPrefix(f.URL, "http://")
	asJSON := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", activitypub.MediaType)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /.well-known/webfinger", func(w http.ResponseWriter, r *http.Request) {
		user, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Query().Get("resource"), "acct:"), "@"+f.host)
		if !ok || (user != "bob" && user != "mallory") {
			http.NotFound(w, r)
			return
		}
		asJSON(w, map[string]any{"subject": "acct:" + user + "@" + f.host, "links": []map[string]string{
			{"rel": "self", "type": activitypub.MediaType, "href": f.URL + "/users/" + user}}})
	})
	mux.HandleFunc("GET /users/bob", func(w http.ResponseWriter, r *http.Request) {
		asJSON(w, map[string]any{"@context": "https://www.w3.org/ns/activitystreams", "id": f.bob(), "type": "Person",
			"preferredUsername": "bob", "name": "Bob", "summary": `<p>hi <script>alert(1)</script></p>`,
			"url": f.URL + "/@bob", "inbox": f.bob() + "/inbox", "outbox": f.bob() + "/outbox",
			"followers": f.bob() + "/followers", "following": f.bob() + "/following", "featured": f.bob() + "/featured",
			"endpoints": map[string]string{"sharedInbox": f.URL + "/inbox"}})
	})
	mux.HandleFunc("GET /users/bob/outbox", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("page") {
		case "":
			asJSON(w, map[string]any{"id": f.bob() + "/outbox", "type": "OrderedCollection", "totalItems": 2,
				"first": f.bob() + "/outbox?page=1"})
		case "1":
			asJSON(w, map[string]any{"id": f.bob() + "/outbox?page=1", "type": "OrderedCollectionPage",
				"next": f.bob() + "/outbox?page=2", "orderedItems": []any{
					map[string]any{"id": f.note(1) + "/activity", "type": "Create", "actor": f.bob(), "object": f.noteJSON(1)},
					map[string]any{"id": f.URL + "/boost/1", "type": "Announce", "actor": f.bob(), "object": "https://elsewhere.example/x"},
				}})
		default:
			asJSON(w, map[string]any{"id": f.bob() + "/outbox?page=2", "type": "OrderedCollectionPage",
				"orderedItems": []any{map[string]any{"id": f.note(2) + "/activity", "type": "Create", "actor": f.bob(), "object": f.note(2)}}})
		}
	})
	mux.HandleFunc("GET /users/bob/statuses/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		asJSON(w, f.noteJSON(n))
	})
	mux.HandleFunc("GET /users/bob/followers", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "" {
			asJSON(w, map[string]any{"id": f.bob() + "/followers", "type": "OrderedCollection", "totalItems": 3,
				"first": f.bob() + "/followers?page=1"})
			return
		}
		asJSON(w, map[string]any{"id": f.bob() + "/followers?page=1", "type": "OrderedCollectionPage",
			"orderedItems": []string{"https://a.example/users/1", "https://b.example/users/2", "https://c.example/users/3"}})
	})
	mux.HandleFunc("GET /users/bob/following", func(w http.ResponseWriter, r *http.Request) {
		asJSON(w, map[string]any{"id": f.bob() + "/following", "type": "OrderedCollection", "totalItems": 7})
	})
	mux.HandleFunc("GET /users/bob/featured", func(w http.ResponseWriter, r *http.Request) {
		asJSON(w, map[string]any{"id": f.bob() + "/featured", "type": "OrderedCollection", "totalItems": 1,
			"orderedItems": []any{f.noteJSON(3)}})
	})
	// mallory's collections are broken: an outbox without an id, a
	// featured collection that is not JSON.
	mux.HandleFunc("GET /users/mallory", func(w http.ResponseWriter, r *http.Request) {
		m := f.URL + "/users/mallory"
		asJSON(w, map[string]any{"id": m, "type": "Person", "preferredUsername": "mallory", "inbox": m + "/inbox",
			"outbox": m + "/outbox", "featured": m + "/featured"})
	})
	mux.HandleFunc("GET /users/mallory/outbox", func(w http.ResponseWriter, r *http.Request) {
		asJSON(w, map[string]any{"type": "OrderedCollection", "totalItems": 1})
	})
	mux.HandleFunc("GET /users/mallory/featured", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>not here</html>"))
	})
	// Inboxes accept everything (the tests here check what murlog sent,
	// not the remote's verification).
	for _, inbox := range []string{"POST /inbox", "POST /users/bob/inbox"} {
		mux.HandleFunc(inbox, func(w http.ResponseWriter, r *http.Request) {
			f.posts.Add(1)
			w.WriteHeader(http.StatusAccepted)
		})
	}
	mux.HandleFunc("GET /users/gone", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusGone)
	})
	return f
}

func (f *fediServer) bob() string       { return f.URL + "/users/bob" }
func (f *fediServer) note(n int) string { return fmt.Sprintf("%s/statuses/%d", f.bob(), n) }

func (f *fediServer) noteJSON(n int) map[string]any {
	return map[string]any{"id": f.note(n), "type": "Note", "attributedTo": f.bob(),
		"to": []string{activitypub.Public}, "cc": []string{f.bob() + "/followers"},
		"content":   fmt.Sprintf(`<p>note %d <a href="javascript:alert(1)" onclick="x()">x</a></p>`, n),
		"published": "2026-05-01T10:00:00Z", "url": fmt.Sprintf("%s/@bob/%d", f.URL, n),
		"tag": []map[string]string{{"type": "Hashtag", "name": "#go", "href": f.URL + "/tags/go"}},
		"attachment": []map[string]string{{"type": "Document", "mediaType": "image/png", "url": f.URL + "/media/1.png", "name": "alt"},
			// GoToSocial sends the description as summary.
			{"type": "Image", "mediaType": "image/jpeg", "url": f.URL + "/media/2.jpg", "summary": "a tree in the snow"},
			{"type": "Document", "mediaType": "image/png", "url": "javascript:alert(1)"}}}
}
