package inbox_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/persona"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
	"github.com/murlog/murlog/store/storetest"
	"github.com/murlog/murlog/worker"
)

// procSite is the local site of the processing tests: the fixtures
// address https://blog.example/@owner.
var procSite = murlog.Site{Scheme: "https", Domain: "blog.example"}

// peer is a loopback fediverse server: documents by path (503 under
// /down/), and an inbox recording what it is sent.
type peer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	docs map[string]string
	got  [][]byte
	gets int
}

func (r *peer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gets++
	if req.Method == http.MethodPost {
		b, _ := io.ReadAll(req.Body)
		r.got = append(r.got, b)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if strings.HasPrefix(req.URL.Path, "/down/") {
		http.Error(w, "restarting", http.StatusServiceUnavailable)
		return
	}
	doc, ok := r.docs[req.URL.Path]
	if !ok {
		http.Error(w, "gone", http.StatusGone)
		return
	}
	w.Header().Set("Content-Type", activitypub.MediaType)
	io.WriteString(w, doc)
}

// put serves doc at path, with {base} replaced by the server's URL.
func (r *peer) put(path, doc string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.docs[path] = strings.ReplaceAll(doc, "{base}", r.srv.URL)
	return r.srv.URL + path
}

func (r *peer) fetches() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gets
}

func (r *peer) posts() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.got...)
}

// penv is the inbox job over a real SQLite file, the real social
// service, a persona "owner" with a real key, and a loopback remote.
type penv struct {
	t      testing.TB
	db     *sqlite.DB
	svc    *social.Service
	proc   *inbox.Processor
	deps   inbox.ProcessDeps
	remote *peer
	logs   *testsite.SyncBuffer
	owner  *murlog.Persona
}

func newPenv(t testing.TB) *penv {
	t.Helper()
	path := filepath.Join(t.TempDir(), sqlite.FileName)
	schema.CopyTo(t, path)
	db, err := sqlite.Open(ctx, path,
		sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	out := outbound.New(outbound.Options{AllowPrivate: true, AllowHTTP: true, UserAgent: "murlog-test"})
	t.Cleanup(out.Close)
	r := &peer{docs: map[string]string{}}
	r.srv = httptest.NewServer(r)
	t.Cleanup(r.srv.Close)
	e := &penv{t: t, db: db, svc: social.New(db, procSite), remote: r, logs: &testsite.SyncBuffer{}}
	e.owner = storetest.NewPersona("owner", true, time.Now())
	if e.owner.PublicKeyPEM, e.owner.PrivateKeyPEM, err = persona.NewKeyPair(); err != nil {
		t.Fatal(err)
	}
	e.update(func(tx store.Tx) error { return tx.Personas().Create(e.owner) })
	log := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	keys := federation.NewKeys(procSite, nil)
	resolver := federation.NewResolver(federation.ResolverDeps{Site: procSite, Store: db, Keys: keys, Client: out, Log: log,
		Primary: func(context.Context) (*murlog.Persona, error) { return e.owner, nil }})
	e.deps = inbox.ProcessDeps{Site: procSite, Store: db, Social: e.svc, Items: inbox.StoreItems{Store: db},
		Fetcher: resolver, Out: out, Keys: keys, Log: log}
	e.proc = inbox.NewProcessor(e.deps)
	return e
}

func (e *penv) update(fn func(store.Tx) error) {
	e.t.Helper()
	if err := e.db.Update(ctx, fn); err != nil {
		e.t.Fatal(err)
	}
}

func (e *penv) view(fn func(store.Tx) error) {
	e.t.Helper()
	if err := e.db.View(ctx, fn); err != nil {
		e.t.Fatal(err)
	}
}

// fixture reads activitypub/testdata/name with the local placeholders
// (the post 01HPOST, follow ids) replaced.
func fixture(t testing.TB, name string, replace ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "activitypub", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer(replace...).Replace(string(b))
}

// actor caches the actor of fixture name (an actor document) as the
// inbox endpoint would have before the job runs.
func (e *penv) actor(doc string) *murlog.RemoteActor {
	e.t.Helper()
	o, err := activitypub.Decode([]byte(doc))
	if err != nil {
		e.t.Fatal(err)
	}
	a, err := federation.ActorRecord(o, time.Now(), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.update(func(tx store.Tx) error { return tx.RemoteActors().Upsert(a) })
	return a
}

// fixtureActor caches the actor of fixture file name.
func (e *penv) fixtureActor(name string) *murlog.RemoteActor {
	e.t.Helper()
	return e.actor(fixture(e.t, name))
}

// item stores body as an inbox item signed by actorURI (to the shared
// inbox). Each is a new item, as if the same activity came twice under
// different ids, or the job ran again after a crash before Done: what the
// processing itself must take without a second write.
func (e *penv) item(actorURI, body string) string {
	e.t.Helper()
	id := murlog.NewID()
	e.update(func(tx store.Tx) error {
		a, err := tx.RemoteActors().GetByURI(actorURI)
		if err != nil {
			return err
		}
		_, err = tx.InboxItems().Put(id, a.ID, "", []byte(body), tx.Now())
		return err
	})
	return id
}

// stored returns inbox item id.
func (e *penv) stored(id string) *store.InboxItem {
	e.t.Helper()
	return find(e, func(tx store.Tx) (*store.InboxItem, error) { return tx.InboxItems().Get(id) })
}

// deliver stores body as an inbox item and processes it.
func (e *penv) deliver(actorURI, body string) error {
	e.t.Helper()
	return e.proc.Process(ctx, e.item(actorURI, body))
}

// ok delivers and fails the test on an error.
func (e *penv) ok(actorURI, body string) {
	e.t.Helper()
	if err := e.deliver(actorURI, body); err != nil {
		e.t.Fatalf("process: %v\n%s", err, body)
	}
}

// refused delivers and expects a permanent refusal.
func (e *penv) refused(actorURI, body string) error {
	e.t.Helper()
	err := e.deliver(actorURI, body)
	if !queue.IsPermanent(err) {
		e.t.Fatalf("process: err = %v; want a permanent refusal", err)
	}
	return err
}

// post creates a published local post of the owner with visibility v.
func (e *penv) post(v murlog.Visibility) (*murlog.Post, string) {
	e.t.Helper()
	at := time.Now().Add(-time.Minute)
	p := storetest.NewPost(e.owner.ID, &at, v, at)
	e.update(func(tx store.Tx) error { return tx.Posts().Create(p) })
	return p, procSite.PostURL(e.owner.Username, p.ID)
}

// aboutPost starts an env whose owner has a public post, caches the
// actor of fixture actor and delivers fixture name (01HPOST standing for
// the post) twice, as a retrying server would.
func aboutPost(t *testing.T, actor, name string) (*penv, *murlog.RemoteActor, string) {
	t.Helper()
	e := newPenv(t)
	a := e.fixtureActor(actor)
	_, uri := e.post(murlog.VisibilityPublic)
	body := fixture(t, name, "https://blog.example/@owner/01HPOST", uri)
	e.ok(a.URI, body)
	e.ok(a.URI, body)
	return e, a, body
}

func (e *penv) notifications() []murlog.NotificationKind {
	e.t.Helper()
	ns, err := e.svc.Notifications(ctx, e.owner.ID, nil, "", 100)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []murlog.NotificationKind
	for _, n := range ns {
		out = append(out, n.Kind)
	}
	return out
}

// find reads one row; nil when there is none.
func find[T any](e *penv, get func(tx store.Tx) (*T, error)) *T {
	e.t.Helper()
	var v *T
	err := e.db.View(ctx, func(tx store.Tx) (err error) { v, err = get(tx); return err })
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return v
}

func (e *penv) remotePost(uri string) *murlog.RemotePost {
	e.t.Helper()
	return find(e, func(tx store.Tx) (*murlog.RemotePost, error) { return tx.RemotePosts().GetByURI(uri) })
}

func (e *penv) timeline() []*store.TimelineItem {
	e.t.Helper()
	items, err := e.svc.Home(ctx, e.owner.ID, "", 100)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []*store.TimelineItem
	for _, it := range items {
		if it.Entry != nil {
			out = append(out, it)
		}
	}
	return out
}

// follow makes the owner follow a (accepted).
func (e *penv) follow(a *murlog.RemoteActor) *murlog.Follow {
	e.t.Helper()
	f, err := e.svc.Follow(ctx, e.owner.ID, a.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.svc.Accepted(ctx, a.ID, social.FollowRef{ActivityURI: f.ActivityURI}); err != nil {
		e.t.Fatal(err)
	}
	return f
}

// runJobs runs the queued jobs of the registry's topics once.
func (e *penv) runJobs() {
	e.t.Helper()
	reg := worker.NewRegistry()
	inbox.RegisterProcess(reg, e.deps)
	q := queue.New(e.db.Queue(), queue.Options{Policies: reg})
	w := worker.New(worker.Options{Queue: q, Inspector: q, Registry: reg, Logger: slog.New(slog.DiscardHandler)})
	if _, err := w.RunOnce(ctx, 5*time.Second); err != nil {
		e.t.Fatal(err)
	}
}

func jsonOf(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return m
}

func kinds(ks ...murlog.NotificationKind) []murlog.NotificationKind { return ks }

func queueJob(t *testing.T, topic, payload string) queue.Job {
	t.Helper()
	return queue.NewJob(topic, []byte(payload))
}

// schema is the migrated database tests copy (migrating a file per test
// cost about a second under -race).
var schema = sqlitetest.Template{Build: func(path string) error {
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	return db.Close()
}}
