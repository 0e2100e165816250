package deliver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/murlog/murlog/internal/testclock"
	"github.com/murlog/murlog/prerender"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery/deliver"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/persona"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
	"github.com/murlog/murlog/worker"
)

var ctx = context.Background()

// loopback resolves every name to 127.0.0.1, so hNNN.test:port reaches
// the sink server on that port.
type loopback struct{}

func (loopback) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// got is one POST a sink received.
type got struct {
	Host, Path string
	Activity   map[string]any
	Verified   error // nil when the signature verified with the persona's key
}

func (g got) typ() string { s, _ := g.Activity["type"].(string); return s }

func (g got) object() map[string]any { m, _ := g.Activity["object"].(map[string]any); return m }

// sink is a loopback server standing for every remote host: it answers
// 202 (or the status set for a path), verifies each POST's signature with
// httpsig against the persona's public key and records it.
type sink struct {
	srv    *httptest.Server
	port   string
	keyID  string
	pub    any
	mu     sync.Mutex
	posts  []got
	status map[string]int // by path
}

func newSink(t *testing.T, keyID, publicPEM string) *sink {
	t.Helper()
	pub, err := httpsig.ParsePublicKeyPEM(publicPEM)
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{keyID: keyID, pub: pub, status: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	_, s.port, _ = net.SplitHostPort(s.srv.Listener.Addr().String())
	return s
}

func (s *sink) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	g := got{Host: r.Host, Path: r.URL.Path}
	json.Unmarshal(body, &g.Activity)
	g.Verified = s.verify(r, body)
	s.mu.Lock()
	s.posts = append(s.posts, g)
	st, ok := s.status[r.URL.Path]
	s.mu.Unlock()
	if !ok {
		st = http.StatusAccepted
	}
	if st == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "600") // come back in ten minutes
	}
	w.WriteHeader(st)
}

func (s *sink) verify(r *http.Request, body []byte) error {
	sig, err := httpsig.Parse(r, true, httpsig.VerifyOptions{Now: time.Now()})
	if err != nil {
		return err
	}
	if sig.KeyID != s.keyID {
		return fmt.Errorf("keyId %s; want %s", sig.KeyID, s.keyID)
	}
	if err := sig.Verify(s.pub); err != nil {
		return err
	}
	return httpsig.VerifyDigest(r, body)
}

func (s *sink) setStatus(path string, status int) {
	s.mu.Lock()
	s.status[path] = status
	s.mu.Unlock()
}

// take returns and forgets what the sink received.
func (s *sink) take() []got {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.posts
	s.posts = nil
	return out
}

// url is an address on host (a name like h001.test) served by the sink.
func (s *sink) url(host, path string) string { return "http://" + host + ":" + s.port + path }

// env is the delivery jobs over a real SQLite file, with one persona
// (real keys), the post, persona and social services writing to it, a
// worker running the post and delivery jobs, and the sink.
type env struct {
	t        *testing.T
	clock    *testclock.Clock
	db       *sqlite.DB
	site     murlog.Site
	persona  *murlog.Persona
	reg      *worker.Registry
	worker   *worker.Worker
	sink     *sink
	posts    *post.Service
	personas *persona.Service
	social   *social.Service
	domains  *domains.Service
	resolver *resolver
}

func newEnv(t *testing.T) *env {
	t.Helper()
	// Nanoseconds, which the store drops: versions must survive that.
	c := testclock.New(time.Date(2026, 5, 1, 9, 0, 0, 123456789, time.UTC))
	db, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), sqlite.FileName),
		sqlite.Options{Now: c.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	pub, priv, err := persona.NewKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	now := c.Now()
	p := &murlog.Persona{ID: murlog.NewID(), Username: "alice", DisplayName: "Alice", Primary: true, Discoverable: true,
		ShowFollows: true, PublicKeyPEM: pub, PrivateKeyPEM: priv, CreatedAt: now, UpdatedAt: now}
	if err := db.Update(ctx, func(tx store.Tx) error { return tx.Personas().Create(p) }); err != nil {
		t.Fatal(err)
	}
	site := murlog.Site{Scheme: "https", Domain: "local.test"}
	e := &env{t: t, clock: c, db: db, site: site, persona: p, reg: worker.NewRegistry(), domains: domains.New(db),
		sink: newSink(t, site.KeyID(p.Username), pub), personas: persona.New(db), social: social.New(db, site)}
	e.resolver = &resolver{m: map[string]*murlog.RemoteActor{}}
	e.posts = post.New(db, site).WithMentions(e.resolver)
	out := outbound.New(outbound.Options{AllowPrivate: true, AllowHTTP: true, Resolver: loopback{}, Timeout: 5 * time.Second})
	t.Cleanup(out.Close)
	post.RegisterJobs(e.reg, db)
	deliver.Register(e.reg, deliver.Deps{Store: db, Site: site, Out: out, Keys: federation.NewKeys(site, nil),
		Domains: e.domains})
	// Registered to be held (notRebuilds): a hold names registered topics.
	e.reg.Handle(prerender.TopicRebuild, func(context.Context, *queue.Job) error { return nil }, queue.Policy{})
	e.worker = worker.New(worker.Options{Queue: queue.New(db.Queue(), queue.Options{Policies: e.reg}), Registry: e.reg,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Hold: notRebuilds})
	return e
}

// run runs jobs until none is due and returns how many ran.
func (e *env) run() int {
	e.t.Helper()
	total := 0
	for {
		n, err := e.worker.RunBatch(ctx, 100, 30*time.Second)
		if err != nil {
			e.t.Fatalf("worker: %v", err)
		}
		if n == 0 {
			return total
		}
		total += n
	}
}

// actor stores a remote actor user on host (served by the sink), with a
// shared inbox when shared is set.
func (e *env) actor(user, host string, shared bool) *murlog.RemoteActor {
	e.t.Helper()
	now := e.clock.Now()
	base := e.sink.url(host, "/users/"+user)
	a := &murlog.RemoteActor{URI: base, Username: user, Domain: host + ":" + e.sink.port, URL: e.sink.url(host, "/@"+user),
		Inbox: base + "/inbox", Type: "Person", KeyID: base + "#main-key", PublicKeyPEM: "pem", FetchedAt: now,
		CreatedAt: now, UpdatedAt: now}
	if shared {
		a.SharedInbox = e.sink.url(host, "/inbox")
	}
	e.update(func(tx store.Tx) error { return tx.RemoteActors().Upsert(a) })
	return a
}

// follower makes a follow the persona: an accepted follower.
func (e *env) follower(a *murlog.RemoteActor) {
	e.t.Helper()
	e.update(func(tx store.Tx) error {
		return tx.Followers().Create(&murlog.Follower{ID: murlog.NewID(), PersonaID: e.persona.ID, ActorID: a.ID,
			ActivityURI: a.URI + "#follows/1", State: murlog.FollowAccepted, CreatedAt: e.clock.Now()})
	})
}

// followers makes n followers on each of hosts h000.test…, with shared
// inboxes when shared is set, and returns the hosts.
func (e *env) followers(hosts, perHost int, shared bool, prefix string) []string {
	e.t.Helper()
	var hs []string
	for h := range hosts {
		host := fmt.Sprintf("%s%03d.test", prefix, h)
		hs = append(hs, host)
		for u := range perHost {
			e.follower(e.actor(fmt.Sprintf("u%d", u), host, shared))
		}
	}
	return hs
}

func (e *env) update(fn func(tx store.Tx) error) {
	e.t.Helper()
	if err := e.db.Update(ctx, fn); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) publish(in post.CreateInput) *murlog.Post {
	e.t.Helper()
	if in.Content == "" {
		in.Content = "hello"
	}
	p, err := e.posts.Create(ctx, in)
	if err != nil {
		e.t.Fatalf("Create: %v", err)
	}
	return p
}

// jobs counts the jobs of topic in any state.
func (e *env) jobs(topic string) int {
	e.t.Helper()
	n := 0
	for _, st := range []queue.State{queue.StatePending, queue.StateScheduled, queue.StateRunning, queue.StateDone, queue.StateDead} {
		infos, err := e.db.Queue().List(ctx, queue.ListQuery{State: st, Topic: topic, Limit: 100})
		if err != nil {
			e.t.Fatal(err)
		}
		n += len(infos)
	}
	return n
}

// state is the only job of topic's state.
func (e *env) state(topic string) queue.State {
	e.t.Helper()
	for _, st := range []queue.State{queue.StatePending, queue.StateScheduled, queue.StateRunning, queue.StateDone, queue.StateDead} {
		infos, err := e.db.Queue().List(ctx, queue.ListQuery{State: st, Topic: topic, Limit: 10})
		if err != nil {
			e.t.Fatal(err)
		}
		if len(infos) > 0 {
			return st
		}
	}
	return ""
}

func (e *env) summary(postID string) *store.DeliverySummary {
	e.t.Helper()
	var s *store.DeliverySummary
	if err := e.db.View(ctx, func(tx store.Tx) error {
		var err error
		s, err = tx.Deliveries().Summary(postID)
		return err
	}); err != nil {
		e.t.Fatal(err)
	}
	return s
}

// byInbox indexes what the sink got by host+path.
func byInbox(gs []got) map[string]got {
	m := map[string]got{}
	for _, g := range gs {
		m[strings.Split(g.Host, ":")[0]+g.Path] = g
	}
	return m
}

// verified fails the test for every POST whose signature did not verify.
func verified(t *testing.T, gs []got) {
	t.Helper()
	for _, g := range gs {
		if g.Verified != nil {
			t.Errorf("POST %s%s: signature does not verify: %v", g.Host, g.Path, g.Verified)
		}
	}
}

// resolver stands for the WebFinger resolver: it knows the actors put
// in it by user@host.
type resolver struct {
	mu sync.Mutex
	m  map[string]*murlog.RemoteActor
}

func (r *resolver) add(user, host string, a *murlog.RemoteActor) {
	r.mu.Lock()
	r.m[user+"@"+host] = a
	r.mu.Unlock()
}

func (r *resolver) ResolveMention(_ context.Context, user, host string) (string, string, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.m[user+"@"+host]
	if !ok {
		return "", "", "", murlog.NotFound("account")
	}
	return a.URI, a.URL, a.Inbox, nil
}

func strs(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func has(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// personaUpdate is an edit of the persona's display name and whether it
// shows its follow lists (nil leaves each alone).
func personaUpdate(e *env, name *string, showFollows *bool) persona.Update {
	return persona.Update{ID: e.persona.ID, DisplayName: name, ShowFollows: showFollows}
}

// notRebuilds keeps the workers of these tests to delivery: the posts
// they publish also enqueue artifact rebuilds (the store's triggers),
// which are the app's to run, not this package's, and would only be
// counted among the jobs run.
func notRebuilds(_ context.Context, topic string) bool { return topic == prerender.TopicRebuild }
