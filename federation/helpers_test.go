package federation_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/store"
)

var ctx = context.Background()

const apAccept = `application/ld+json; profile="https://www.w3.org/ns/activitystreams"`

// clock is a test clock that moves only when told, past the cache TTL.
type clock struct{ off atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.off.Load())) }
func (c *clock) advance(d time.Duration) { c.off.Add(int64(d)) }

// site starts a set-up test site with a movable clock.
func site(t *testing.T) (*testsite.Site, *clock) {
	t.Helper()
	c := &clock{}
	return testsite.Start(t, testsite.Options{Now: c.now}), c
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

// get fetches base+path with an Accept header and extra header pairs.
func get(t *testing.T, base, path, accept string, kv ...string) response {
	t.Helper()
	req, err := http.NewRequest("GET", base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	return send(t, req)
}

func send(t testing.TB, req *http.Request) response {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, b}
}

// storedActor is the cached remote actor uri, nil when there is none.
func storedActor(t testing.TB, s *testsite.Site, uri string) *murlog.RemoteActor {
	t.Helper()
	var a *murlog.RemoteActor
	err := s.App.Store().View(ctx, func(tx store.Tx) (err error) { a, err = tx.RemoteActors().GetByURI(uri); return err })
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func wantStatus(t *testing.T, r response, status int, what string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d; want %d\n%s", what, r.status, status, r.body)
	}
}

func wantHeader(t *testing.T, r response, key, want, what string) {
	t.Helper()
	if got := r.header.Get(key); !strings.Contains(got, want) {
		t.Errorf("%s: %s = %q; want it to contain %q", what, key, got, want)
	}
}

type postView struct {
	ID        string `json:"id"`
	PersonaID string `json:"persona_id"`
}

// createPost creates a post through the API with params merged over a
// public note.
func createPost(t *testing.T, s *testsite.Site, params map[string]any) postView {
	t.Helper()
	p := map[string]any{"content": "hello #fedi world"}
	for k, v := range params {
		p[k] = v
	}
	var v postView
	if err := s.Client.Call(ctx, "posts.create", p, &v); err != nil {
		t.Fatalf("posts.create %v: %v", params, err)
	}
	return v
}

// setSetting writes a settings row directly, as another process would.
func setSetting(t *testing.T, s *testsite.Site, key, value string) {
	t.Helper()
	if err := s.App.Store().Update(ctx, func(tx store.Tx) error { return tx.Settings().Set(key, value) }); err != nil {
		t.Fatal(err)
	}
	s.Settle(t) // the site's worker renders what it marked
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

func testsiteBare(t *testing.T) string {
	t.Helper()
	return testsite.Start(t, testsite.Options{Bare: true}).Server.URL
}

// personaID is the id of the site's persona.
func personaID(t *testing.T, s *testsite.Site) string {
	t.Helper()
	var ps struct {
		Items []struct{ ID string } `json:"items"`
	}
	if err := s.Client.Call(ctx, "personas.list", nil, &ps); err != nil || len(ps.Items) == 0 {
		t.Fatalf("personas.list: %v %v", ps, err)
	}
	return ps.Items[0].ID
}
