package social_test

import (
	"context"
	"encoding/json"
	"github.com/murlog/murlog/internal/testclock"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
	"github.com/murlog/murlog/store/storetest"
)

var ctx = context.Background()

var site = murlog.Site{Scheme: "https", Domain: "blog.example"}

// env is a social service over a real SQLite file with two personas:
// alice (open) and bob (locked).
type env struct {
	t          *testing.T
	clock      *testclock.Clock
	db         *sqlite.DB
	svc        *social.Service
	alice, bob *murlog.Persona
}

func newEnv(t *testing.T) *env {
	t.Helper()
	c := testclock.New(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	path := filepath.Join(t.TempDir(), sqlite.FileName)
	schema.CopyTo(t, path)
	db, err := sqlite.Open(ctx, path,
		sqlite.Options{Now: c.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &env{t: t, clock: c, db: db, svc: social.New(db, site)}
	e.alice = storetest.NewPersona("alice", true, c.Now())
	e.bob = storetest.NewPersona("bob", false, c.Now())
	e.bob.Locked = true
	e.update(func(tx store.Tx) error {
		if err := tx.Personas().Create(e.alice); err != nil {
			return err
		}
		return tx.Personas().Create(e.bob)
	})
	return e
}

func (e *env) update(fn func(store.Tx) error) {
	e.t.Helper()
	if err := e.db.Update(ctx, fn); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) view(fn func(store.Tx) error) {
	e.t.Helper()
	if err := e.db.View(ctx, fn); err != nil {
		e.t.Fatal(err)
	}
}

// actor caches a remote actor user@domain with a shared inbox.
func (e *env) actor(user, domain string) *murlog.RemoteActor {
	e.t.Helper()
	a := storetest.NewRemoteActor(user, domain, true, e.clock.Now())
	e.update(func(tx store.Tx) error { return tx.RemoteActors().Upsert(a) })
	return a
}

// post creates a published local post of persona p.
func (e *env) post(p *murlog.Persona, vis murlog.Visibility) *murlog.Post {
	e.t.Helper()
	at := e.clock.Now()
	post := storetest.NewPost(p.ID, &at, vis, at)
	e.update(func(tx store.Tx) error { return tx.Posts().Create(post) })
	return post
}

// jobs claims every queued job of topic and decodes their payloads.
func jobs[T any](e *env, topic string) []T {
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

// one claims the single job of topic.
func one(e *env, topic string) delivery.ActivityPayload {
	e.t.Helper()
	js := jobs[delivery.ActivityPayload](e, topic)
	if len(js) != 1 {
		e.t.Fatalf("%d %s jobs queued; want 1", len(js), topic)
	}
	return js[0]
}

// none checks that no job of topic is queued.
func none(e *env, topics ...string) {
	e.t.Helper()
	for _, topic := range topics {
		if js := jobs[json.RawMessage](e, topic); len(js) != 0 {
			e.t.Errorf("%d %s jobs queued; want none", len(js), topic)
		}
	}
}

func (e *env) persona(id string) *murlog.Persona {
	e.t.Helper()
	var p *murlog.Persona
	e.view(func(tx store.Tx) (err error) { p, err = tx.Personas().Get(id); return err })
	return p
}

// notifications lists a persona's notification kinds, newest first.
func (e *env) notifications(p *murlog.Persona) []murlog.NotificationKind {
	e.t.Helper()
	ns, err := e.svc.Notifications(ctx, p.ID, nil, "", 100)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []murlog.NotificationKind
	for _, n := range ns {
		out = append(out, n.Kind)
	}
	return out
}

func code(err error) murlog.Code { return murlog.ErrorCode(err) }

func wantCode(t *testing.T, what string, err error, want murlog.Code) {
	t.Helper()
	if code(err) != want {
		t.Errorf("%s: err = %v; want %s", what, err, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FollowRef names a follow by its activity id.
func FollowRef(uri string) social.FollowRef { return social.FollowRef{ActivityURI: uri} }

// schema is the migrated database tests copy (migrating a file per test
// cost about a second under -race).
var schema = sqlitetest.Template{Build: func(path string) error {
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	return db.Close()
}}
