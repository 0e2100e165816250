package inbox_test

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/internal/testclock"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/outbound"
)

// thirdServer is a server whose name garbage keyIds borrow: it counts
// every GET and serves the actors it has.
type thirdServer struct {
	*remote
	gets   atomic.Int64
	byHost sync.Map // host name → *atomic.Int64
}

func newThirdServer(t *testing.T) *thirdServer {
	t.Helper()
	ts := &thirdServer{remote: &remote{acts: map[string]*remoteActor{}}}
	ts.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.gets.Add(1)
		host := r.Host[:strings.LastIndexByte(r.Host, ':')]
		n, _ := ts.byHost.LoadOrStore(host, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		// The actors' ids are under the name they were asked by.
		name := strings.TrimPrefix(r.URL.Path, "/users/")
		ts.mu.Lock()
		a := ts.acts[name]
		ts.mu.Unlock()
		if a == nil {
			http.NotFound(w, r)
			return
		}
		id := "http://" + r.Host + r.URL.Path
		w.Header().Set("Content-Type", "application/activity+json")
		fmt.Fprintf(w, `{"@context":"https://www.w3.org/ns/activitystreams","id":%q,"type":"Person","preferredUsername":%q,"inbox":%q,`+
			`"publicKey":{"id":%q,"owner":%q,"publicKeyPem":%q}}`, id, name, id+"/inbox", id+"#main-key", id, a.served.pub)
	}))
	t.Cleanup(ts.srv.Close)
	return ts
}

func (ts *thirdServer) port() string { return ts.srv.URL[strings.LastIndexByte(ts.srv.URL, ':'):] }

// budgetEnv is the inbox stack over a test site's store with an
// outbound client that may reach loopback (the third server) under the
// given host names, a settable clock, and request buckets wide open, so
// that only the key-fetch budget stands between a flood and the third
// server.
type budgetEnv struct {
	clk  *testclock.Clock
	ts   *thirdServer
	in   *inbox.Handler
	logs *testsite.SyncBuffer
	site murlog.Site
}

func newBudgetEnv(t *testing.T, names ...string) *budgetEnv {
	t.Helper()
	e := &budgetEnv{clk: testclock.New(time.Now()), ts: newThirdServer(t), logs: &testsite.SyncBuffer{}}
	hosts := hostsResolver{}
	for _, n := range names {
		hosts[n] = netip.MustParseAddr("127.0.0.1")
	}
	s := testsite.New(t)
	st := s.App.Store()
	e.site = murlog.Site{Scheme: "http", Domain: s.Domain()}
	log := slog.New(slog.NewJSONHandler(e.logs, nil))
	h := federation.New(federation.Deps{Site: e.site, Store: st})
	rv := federation.NewResolver(federation.ResolverDeps{Site: e.site, Store: st, Primary: h.Primary, Log: log, Now: e.clk.Now,
		Client: outbound.New(outbound.Options{AllowHTTP: true, AllowPrivate: true, Resolver: hosts, Timeout: 2 * time.Second})})
	v := federation.NewVerifier(federation.VerifierDeps{Site: e.site, Store: st, Resolver: rv, Log: log, Now: e.clk.Now})
	e.in = inbox.New(inbox.Deps{Personas: h, Store: st, Log: log, Verifier: v,
		ClientRate: 1e9, ClientBurst: 1e9, DomainRate: 1e9, DomainBurst: 1e9})
	return e
}

// post sends req to the inbox.
func (e *budgetEnv) post(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	e.in.ServeHTTP(rec, req)
	return rec
}

// garbage is garbage() by actor on the site, dated now.
func (e *budgetEnv) garbage(t *testing.T, actor string, n int) *http.Request {
	return garbage(t, e.site.Base(), actor, n, e.clk.Now())
}

// garbage is a POST whose signature parses, is in the window, covers
// what must be covered and has a digest that matches, but whose
// signature bytes are garbage: everything cheap passes, so only a key
// fetch could tell.
func garbage(t *testing.T, base string, actor string, n int, at time.Time) *http.Request {
	t.Helper()
	body := create(actor, n)
	req := newPost(t, base, "/inbox", body)
	req.Header.Set("Date", at.UTC().Format(http.TimeFormat))
	sum := sha256.Sum256(body)
	req.Header.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
	req.Header.Set("Signature", fmt.Sprintf(`keyId="%s#main-key",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="%s"`,
		actor, base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("garbage %d", n)))))
	return req
}

// The reproduction: 1,000 garbage-signed POSTs whose keyIds name
// accounts on a third server. murlog fetches at most the budget (one
// host: its burst), answers the rest 503 with Retry-After, and a real
// account of that server is heard again once the budget refills.
func TestKeyFetchFloodIsBudgeted(t *testing.T) {
	t.Parallel()
	e := newBudgetEnv(t, "third.test")
	origin := "http://third.test" + e.ts.port()
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < 1000; i += 8 {
				rec := e.post(e.garbage(t, fmt.Sprintf("%s/users/u%d", origin, i), i))
				if rec.Code == http.StatusServiceUnavailable && rec.Header().Get("Retry-After") == "" {
					t.Errorf("503 without Retry-After")
				}
				mu.Lock()
				statuses[rec.Code]++
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	if n := e.ts.gets.Load(); n > federation.DefaultFetchDomainBurst {
		t.Errorf("1,000 garbage POSTs made %d GETs of the third server; want at most the per-host burst %d", n, federation.DefaultFetchDomainBurst)
	}
	if statuses[http.StatusServiceUnavailable] < 1000-federation.DefaultFetchDomainBurst || statuses[http.StatusAccepted] != 0 {
		t.Errorf("statuses = %v; want the fetched ones 401, the rest 503, none accepted", statuses)
	}
	if !strings.Contains(e.logs.String(), "key fetch budget of signing host third.test spent") {
		t.Errorf("no log line names the spent budget:\n%.2000s", e.logs)
	}

	// A real account of the third server, signing properly: refused while
	// the budget is spent, accepted once it has refilled.
	ann := e.ts.add(&remoteActor{name: "ann", key: readKey(t, "rsa-a")})
	annURI := origin + "/users/ann"
	sign := func(n int) *http.Request {
		body := create(annURI, n)
		req := newPost(t, e.site.Base(), "/inbox", body)
		if err := httpsig.SignCavage(req, body, httpsig.Key{ID: annURI + "#main-key", Private: ann.key.priv}, e.clk.Now()); err != nil {
			t.Fatal(err)
		}
		return req
	}
	if rec := e.post(sign(1)); rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("valid POST with the budget spent: status %d; want 503", rec.Code)
	}
	e.clk.Advance(time.Duration(1/federation.DefaultFetchDomainRate*float64(time.Second)) + time.Second)
	if rec := e.post(sign(2)); rec.Code != http.StatusAccepted {
		t.Fatalf("valid POST after the budget refilled: status %d; want 202\n%.3000s", rec.Code, e.logs)
	}
}

// Spread over many host names of one machine, a flood is held to the
// total budget, and each name to its own.
func TestKeyFetchFloodOverManyHostsIsBudgetedInTotal(t *testing.T) {
	t.Parallel()
	var names []string
	for i := 0; i < 200; i++ {
		names = append(names, fmt.Sprintf("h%d.third.test", i))
	}
	e := newBudgetEnv(t, names...)
	for i := 0; i < 1000; i++ {
		e.post(e.garbage(t, fmt.Sprintf("http://%s%s/users/u%d", names[i%200], e.ts.port(), i), i))
	}
	if n := e.ts.gets.Load(); n > federation.DefaultFetchTotalBurst {
		t.Errorf("1,000 garbage POSTs over 200 host names made %d GETs; want at most the total burst %d", n, federation.DefaultFetchTotalBurst)
	}
	e.ts.byHost.Range(func(k, v any) bool {
		if n := v.(*atomic.Int64).Load(); n > federation.DefaultFetchDomainBurst {
			t.Errorf("host %s was asked %d times; want at most %d", k, n, federation.DefaultFetchDomainBurst)
		}
		return true
	})
}

// One key asked for many times, at once and then again: one fetch, and
// none more until the failure is forgotten.
func TestKeyFetchOfOneKeyIsCollapsedAndItsFailureRemembered(t *testing.T) {
	t.Parallel()
	e := newBudgetEnv(t, "third.test")
	actor := "http://third.test" + e.ts.port() + "/users/nobody"
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if rec := e.post(e.garbage(t, actor, i)); rec.Code != http.StatusUnauthorized {
				t.Errorf("POST %d naming an actor the server does not have: %d; want 401", i, rec.Code)
			}
		}(i)
	}
	wg.Wait()
	for _, step := range []struct {
		advance time.Duration
		gets    int64
	}{{0, 1}, {federation.FailedFor - time.Second, 1}, {2 * time.Second, 2}} {
		e.clk.Advance(step.advance)
		e.post(e.garbage(t, actor, 100))
		if n := e.ts.gets.Load(); n != step.gets {
			t.Fatalf("after %v more: %d GETs in all; want %d", step.advance, n, step.gets)
		}
	}
}

// A keyId on another host than the activity's actor is refused before
// any fetch: it could never verify.
func TestKeyIDOffTheActorsHostIsNotFetched(t *testing.T) {
	t.Parallel()
	e := newBudgetEnv(t, "third.test")
	req := e.garbage(t, "http://third.test"+e.ts.port()+"/users/x", 1)
	// The body names an actor elsewhere; the keyId stays on the third server.
	body := create("http://elsewhere.test/users/x", 1)
	sum := sha256.Sum256(body)
	forged := newPost(t, e.site.Base(), "/inbox", body)
	forged.Header.Set("Date", req.Header.Get("Date"))
	forged.Header.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
	forged.Header.Set("Signature", req.Header.Get("Signature"))
	if rec := e.post(forged); rec.Code != http.StatusUnauthorized || e.ts.gets.Load() != 0 {
		t.Fatalf("status %d, %d GETs; want 401 and none", rec.Code, e.ts.gets.Load())
	}
	if !strings.Contains(e.logs.String(), "is not on the keyId's host") {
		t.Errorf("no log line says why:\n%s", e.logs)
	}
}
