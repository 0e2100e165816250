package inbox_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
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
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/store"
)

var ctx = context.Background()

// clock is a test clock that moves only when told, past the cache TTL.
type clock struct{ off atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.off.Load())) }
func (c *clock) advance(d time.Duration) { c.off.Add(int64(d)) }

type response struct {
	status int
	header http.Header
	body   []byte
}

func wantStatus(t *testing.T, r response, status int, what string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d; want %d\n%s", what, r.status, status, r.body)
	}
}

// The remote servers of the inbox tests are real HTTP servers on
// loopback serving actors with real RSA keys (httpsig's testdata), and
// signing their POSTs as Mastodon does (cavage) or as RFC 9421 says.

type keyPair struct {
	priv crypto.Signer
	pub  string // PKIX PEM
}

func readTestdataFile(t testing.TB, f string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "httpsig", "testdata", f))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readKey(t testing.TB, name string) keyPair {
	t.Helper()
	read := func(f string) string { return readTestdataFile(t, f) }
	priv, err := httpsig.ParsePrivateKeyPEM(read(name + ".pkcs8.pem"))
	if err != nil {
		t.Fatal(err)
	}
	return keyPair{priv: priv, pub: read(name + ".pub.pem")}
}

// remoteActor is one account of a remote server.
type remoteActor struct {
	name    string
	key     keyPair // what it signs with
	served  keyPair // what its actor document publishes
	slash   bool    // publishes its key as …/main-key (GoToSocial), not #main-key (Mastodon)
	summary string
	ed      crypto.Signer // an Ed25519 key it also publishes (FEP-521a), signing with it when set
}

// remote is a fake fediverse server: actors at /users/{name}, counting
// every request it answers.
type remote struct {
	srv  *httptest.Server
	hits atomic.Int64
	mu   sync.Mutex
	acts map[string]*remoteActor
}

func newRemote(t testing.TB) *remote {
	t.Helper()
	rm := &remote{acts: map[string]*remoteActor{}}
	rm.srv = httptest.NewServer(http.HandlerFunc(rm.serve))
	t.Cleanup(rm.srv.Close)
	return rm
}

func (rm *remote) add(a *remoteActor) *remoteActor {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if a.served.pub == "" {
		a.served = a.key
	}
	rm.acts[a.name] = a
	return a
}

func (rm *remote) actorURI(a *remoteActor) string { return rm.srv.URL + "/users/" + a.name }

func (rm *remote) keyID(a *remoteActor) string {
	if a.ed != nil {
		return rm.actorURI(a) + "#ed25519-key"
	}
	if a.slash {
		return rm.actorURI(a) + "/main-key"
	}
	return rm.actorURI(a) + "#main-key"
}

func (rm *remote) serve(w http.ResponseWriter, r *http.Request) {
	rm.hits.Add(1)
	name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/users/"), "/main-key")
	rm.mu.Lock()
	a := rm.acts[name]
	rm.mu.Unlock()
	if a == nil {
		http.NotFound(w, r)
		return
	}
	id := rm.actorURI(a)
	doc := map[string]any{
		"@context": []string{"https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"},
		"id":       id, "type": "Person", "preferredUsername": a.name, "name": "Remote " + a.name,
		"inbox": id + "/inbox", "outbox": id + "/outbox", "followers": id + "/followers",
		"endpoints": map[string]string{"sharedInbox": rm.srv.URL + "/inbox"},
		"summary":   a.summary,
		"publicKey": map[string]string{"id": id + "#main-key", "owner": id, "publicKeyPem": a.served.pub},
	}
	if a.slash {
		doc["publicKey"].(map[string]string)["id"] = id + "/main-key"
	}
	if a.ed != nil {
		doc["assertionMethod"] = []map[string]string{{"id": rm.keyID(a), "type": "Multikey", "controller": id,
			"publicKeyMultibase": httpsig.Multikey(a.ed.Public().(ed25519.PublicKey))}}
	}
	w.Header().Set("Content-Type", "application/activity+json")
	json.NewEncoder(w).Encode(doc)
}

// create is a Create of a Note by actor, numbered n.
func create(actor string, n int) []byte {
	b, _ := json.Marshal(map[string]any{
		"@context": "https://www.w3.org/ns/activitystreams",
		"id":       fmt.Sprintf("%s/statuses/%d/activity", actor, n), "type": "Create", "actor": actor,
		"to": []string{"https://www.w3.org/ns/activitystreams#Public"},
		"object": map[string]any{"id": fmt.Sprintf("%s/statuses/%d", actor, n), "type": "Note", "attributedTo": actor,
			"content": "<p>hello</p>", "to": []string{"https://www.w3.org/ns/activitystreams#Public"}},
	})
	return b
}

func activityID(actor string, n int) string { return fmt.Sprintf("%s/statuses/%d/activity", actor, n) }

// inboxSite is a test site that may federate over loopback.
func inboxSite(t testing.TB) (*testsite.Site, *clock) {
	t.Helper()
	c := &clock{}
	s := testsite.Start(t, testsite.Options{Now: c.now, Env: map[string]string{"MURLOG_ALLOW_PRIVATE_NETWORK": "1"}})
	return s, c
}

// newPost builds a POST of body to the site's path with the activity
// content type.
func newPost(t testing.TB, base, path string, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest("POST", base+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/activity+json")
	return req
}

// signed is a POST signed by a's key in scheme at time at.
func (rm *remote) signed(t testing.TB, base, path string, a *remoteActor, body []byte, scheme httpsig.Scheme, at time.Time) *http.Request {
	t.Helper()
	req := newPost(t, base, path, body)
	k := httpsig.Key{ID: rm.keyID(a), Private: a.key.priv}
	if a.ed != nil {
		k.Private = a.ed
	}
	var err error
	if scheme == httpsig.RFC9421 {
		err = httpsig.SignRFC9421(req, body, k, at)
	} else {
		err = httpsig.SignCavage(req, body, k, at)
	}
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// signCavageWith signs req by hand with a chosen list of signed headers,
// for signatures that leave something required unsigned.
func signCavageWith(t testing.TB, req *http.Request, body []byte, keyID string, key crypto.Signer, headers []string, at time.Time) {
	t.Helper()
	req.Header.Set("Date", at.UTC().Format(http.TimeFormat))
	sum := sha256.Sum256(body)
	req.Header.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
	var lines []string
	for _, h := range headers {
		switch h {
		case "(request-target)":
			lines = append(lines, "(request-target): post "+req.URL.RequestURI())
		case "host":
			lines = append(lines, "host: "+req.URL.Host)
		default:
			lines = append(lines, h+": "+req.Header.Get(h))
		}
	}
	h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	sig, err := rsa.SignPKCS1v15(nil, key.(*rsa.PrivateKey), crypto.SHA256, h[:])
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Signature", fmt.Sprintf(`keyId="%s",algorithm="rsa-sha256",headers="%s",signature="%s"`,
		keyID, strings.Join(headers, " "), base64.StdEncoding.EncodeToString(sig)))
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

// hasItem reports whether the activity was stored in the inbox.
func hasItem(t testing.TB, s *testsite.Site, activity string) bool {
	t.Helper()
	var found bool
	err := s.App.Store().View(ctx, func(tx store.Tx) error {
		_, err := tx.InboxItems().Get(inbox.ItemID(activity))
		if murlog.ErrorCode(err) == murlog.ENotFound {
			return nil
		}
		found = err == nil
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// inboxJobs counts the inbox.process jobs in the queue, in any state.
func inboxJobs(t testing.TB, s *testsite.Site) int {
	t.Helper()
	cs, err := s.App.Queue().Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cs {
		if c.Topic == inbox.TopicProcess {
			n += c.N
		}
	}
	return n
}

// remoteActors counts the cached remote actors with this uri (0 or 1).
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

// wantLog checks that the site logged a line containing every part.
func wantLog(t testing.TB, s *testsite.Site, what string, parts ...string) {
	t.Helper()
	for _, line := range strings.Split(s.Logs.String(), "\n") {
		ok := true
		for _, p := range parts {
			if !strings.Contains(line, p) {
				ok = false
				break
			}
		}
		if ok {
			return
		}
	}
	t.Errorf("%s: no log line contains all of %q", what, parts)
}
