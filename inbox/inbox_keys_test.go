package inbox_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/store"
)

// hostsResolver maps host names to addresses, as /etc/hosts would.
type hostsResolver map[string]netip.Addr

func (h hostsResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := h[host]; ok {
		return []netip.Addr{a}, nil
	}
	return nil, &murlog.Error{Code: murlog.EUnavailable, Message: "no such host " + host}
}

// strictInbox builds the inbox stack by hand over a test site's store,
// with an outbound client that has allow_private_network off and
// resolves names through hosts.
type strictInbox struct {
	s        *testsite.Site
	site     murlog.Site
	in       *inbox.Handler
	logs     *testsite.SyncBuffer
	fed      *federation.Handler
	verifier *federation.Verifier
}

func newStrictInbox(t *testing.T, hosts hostsResolver, tune func(*inbox.Deps)) *strictInbox {
	t.Helper()
	s := testsite.New(t)
	st := s.App.Store()
	site := murlog.Site{Scheme: "http", Domain: s.Domain()}
	logs := &testsite.SyncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	h := federation.New(federation.Deps{Site: site, Store: st})
	rv := federation.NewResolver(federation.ResolverDeps{Site: site, Store: st, Primary: h.Primary, Log: log,
		Client: outbound.New(outbound.Options{AllowHTTP: true, Resolver: hosts, Timeout: 2 * time.Second})})
	v := federation.NewVerifier(federation.VerifierDeps{Site: site, Store: st, Resolver: rv, Log: log})
	d := inbox.Deps{Personas: h, Store: st, Log: log, Verifier: v}
	if tune != nil {
		tune(&d)
	}
	return &strictInbox{s: s, site: site, in: inbox.New(d), logs: logs, fed: h, verifier: v}
}

func (si *strictInbox) post(req *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	si.in.ServeHTTP(w, req)
	return w
}

func TestInboxKeyURLsOnPrivateAddressesAreNotFetched(t *testing.T) {
	t.Parallel()
	rm := newRemote(t)
	port := rm.srv.URL[strings.LastIndexByte(rm.srv.URL, ':'):]
	hosts := hostsResolver{
		"loopback.test": netip.MustParseAddr("127.0.0.1"),
		"private.test":  netip.MustParseAddr("10.0.0.7"),
		"metadata.test": netip.MustParseAddr("169.254.169.254"),
	}
	si := newStrictInbox(t, hosts, nil)
	key := readKey(t, "rsa-a")
	for host, addr := range hosts {
		actor := "http://" + host + port + "/users/ann"
		body := create(actor, 1)
		req := newPost(t, si.site.Base(), "/inbox", body)
		if err := httpsig.SignCavage(req, body, httpsig.Key{ID: actor + "#main-key", Private: key.priv}, time.Now()); err != nil {
			t.Fatal(err)
		}
		if w := si.post(req); w.Code != http.StatusUnauthorized {
			t.Errorf("keyId on %s (%s): status %d; want 401", host, addr, w.Code)
		}
		if !strings.Contains(si.logs.String(), "refused address "+addr.String()) {
			t.Errorf("keyId on %s: no log line names the refused address %s:\n%s", host, addr, si.logs)
		}
	}
	if n := rm.hits.Load(); n != 0 {
		t.Errorf("the loopback server was reached %d times; want 0", n)
	}
}

func TestInboxRateLimits(t *testing.T) {
	t.Parallel()
	hosts := hostsResolver{"flood.test": netip.MustParseAddr("10.0.0.9")}
	si := newStrictInbox(t, hosts, func(d *inbox.Deps) {
		d.ClientRate, d.ClientBurst = 0.001, 5
		d.DomainRate, d.DomainBurst = 0.001, 2
	})
	key := readKey(t, "rsa-a")
	var got []int
	drops := &dbstat.Counter{}
	for i := 0; i < 6; i++ {
		actor := "http://flood.test/users/u" + string(rune('a'+i))
		body := create(actor, i)
		req := newPost(t, si.site.Base(), "/inbox", body)
		httpsig.SignCavage(req, body, httpsig.Key{ID: actor + "#main-key", Private: key.priv}, time.Now())
		req.RemoteAddr = "192.0.2.1:1234"
		req = req.WithContext(dbstat.WithCounter(req.Context(), drops))
		w := si.post(req)
		got = append(got, w.Code)
		if w.Code == http.StatusTooManyRequests && w.Header().Get("Retry-After") == "" {
			t.Errorf("POST %d: 429 without Retry-After", i)
		}
	}
	// Two pass the domain's bucket (and fail on the key: 10.x is not
	// fetched), three more are over it, the sixth is over the client's.
	want := []int{401, 401, 429, 429, 429, 429}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("statuses = %v; want %v", got, want)
		}
	}
	if d := drops.DropCounts(); d[dbstat.ShieldInboxDomain] != 3 || d[dbstat.ShieldInboxClient] != 1 {
		t.Errorf("shield drops %v; want 3 by the domain's bucket, 1 by the client's", d)
	}
	for _, reason := range []string{"signing domain rate limit", "client rate limit"} {
		if !strings.Contains(si.logs.String(), reason) {
			t.Errorf("no log line names %q", reason)
		}
	}
}

func TestInboxOneShotWritesDirectly(t *testing.T) {
	t.Parallel()
	rm := newRemote(t)
	a := rm.add(&remoteActor{name: "ann", key: readKey(t, "rsa-a")})
	si := newStrictInbox(t, nil, func(d *inbox.Deps) { d.OneShot = true })
	// The strict client refuses loopback: put ann's key in the store as a
	// fetch would have, so the one-shot path is what is tested here.
	body := create(rm.actorURI(a), 1)
	si.seedActor(t, rm, a)
	req := rm.signed(t, si.site.Base(), "/inbox", a, body, httpsig.Cavage, time.Now())
	if w := si.post(req); w.Code != http.StatusAccepted {
		t.Fatalf("one-shot POST: status %d; want 202 (%s)", w.Code, si.logs)
	}
	if !hasItem(t, si.s, activityID(rm.actorURI(a), 1)) {
		t.Error("one-shot POST accepted but not stored")
	}
}

// seedActor stores a remote actor with its key, as a fetch would.
func (si *strictInbox) seedActor(t *testing.T, rm *remote, a *remoteActor) {
	t.Helper()
	err := si.s.App.Store().Update(ctx, func(tx store.Tx) error {
		return tx.RemoteActors().Upsert(&murlog.RemoteActor{URI: rm.actorURI(a), Username: a.name,
			Domain: strings.TrimPrefix(rm.srv.URL, "http://"), Inbox: rm.actorURI(a) + "/inbox", Type: "Person",
			KeyID: rm.keyID(a), PublicKeyPEM: a.served.pub, FetchedAt: tx.Now()})
	})
	if err != nil {
		t.Fatal(err)
	}
}
