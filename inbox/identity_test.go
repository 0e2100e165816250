package inbox_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/store"
)

type identityStep struct {
	who    *remoteActor
	n      int
	status int
}

// runIdentitySteps posts each step's Create through post and checks the
// answer: 202, or 503 with Retry-After.
func runIdentitySteps(t *testing.T, rm *remote, base string, steps []identityStep, drops *dbstat.Counter, post func(*http.Request) *httptest.ResponseRecorder) {
	t.Helper()
	for i, st := range steps {
		req := rm.signed(t, base, "/inbox", st.who, create(rm.actorURI(st.who), st.n), httpsig.Cavage, time.Now())
		req.RemoteAddr = "192.0.2.1:1234"
		req = req.WithContext(dbstat.WithCounter(req.Context(), drops))
		w := post(req)
		if w.Code != st.status || (st.status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "") {
			t.Errorf("step %d (%s #%d): HTTP %d, Retry-After %q; want %d (with Retry-After when 503)",
				i+1, st.who.name, st.n, w.Code, w.Header().Get("Retry-After"), st.status)
		}
	}
}

// TestInboxLimitsByIdentity: after the signature verified, one actor
// cannot spend its domain's allowance and one domain cannot spend the
// site's; each excess is a 503 with Retry-After, counted by its limit.
func TestInboxLimitsByIdentity(t *testing.T) {
	t.Parallel()
	rm := newRemote(t)
	key := readKey(t, "rsa-a")
	ann := rm.add(&remoteActor{name: "ann", key: key})
	bob := rm.add(&remoteActor{name: "bob", key: key})
	cyd := rm.add(&remoteActor{name: "cyd", key: key})
	si := newStrictInbox(t, nil, func(d *inbox.Deps) {
		d.ActorRate, d.ActorBurst = 0.001, 2
		d.SignerRate, d.SignerBurst = 0.001, 3
	})
	for _, a := range []*remoteActor{ann, bob, cyd} {
		si.seedActor(t, rm, a)
	}
	drops := &dbstat.Counter{}
	runIdentitySteps(t, rm, si.site.Base(), []identityStep{
		{ann, 1, 202}, {ann, 2, 202},
		{ann, 3, 503}, // ann's own limit; bob may still send
		{bob, 1, 202}, // the domain's third
		{cyd, 1, 503}, // the domain's limit, though cyd sent nothing yet
	}, drops, si.post)
	if d := drops.DropCounts(); d[dbstat.ShieldInboxActor] != 1 || d[dbstat.ShieldInboxSigner] != 1 {
		t.Errorf("drops %v; want 1 by the actor's limit and 1 by the domain's", d)
	}
	if !hasItem(t, si.s, activityID(rm.actorURI(bob), 1)) || hasItem(t, si.s, activityID(rm.actorURI(ann), 3)) {
		t.Error("bob's accepted Create was not stored, or ann's refused one was")
	}
}

// TestInboxLimitsHoldAcrossProcesses: under CGI each POST is a process of
// its own whose buckets start full; the per-minute counts every process
// shares hold the block's and the actor's limits.
func TestInboxLimitsHoldAcrossProcesses(t *testing.T) {
	t.Parallel()
	rm := newRemote(t)
	key := readKey(t, "rsa-a")
	ann := rm.add(&remoteActor{name: "ann", key: key})
	bob := rm.add(&remoteActor{name: "bob", key: key})
	si := newStrictInbox(t, nil, nil)
	for _, a := range []*remoteActor{ann, bob} {
		si.seedActor(t, rm, a)
	}
	st := si.s.App.Store()
	// One handler per POST, as one CGI process per request.
	process := func(req *http.Request) *httptest.ResponseRecorder {
		blocks := httpd.NewBlockShield("inbox", 4, dbstat.ShieldBlockInbox)
		blocks.Counter, blocks.Refusal = store.ShieldHits{Store: st}, murlog.EUnavailable
		h := inbox.New(inbox.Deps{Personas: si.fed, Store: st, Verifier: si.verifier, OneShot: true,
			ActorRate: 2.0 / 60, Blocks: blocks, Identities: store.ShieldHits{Store: st}})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	drops := &dbstat.Counter{}
	runIdentitySteps(t, rm, si.site.Base(), []identityStep{
		{ann, 1, 202}, {ann, 2, 202},
		{ann, 3, 503}, // ann's two a minute
		{bob, 1, 202},
		{bob, 2, 503}, // the block's four a minute (ann's refused one counted)
	}, drops, process)
	if d := drops.DropCounts(); d[dbstat.ShieldInboxActor] != 1 || d[dbstat.ShieldBlockInbox] != 1 {
		t.Errorf("drops %v; want 1 by the actor's limit and 1 by the block's", d)
	}
}
