package inbox_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/store"
)

func TestInboxAcceptsSignedActivities(t *testing.T) {
	t.Parallel()
	s, c := inboxSite(t)
	rm := newRemote(t)
	a := rm.add(&remoteActor{name: "ann", key: readKey(t, "rsa-a")})
	g := rm.add(&remoteActor{name: "gus", key: readKey(t, "rsa-b"), slash: true})
	ed, err := httpsig.ParsePrivateKeyPEM(readTestdataFile(t, "ed-a.pkcs8.pem"))
	if err != nil {
		t.Fatal(err)
	}
	e := rm.add(&remoteActor{name: "eve", key: readKey(t, "rsa-a"), ed: ed})
	cases := []struct {
		name   string
		path   string
		actor  *remoteActor
		scheme httpsig.Scheme
	}{
		{"cavage, #main-key, shared inbox", "/inbox", a, httpsig.Cavage},
		{"rfc9421, #main-key, persona inbox", "/@alice/inbox", a, httpsig.RFC9421},
		{"cavage, /main-key (GoToSocial)", "/inbox", g, httpsig.Cavage},
		{"rfc9421, /main-key", "/@alice/inbox", g, httpsig.RFC9421},
		{"rfc9421, Ed25519 (FEP-521a Multikey)", "/inbox", e, httpsig.RFC9421},
		// Servers that followed alice on murlog 0.8.1 still deliver to
		// its inbox: the old path is served, not redirected.
		{"cavage, murlog 0.8.1's persona inbox", "/users/alice/inbox", a, httpsig.Cavage},
		{"rfc9421, murlog 0.8.1's persona inbox", "/users/ALICE/inbox", g, httpsig.RFC9421},
	}
	for i, tc := range cases {
		body := create(rm.actorURI(tc.actor), i)
		r := send(t, rm.signed(t, s.Server.URL, tc.path, tc.actor, body, tc.scheme, c.now()))
		wantStatus(t, r, http.StatusAccepted, tc.name)
		if !hasItem(t, s, activityID(rm.actorURI(tc.actor), i)) {
			t.Errorf("%s: 202 but no inbox item", tc.name)
		}
	}
	if n := inboxJobs(t, s); n != len(cases) {
		t.Errorf("inbox.process jobs = %d; want %d", n, len(cases))
	}
	err = s.App.Store().View(ctx, func(tx store.Tx) error {
		alice, err := tx.Personas().GetByUsername("alice")
		if err != nil {
			return err
		}
		for i := len(cases) - 2; i < len(cases); i++ {
			it, err := tx.InboxItems().Get(federationItem(rm.actorURI(cases[i].actor), i))
			if err != nil || it.PersonaID != alice.ID {
				t.Errorf("%s: item %+v, %v; want one for alice's inbox", cases[i].name, it, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := rm.hits.Load(); n != 3 {
		t.Errorf("remote answered %d requests; want 3 (one actor fetch per key, then the cache)", n)
	}
	if st := storedActor(t, s, rm.actorURI(a)); st == nil || st.DisplayName != "Remote ann" || st.SharedInbox != rm.srv.URL+"/inbox" {
		t.Errorf("stored actor = %+v; want ann with her shared inbox", st)
	}

	// The same activity again: 202, still one item and one job.
	body := create(rm.actorURI(a), 0)
	wantStatus(t, send(t, rm.signed(t, s.Server.URL, "/inbox", a, body, httpsig.Cavage, c.now())), http.StatusAccepted, "duplicate")
	if n := inboxJobs(t, s); n != len(cases) {
		t.Errorf("after a duplicate: inbox.process jobs = %d; want %d", n, len(cases))
	}
	wantLog(t, s, "duplicate", "inbox duplicate", activityID(rm.actorURI(a), 0))

	// The item holds the body as received, for the processing job.
	err = s.App.Store().View(ctx, func(tx store.Tx) error {
		it, err := tx.InboxItems().Get(federationItem(rm.actorURI(a), 0))
		if err != nil {
			return err
		}
		if !bytes.Equal(it.Body, create(rm.actorURI(a), 0)) || it.PersonaID != "" || it.Done {
			t.Errorf("item = %+v; want the body, shared inbox, not done", it)
		}
		if st := storedActor(t, s, rm.actorURI(a)); it.ActorID != st.ID {
			t.Errorf("item actor = %q; want the signer's local id %q", it.ActorID, st.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestInboxRefusesBadInput(t *testing.T) {
	t.Parallel()
	s, c := inboxSite(t)
	rm := newRemote(t)
	a := rm.add(&remoteActor{name: "ann", key: readKey(t, "rsa-a")})
	b := rm.add(&remoteActor{name: "bob", key: readKey(t, "rsa-b")})
	huge := rm.add(&remoteActor{name: "huge", key: readKey(t, "rsa-b"), summary: strings.Repeat("<p>long</p>", 1<<20)})
	// Warm ann's and bob's keys, so the refusals below are the
	// verifier's, not a fetch's.
	for i, x := range []*remoteActor{a, b} {
		wantStatus(t, send(t, rm.signed(t, s.Server.URL, "/inbox", x, create(rm.actorURI(x), 1000+i), httpsig.Cavage, c.now())), http.StatusAccepted, "warm-up")
	}
	base, ann := s.Server.URL, rm.actorURI(a)
	tags := make([]map[string]string, 101)
	for i := range tags {
		tags[i] = map[string]string{"type": "Hashtag", "name": "#t"}
	}
	cases := []struct {
		name   string
		status int
		reason string
		req    func(n int) *http.Request
	}{
		{"forged signature (bob's key under ann's keyId)", 401, "signature invalid", func(n int) *http.Request {
			req := newPost(t, base, "/inbox", create(ann, n))
			httpsig.SignCavage(req, create(ann, n), httpsig.Key{ID: rm.keyID(a), Private: b.key.priv}, c.now())
			return req
		}},
		{"valid signature by another actor than actor", 401, "is not the signer", func(n int) *http.Request {
			return rm.signed(t, base, "/inbox", b, create(ann, n), httpsig.Cavage, c.now())
		}},
		{"digest unsigned", 401, "digest header not signed", func(n int) *http.Request {
			req := newPost(t, base, "/inbox", create(ann, n))
			signCavageWith(t, req, create(ann, n), rm.keyID(a), a.key.priv, []string{"(request-target)", "host", "date"}, c.now())
			return req
		}},
		{"date unsigned", 401, "date header not signed", func(n int) *http.Request {
			req := newPost(t, base, "/inbox", create(ann, n))
			signCavageWith(t, req, create(ann, n), rm.keyID(a), a.key.priv, []string{"(request-target)", "host", "digest"}, c.now())
			return req
		}},
		{"created unsigned (RFC 9421)", 401, "created parameter missing", func(n int) *http.Request {
			req := rm.signed(t, base, "/inbox", a, create(ann, n), httpsig.RFC9421, c.now())
			in := req.Header.Get("Signature-Input")
			i := strings.Index(in, ";created=")
			j := strings.Index(in[i+1:], ";")
			req.Header.Set("Signature-Input", in[:i]+in[i+1+j:])
			return req
		}},
		{"stale Date", 401, "expired", func(n int) *http.Request {
			return rm.signed(t, base, "/inbox", a, create(ann, n), httpsig.Cavage, c.now().Add(-2*time.Hour))
		}},
		{"future Date", 401, "future", func(n int) *http.Request {
			return rm.signed(t, base, "/inbox", a, create(ann, n), httpsig.Cavage, c.now().Add(2*time.Hour))
		}},
		{"digest mismatch", 401, "digest mismatch", func(n int) *http.Request {
			req := rm.signed(t, base, "/inbox", a, create(ann, n), httpsig.Cavage, c.now())
			other := create(ann, n+1)
			req.Body, req.ContentLength = readCloser(other), int64(len(other))
			return req
		}},
		{"body over 1 MB (Content-Length)", 413, "over 1 MB", func(n int) *http.Request {
			big := append(create(ann, n), bytes.Repeat([]byte(" "), 1<<20)...)
			return rm.signed(t, base, "/inbox", a, big, httpsig.Cavage, c.now())
		}},
		{"body over 1 MB (chunked)", 413, "body over 1 MB", func(n int) *http.Request {
			big := append(create(ann, n), bytes.Repeat([]byte(" "), 1<<20)...)
			req := rm.signed(t, base, "/inbox", a, big, httpsig.Cavage, c.now())
			req.ContentLength = -1
			req.Body = readCloser(big)
			return req
		}},
		{"malformed JSON", 400, "malformed JSON", func(n int) *http.Request {
			return rm.signed(t, base, "/inbox", a, []byte(`{"id": "`+activityID(ann, n)+`", "type": "Create",`), httpsig.Cavage, c.now())
		}},
		{"array over its cap", 400, "MaxTags", func(n int) *http.Request {
			body := []byte(fmt.Sprintf(`{"id":%q,"type":"Create","actor":%q,"object":{"id":%q,"type":"Note","tag":%s}}`,
				activityID(ann, n), ann, ann+"/statuses/x", mustJSON(tags)))
			return rm.signed(t, base, "/inbox", a, body, httpsig.Cavage, c.now())
		}},
		{"activity id on another host", 400, "is not on its actor's host", func(n int) *http.Request {
			body := []byte(fmt.Sprintf(`{"id":"https://victim.example/activities/%d","type":"Like","actor":%q,"object":"https://victim.example/x"}`, n, ann))
			return rm.signed(t, base, "/inbox", a, body, httpsig.Cavage, c.now())
		}},
		{"unsigned", 401, "signature", func(n int) *http.Request { return newPost(t, base, "/inbox", create(ann, n)) }},
		{"actor with a 10 MB summary", 401, "response is over", func(n int) *http.Request {
			return rm.signed(t, base, "/inbox", huge, create(rm.actorURI(huge), n), httpsig.Cavage, c.now())
		}},
		{"wrong content type", 415, "content type", func(n int) *http.Request {
			req := rm.signed(t, base, "/inbox", a, create(ann, n), httpsig.Cavage, c.now())
			req.Header.Set("Content-Type", "text/plain")
			return req
		}},
		{"unknown persona", 404, "no persona", func(n int) *http.Request {
			return rm.signed(t, base, "/@nobody/inbox", a, create(ann, n), httpsig.Cavage, c.now())
		}},
	}
	jobs := inboxJobs(t, s)
	for i, tc := range cases {
		n := 2000 + i
		req := tc.req(n)
		act := activityID(ann, n)
		switch {
		case strings.Contains(req.Header.Get("Signature"), "/users/huge"):
			act = activityID(rm.actorURI(huge), n)
		case strings.Contains(tc.name, "another host"):
			act = fmt.Sprintf("https://victim.example/activities/%d", n)
		}
		r := send(t, req)
		if r.status != tc.status {
			t.Errorf("%s: status %d; want %d (%s)", tc.name, r.status, tc.status, r.body)
		}
		if hasItem(t, s, act) {
			t.Errorf("%s: refused, yet the activity was stored", tc.name)
		}
		wantLog(t, s, tc.name, "inbox refused", fmt.Sprintf(`"status":%d`, tc.status), tc.reason)
	}
	if n := inboxJobs(t, s); n != jobs {
		t.Errorf("inbox.process jobs went from %d to %d over refused requests", jobs, n)
	}
	if storedActor(t, s, rm.actorURI(huge)) != nil {
		t.Error("the actor with a 10 MB summary was stored")
	}
}

func federationItem(actor string, n int) string { return inbox.ItemID(activityID(actor, n)) }

func readCloser(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestInboxBlockedDomainIsRefusedWithoutFetch(t *testing.T) {
	t.Parallel()
	s, c := inboxSite(t)
	rm := newRemote(t)
	a := rm.add(&remoteActor{name: "ann", key: readKey(t, "rsa-a")})
	domain := strings.TrimPrefix(rm.srv.URL, "http://")
	if err := s.App.Store().Update(ctx, func(tx store.Tx) error {
		return tx.DomainBlocks().Create(&murlog.DomainBlock{Domain: domain, CreatedAt: tx.Now()})
	}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		r := send(t, rm.signed(t, s.Server.URL, "/inbox", a, create(rm.actorURI(a), i), httpsig.Cavage, c.now()))
		if r.status != http.StatusForbidden {
			t.Fatalf("POST %d from a blocked domain: status %d; want 403", i, r.status)
		}
	}
	if n := rm.hits.Load(); n != 0 {
		t.Errorf("the blocked server was asked %d times for keys; want 0", n)
	}
	if n := inboxJobs(t, s); n != 0 {
		t.Errorf("inbox.process jobs = %d; want 0", n)
	}
	wantLog(t, s, "blocked domain", "inbox refused", "signing domain is blocked", domain)
}

func TestInboxDropsBlockedActorSilently(t *testing.T) {
	t.Parallel()
	s, c := inboxSite(t)
	rm := newRemote(t)
	a := rm.add(&remoteActor{name: "ann", key: readKey(t, "rsa-a")})
	wantStatus(t, send(t, rm.signed(t, s.Server.URL, "/inbox", a, create(rm.actorURI(a), 0), httpsig.Cavage, c.now())), 202, "first")
	st := storedActor(t, s, rm.actorURI(a))
	if err := s.App.Store().Update(ctx, func(tx store.Tx) error {
		p, err := tx.Personas().Primary()
		if err != nil {
			return err
		}
		return tx.Blocks().Create(&murlog.Block{PersonaID: p.ID, ActorID: st.ID, ActivityURI: s.Server.URL + "/b/1", CreatedAt: tx.Now()})
	}); err != nil {
		t.Fatal(err)
	}
	c.advance(10 * time.Second) // past the block lists' TTL
	r := send(t, rm.signed(t, s.Server.URL, "/@alice/inbox", a, create(rm.actorURI(a), 1), httpsig.Cavage, c.now()))
	wantStatus(t, r, http.StatusAccepted, "blocked actor")
	if hasItem(t, s, activityID(rm.actorURI(a), 1)) {
		t.Error("an activity of a blocked actor was stored")
	}
	wantLog(t, s, "blocked actor", "inbox dropped", "actor is blocked")
	// Blocks are checked before any key fetch: even with a rotated key,
	// which would otherwise be refetched, the blocked actor costs none.
	a.key = readKey(t, "rsa-b")
	c.advance(10 * time.Minute) // past the refetch throttle
	hits := rm.hits.Load()
	r = send(t, rm.signed(t, s.Server.URL, "/@alice/inbox", a, create(rm.actorURI(a), 2), httpsig.Cavage, c.now()))
	wantStatus(t, r, http.StatusAccepted, "blocked actor, rotated key")
	if n := rm.hits.Load() - hits; n != 0 || hasItem(t, s, activityID(rm.actorURI(a), 2)) {
		t.Errorf("blocked actor with a rotated key: %d key fetches, stored %v; want none, not stored", n, hasItem(t, s, activityID(rm.actorURI(a), 2)))
	}
}

func TestInboxKeyRotation(t *testing.T) {
	t.Parallel()
	s, c := inboxSite(t)
	rm := newRemote(t)
	a := rm.add(&remoteActor{name: "ann", key: readKey(t, "rsa-a")})
	wantStatus(t, send(t, rm.signed(t, s.Server.URL, "/inbox", a, create(rm.actorURI(a), 0), httpsig.Cavage, c.now())), 202, "before rotation")
	// ann rotates her key; the cached one no longer verifies.
	rm.mu.Lock()
	a.key = readKey(t, "rsa-b")
	a.served = a.key
	rm.mu.Unlock()
	// Within 5 minutes of the last fetch, a failure is not worth a fetch:
	// forged signatures must not make us fetch again and again.
	r := send(t, rm.signed(t, s.Server.URL, "/inbox", a, create(rm.actorURI(a), 1), httpsig.Cavage, c.now()))
	wantStatus(t, r, http.StatusUnauthorized, "just after rotation, key fetched seconds ago")
	if n := rm.hits.Load(); n != 1 {
		t.Errorf("remote hits = %d; want 1 (no refetch within 5 minutes)", n)
	}
	c.advance(6 * time.Minute)
	r = send(t, rm.signed(t, s.Server.URL, "/inbox", a, create(rm.actorURI(a), 2), httpsig.RFC9421, c.now()))
	wantStatus(t, r, http.StatusAccepted, "after rotation, key refetched")
	if n := rm.hits.Load(); n != 2 {
		t.Errorf("remote hits = %d; want 2 (one refetch)", n)
	}
	if !hasItem(t, s, activityID(rm.actorURI(a), 2)) {
		t.Error("the activity signed with the new key was not stored")
	}
}

func TestInboxGarbageCostsNoFetchNoWrite(t *testing.T) {
	t.Parallel()
	s, c := inboxSite(t)
	rm := newRemote(t)
	a := rm.add(&remoteActor{name: "ann", key: readKey(t, "rsa-a")})
	b := readKey(t, "rsa-b")
	wantStatus(t, send(t, rm.signed(t, s.Server.URL, "/inbox", a, create(rm.actorURI(a), 0), httpsig.Cavage, c.now())), 202, "warm-up")
	hits, jobs := rm.hits.Load(), inboxJobs(t, s)
	throttled := 0
	for i := 1; i <= 200; i++ {
		body := create(rm.actorURI(a), i)
		var req *http.Request
		if i%2 == 0 {
			req = newPost(t, s.Server.URL, "/inbox", body)
		} else {
			req = newPost(t, s.Server.URL, "/inbox", body)
			httpsig.SignCavage(req, body, httpsig.Key{ID: rm.keyID(a), Private: b.priv}, c.now())
		}
		r := send(t, req)
		switch {
		case r.status == http.StatusTooManyRequests:
			throttled++
		case r.status != http.StatusUnauthorized:
			t.Fatalf("garbage POST %d: status %d; want 401, or 429 once the forgeries' penalties empty the buckets", i, r.status)
		}
	}
	// 100 forgeries at 1 + forgeryPenalty tokens each overdraw a burst
	// of 400: the later ones are refused by the bucket, before any check.
	if throttled == 0 {
		t.Error("100 forged signatures from one client: none throttled; want the penalty to empty its bucket")
	}
	if n := rm.hits.Load(); n != hits {
		t.Errorf("garbage caused %d key fetches; want 0", n-hits)
	}
	if n := inboxJobs(t, s); n != jobs {
		t.Errorf("garbage caused %d jobs; want 0", n-jobs)
	}
}

func TestInboxGroupCommitGivesEachRequestItsResult(t *testing.T) {
	t.Parallel()
	s, c := inboxSite(t)
	rm := newRemote(t)
	a := rm.add(&remoteActor{name: "ann", key: readKey(t, "rsa-a")})
	wantStatus(t, send(t, rm.signed(t, s.Server.URL, "/inbox", a, create(rm.actorURI(a), -1), httpsig.Cavage, c.now())), 202, "warm-up")
	jobs := inboxJobs(t, s)
	// 30 activities, each delivered twice at once (two shared inboxes,
	// a retry): every POST is accepted, each activity stored once.
	reqs := make([]*http.Request, 0, 60)
	for i := 0; i < 30; i++ {
		for range 2 {
			reqs = append(reqs, rm.signed(t, s.Server.URL, "/inbox", a, create(rm.actorURI(a), i), httpsig.RFC9421, c.now()))
		}
	}
	statuses := make(chan int, len(reqs))
	for _, req := range reqs {
		go func() { statuses <- send(t, req).status }()
	}
	for range reqs {
		if st := <-statuses; st != http.StatusAccepted {
			t.Errorf("concurrent POST: status %d; want 202", st)
		}
	}
	if n := inboxJobs(t, s) - jobs; n != 30 {
		t.Errorf("inbox.process jobs = %d; want 30 (one per activity)", n)
	}
	for i := 0; i < 30; i++ {
		if !hasItem(t, s, activityID(rm.actorURI(a), i)) {
			t.Errorf("activity %d accepted but not stored", i)
		}
	}
}

func TestInboxPruneForgetsOldItems(t *testing.T) {
	t.Parallel()
	s, c := inboxSite(t)
	rm := newRemote(t)
	a := rm.add(&remoteActor{name: "ann", key: readKey(t, "rsa-a")})
	wantStatus(t, send(t, rm.signed(t, s.Server.URL, "/inbox", a, create(rm.actorURI(a), 0), httpsig.Cavage, c.now())), 202, "old")
	c.advance(inbox.Retention + time.Hour)
	wantStatus(t, send(t, rm.signed(t, s.Server.URL, "/inbox", a, create(rm.actorURI(a), 1), httpsig.Cavage, c.now())), 202, "new")
	if err := s.App.Queue().Enqueue(ctx, inbox.DailyPrune(c.now())); err != nil {
		t.Fatal(err)
	}
	if _, err := s.App.NewWorker("test").RunOnce(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if hasItem(t, s, activityID(rm.actorURI(a), 0)) || !hasItem(t, s, activityID(rm.actorURI(a), 1)) {
		t.Errorf("after the prune: old item kept %v, new item kept %v; want false, true",
			hasItem(t, s, activityID(rm.actorURI(a), 0)), hasItem(t, s, activityID(rm.actorURI(a), 1)))
	}
}

func TestInboxDropsDeletesOfUnknownActorsWithoutFetch(t *testing.T) {
	t.Parallel()
	s, c := inboxSite(t)
	rm := newRemote(t) // serves no actor: ann's account is gone (404)
	gone := &remoteActor{name: "gone", key: readKey(t, "rsa-a")}
	actor := rm.actorURI(gone)
	body := []byte(fmt.Sprintf(`{"id":%q,"type":"Delete","actor":%q,"object":%q,"to":["https://www.w3.org/ns/activitystreams#Public"]}`,
		actor+"#delete", actor, actor))
	r := send(t, rm.signed(t, s.Server.URL, "/inbox", gone, body, httpsig.Cavage, c.now()))
	wantStatus(t, r, http.StatusAccepted, "Delete of an unknown actor")
	if n := rm.hits.Load(); n != 0 {
		t.Errorf("the gone actor's server was asked %d times; want 0", n)
	}
	if hasItem(t, s, actor+"#delete") {
		t.Error("the Delete of an unknown actor was stored")
	}
	wantLog(t, s, "unknown Delete", "inbox dropped", "Delete of an actor never seen")
	// Anything else from an unknown key is fetched and verified.
	r = send(t, rm.signed(t, s.Server.URL, "/inbox", gone, create(actor, 1), httpsig.Cavage, c.now()))
	wantStatus(t, r, http.StatusUnauthorized, "Create by an actor that is gone")
}

// An inbox answers anything but a POST with 405 and Allow: POST, as
// docs/federation.md says, not 404.
func TestInboxAnswersOtherMethodsWith405(t *testing.T) {
	t.Parallel()
	s, _ := inboxSite(t)
	for _, path := range []string{"/@alice/inbox", "/inbox"} {
		for _, method := range []string{"GET", "HEAD", "PUT"} {
			req, err := http.NewRequest(method, s.Server.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := send(t, req)
			if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
				t.Errorf("%s %s: status %d, Allow %q; want 405 and POST", method, path, r.status, r.header.Get("Allow"))
			}
		}
	}
}

// TestInboxStatementsCountAsInbox: a delivery's statements — the check
// of the sender, the group commit of its activity — count as "inbox"
// (db_statements_total), none as unclassified.
func TestInboxStatementsCountAsInbox(t *testing.T) {
	t.Parallel()
	s, c := inboxSite(t)
	rm := newRemote(t)
	a := rm.add(&remoteActor{name: "cnt", key: readKey(t, "rsa-a")})
	wantStatus(t, send(t, rm.signed(t, s.Server.URL, "/inbox", a, create(rm.actorURI(a), -1), httpsig.Cavage, c.now())), 202, "warm-up")
	before := s.App.Statements()
	wantStatus(t, send(t, rm.signed(t, s.Server.URL, "/@alice/inbox", a, create(rm.actorURI(a), 1), httpsig.RFC9421, c.now())), 202, "counted")
	after := s.App.Statements()
	for _, cl := range dbstat.Classes() {
		d := after[cl] - before[cl]
		switch {
		case cl == dbstat.Inbox && d == 0:
			t.Error("a delivery counted no inbox statements")
		case cl != dbstat.Inbox && d != 0:
			t.Errorf("a delivery counted %d statements as %s; want inbox only", d, cl)
		}
	}
}
