package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"github.com/murlog/murlog/inbox"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murlog/murlog/httpsig"
)

// Load harness for the inbox: a real `murlog serve` process, with its
// default rate limits, receives signed Creates from 100 remote actors
// with a warm key cache, then garbage (unsigned and forged POSTs) that
// must be refused without a key fetch or a database write.
//
// The actors live on one loopback HTTP server listening on 100 loopback
// addresses (127.0.0.2 …), each actor on its own, with its own RSA-2048
// key: 100 signing domains, as 100 servers would be. murlog trusts
// 127.0.0.1 as its reverse proxy, and each POST names its actor's
// address in X-Forwarded-For, so each server is its own client too.
//
//	MURLOG_BENCH_LOAD=1 go test -run InboxLoad -v ./bench/   (part of make load)
//
// MURLOG_BENCH_LOAD_SECONDS changes the 10 s per phase. The Creates are
// signed before the clock starts — signing costs the sender far more
// than verifying costs murlog, and the figure is murlog's — so a phase
// also ends when the signed requests run out.

const (
	inboxActors = 100
	inboxConns  = 32
	inboxRate   = 1000 // the target, requests per second
	// inboxSigned is how many Creates are signed in advance.
	inboxSigned  = 20_000
	metricsToken = "bench-metrics-token"
)

func TestInboxLoad(t *testing.T) {
	if os.Getenv("MURLOG_BENCH_LOAD") == "" {
		t.Skip("set MURLOG_BENCH_LOAD=1 to load-test the inbox (about 60 s; make load)")
	}
	d := loadSeconds()
	actors := newActorFarm(t, inboxActors)
	s := startServer(t, "MURLOG_ALLOW_PRIVATE_NETWORK=1", "MURLOG_METRICS_TOKEN="+metricsToken, "MURLOG_TRUSTED_PROXY=127.0.0.1/32")
	tr := &http.Transport{MaxIdleConnsPerHost: inboxConns, MaxConnsPerHost: inboxConns}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}

	actors.warm(t, hc, s.base)
	fetches := actors.hits.Load()
	jobs0 := inboxJobCount(t, hc, s.base)

	start := time.Now()
	signed := actors.creates(t, s.base, inboxSigned)
	t.Logf("signed %d Creates in %v", len(signed), time.Since(start).Round(time.Millisecond))

	// First at the target rate, for the latency there (measured from
	// when each request was due, so a stall is not hidden), then as fast
	// as the connections go, with what is left, for the ceiling.
	var next atomic.Int64
	take := func(int) *signedPost {
		// One sequence over both phases: each Create is sent once.
		if i := next.Add(1) - 1; i < int64(len(signed)) {
			return signed[i]
		}
		return nil
	}
	paced := runPaced(hc, s.base, min(d, time.Duration(len(signed)/2/inboxRate)*time.Second), inboxRate, take, http.StatusAccepted)
	t.Logf("signed Creates at %d/s: %6.0f accepted/s  p50 %6.2f ms  p99 %6.2f ms  (%d accepted, %d other)",
		inboxRate, paced.rps, ms(paced.p50), ms(paced.p99), paced.n, paced.errs)
	cpu0 := s.cpu(t)
	ok := runPosts(hc, s.base, d, take, http.StatusAccepted)
	jobs1 := inboxJobCount(t, hc, s.base)
	cpu1 := s.cpu(t)
	t.Logf("signed Creates, max:  %8.0f accepted/s  p50 %6.2f ms  p99 %6.2f ms  (%d accepted, %d other, %v)",
		ok.rps, ms(ok.p50), ms(ok.p99), ok.n, ok.errs, ok.elapsed.Round(time.Millisecond))
	if jobs1-jobs0 != ok.n+paced.n {
		t.Errorf("%d Creates accepted but %d inbox.process jobs enqueued", ok.n+paced.n, jobs1-jobs0)
	}
	if ok.errs+paced.errs > 0 {
		t.Errorf("%d signed Creates were not accepted", ok.errs+paced.errs)
	}

	// Garbage: unsigned, and signed with the wrong key under a known
	// keyId (a forgery, which must not make murlog refetch the key),
	// first from one address (a flood, which the client bucket meets),
	// then spread over the 100 actors' addresses and domains.
	var spread, flood []*signedPost
	for i, a := range actors.list {
		body := a.create(1_000_000 + i)
		unsigned := &signedPost{body: body, header: http.Header{"Content-Type": {"application/activity+json"}, "X-Forwarded-For": {a.addr}}}
		forged := actors.sign(t, s.base, a, body, actors.list[(i+1)%len(actors.list)].key)
		spread = append(spread, unsigned, forged)
		for _, p := range []*signedPost{unsigned, forged} {
			h := p.header.Clone()
			h.Set("X-Forwarded-For", "203.0.113.9")
			flood = append(flood, &signedPost{body: body, header: h})
		}
	}
	// The garbage figures are the cost of refusing, so they are taken
	// once the worker has processed the accepted Creates: a backlog's
	// processing would otherwise share the two cores with the refusals.
	drainStart := time.Now()
	for inboxJobCount(t, hc, s.base, "pending", "running") > 0 && time.Since(drainStart) < 3*time.Minute {
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("backlog of %d accepted Creates processed %v after the last was accepted (inbox.process runs %d at a time)",
		ok.n+paced.n, time.Since(drainStart).Round(100*time.Millisecond), inbox.Concurrency)
	fetches1 := actors.hits.Load()
	refused := []int{http.StatusUnauthorized, http.StatusTooManyRequests}
	badFlood := runPosts(hc, s.base, d, func(i int) *signedPost { return flood[i%len(flood)] }, refused...)
	cpu2 := s.cpu(t)
	badSpread := runPosts(hc, s.base, d, func(i int) *signedPost { return spread[i%len(spread)] }, refused...)
	jobs2 := inboxJobCount(t, hc, s.base)
	cpu3 := s.cpu(t)
	okCPU := (cpu1 - cpu0) / time.Duration(max(1, ok.n))
	for _, g := range []struct {
		name string
		r    postResult
		cpu  time.Duration
	}{{"garbage, one address", badFlood, cpu2 - cpu1}, {"garbage, 100 servers", badSpread, cpu3 - cpu2}} {
		per := g.cpu / time.Duration(max(1, g.r.n))
		t.Logf("%-21s %8.0f refused/s  p50 %6.2f ms  p99 %6.2f ms  (%v; %d other)  %.1f× the accepted rate; server CPU %v per POST, %.1f× less than a Create",
			g.name+":", g.r.rps, ms(g.r.p50), ms(g.r.p99), g.r.byStatus, g.r.errs, g.r.rps/ok.rps, per, float64(okCPU)/float64(max(1, per)))
	}
	t.Logf("server CPU per accepted Create %v; key fetches: %d at warm-up, %d during the Creates, %d during garbage; inbox writes during garbage: %d",
		okCPU, fetches, fetches1-fetches, actors.hits.Load()-fetches1, jobs2-jobs1)
	if n := actors.hits.Load() - fetches1; n != 0 {
		t.Errorf("garbage caused %d key fetches; want 0", n)
	}
	if jobs2 != jobs1 {
		t.Errorf("garbage caused %d inbox writes; want 0", jobs2-jobs1)
	}
	bad := badFlood
	verdict := func(ok bool) string {
		if ok {
			return "meets"
		}
		return "BELOW"
	}
	t.Logf("accepted/s %s the 1,000 target; p99 at 1,000/s %s the 50 ms target; garbage from one address %s, from 100 servers %s, the 10,000/s target (10× 1,000/s)",
		verdict(ok.rps >= inboxRate), verdict(paced.p99 <= 50*time.Millisecond), verdict(bad.rps >= 10*inboxRate), verdict(badSpread.rps >= 10*inboxRate))
}

// signedPost is a request ready to send again and again.
type signedPost struct {
	body   []byte
	header http.Header
}

func (p *signedPost) request(base string) *http.Request {
	req, _ := http.NewRequest("POST", base+"/inbox", bytes.NewReader(p.body))
	for k, v := range p.header {
		req.Header[k] = v
	}
	return req
}

func do(hc *http.Client, req *http.Request) int {
	resp, err := hc.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

type postResult struct {
	rps      float64
	p50, p99 time.Duration
	n, errs  int
	byStatus map[int]int
	elapsed  time.Duration
}

// runPosts sends next(i) from inboxConns goroutines for d or until next
// returns nil, counting answers with one of the statuses wanted.
func runPosts(hc *http.Client, base string, d time.Duration, next func(int) *signedPost, want ...int) postResult {
	stop := time.Now().Add(d)
	return drive(hc, base, func() (time.Time, bool) { now := time.Now(); return now, now.Before(stop) }, next, want)
}

// runPaced sends next(i) at rate per second for d from inboxConns
// goroutines; latency runs from when a request was due, so a stall is
// not hidden.
func runPaced(hc *http.Client, base string, d time.Duration, rate int, next func(int) *signedPost, want ...int) postResult {
	due := make(chan time.Time, inboxConns)
	go func() {
		defer close(due)
		start := time.Now()
		for i := 0; ; i++ {
			at := start.Add(time.Duration(i) * time.Second / time.Duration(rate))
			if at.Sub(start) >= d {
				return
			}
			time.Sleep(time.Until(at))
			due <- at
		}
	}()
	return drive(hc, base, func() (time.Time, bool) { at, ok := <-due; return at, ok }, next, want)
}

// drive runs inboxConns goroutines that each take the time the next
// request is due from tick (until it says stop) and send next(i).
func drive(hc *http.Client, base string, tick func() (time.Time, bool), next func(int) *signedPost, want []int) postResult {
	var idx atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	byStatus := map[int]int{}
	n, errs := 0, 0
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < inboxConns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			statuses := map[int]int{}
			for at, ok := tick(); ok; at, ok = tick() {
				p := next(int(idx.Add(1) - 1))
				if p == nil {
					break
				}
				st := do(hc, p.request(base))
				mine = append(mine, time.Since(at))
				statuses[st]++
			}
			mu.Lock()
			lat = append(lat, mine...)
			for st, k := range statuses {
				byStatus[st] += k
				if slices.Contains(want, st) {
					n += k
				} else {
					errs += k
				}
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(lat)
	r := postResult{n: n, errs: errs, byStatus: byStatus, elapsed: elapsed}
	r.rps = float64(r.n) / elapsed.Seconds()
	if len(lat) > 0 {
		r.p50, r.p99 = lat[len(lat)/2], lat[len(lat)*99/100]
	}
	return r
}

// inboxJobCount reads the inbox.process jobs in the given states ("" for
// every state) from the server's /metrics.
func inboxJobCount(t *testing.T, hc *http.Client, base string, states ...string) int {
	t.Helper()
	m := metricsSnapshot(t, hc, base)
	if len(states) == 0 {
		return m.get(`queue_depth{topic="inbox.process"`)
	}
	n := 0
	for _, st := range states {
		n += m.get(`queue_depth{topic="inbox.process",state="` + st + `"}`)
	}
	return n
}

// actorFarm is one HTTP server listening on many loopback addresses,
// one actor per address with its own RSA-2048 key, counting the requests
// it answers (key fetches).
type actorFarm struct {
	srv  *http.Server
	hits atomic.Int64
	list []*farmActor
	by   map[string]*farmActor
}

type farmActor struct {
	id   string
	addr string // its server's address, 127.0.0.2 …
	key  *rsa.PrivateKey
	pem  string
}

func newActorFarm(t *testing.T, n int) *actorFarm {
	t.Helper()
	f := &actorFarm{by: map[string]*farmActor{}}
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serve)}
	first, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	port := first.Addr().(*net.TCPAddr).Port
	lns := []net.Listener{first}
	for i := 1; i < n; i++ {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:%d", i+2, port))
		if err != nil {
			t.Fatalf("listen on 127.0.0.%d: %v", i+2, err)
		}
		lns = append(lns, ln)
	}
	for _, ln := range lns {
		go f.srv.Serve(ln)
	}
	t.Cleanup(func() { f.srv.Close() })
	f.list = make([]*farmActor, n)
	var wg sync.WaitGroup
	for i := range f.list {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			der, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
			addr := fmt.Sprintf("127.0.0.%d", i+2)
			f.list[i] = &farmActor{id: fmt.Sprintf("http://%s:%d/users/a%d", addr, port, i), addr: addr, key: k,
				pem: string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}
		}(i)
	}
	wg.Wait()
	for _, a := range f.list {
		f.by["/users/"+a.id[strings.LastIndexByte(a.id, '/')+1:]] = a
	}
	return f
}

func (f *actorFarm) serve(w http.ResponseWriter, r *http.Request) {
	f.hits.Add(1)
	a := f.by[r.URL.Path]
	if a == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/activity+json")
	json.NewEncoder(w).Encode(map[string]any{
		"@context": []string{"https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"},
		"id":       a.id, "type": "Person", "preferredUsername": a.id[strings.LastIndexByte(a.id, '/')+1:],
		"inbox": a.id + "/inbox", "endpoints": map[string]string{"sharedInbox": a.id[:strings.Index(a.id, "/users/")] + "/inbox"},
		"publicKey": map[string]string{"id": a.id + "#main-key", "owner": a.id, "publicKeyPem": a.pem},
	})
}

// create is a Create of a Note of Mastodon's shape, numbered n.
func (a *farmActor) create(n int) []byte {
	b, _ := json.Marshal(map[string]any{
		"@context": "https://www.w3.org/ns/activitystreams",
		"id":       fmt.Sprintf("%s/statuses/%d/activity", a.id, n), "type": "Create", "actor": a.id,
		"published": "2026-12-01T10:00:00Z",
		"to":        []string{"https://www.w3.org/ns/activitystreams#Public"}, "cc": []string{a.id + "/followers"},
		"object": map[string]any{"id": fmt.Sprintf("%s/statuses/%d", a.id, n), "type": "Note", "attributedTo": a.id,
			"content": "<p>A post of ordinary length, with a <a href=\"https://example.com/\">link</a> and a #hashtag.</p>",
			"to":      []string{"https://www.w3.org/ns/activitystreams#Public"}, "cc": []string{a.id + "/followers"},
			"tag": []map[string]string{{"type": "Hashtag", "name": "#hashtag", "href": "https://example.com/tags/hashtag"}}},
	})
	return b
}

// sign signs a POST of body to base/inbox under a's keyId with key,
// alternating the two signature generations.
func (f *actorFarm) sign(t *testing.T, base string, a *farmActor, body []byte, key *rsa.PrivateKey) *signedPost {
	req, _ := http.NewRequestWithContext(context.Background(), "POST", base+"/inbox", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/activity+json")
	k := httpsig.Key{ID: a.id + "#main-key", Private: key}
	var err error
	if len(body)%2 == 0 {
		err = httpsig.SignRFC9421(req, body, k, time.Now())
	} else {
		err = httpsig.SignCavage(req, body, k, time.Now())
	}
	if err != nil {
		t.Error(err)
	}
	req.Header.Del("Host")
	req.Header.Set("X-Forwarded-For", a.addr)
	return &signedPost{body: body, header: req.Header}
}
