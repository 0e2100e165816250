package bench

import (
	"context"
	"crypto"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/store"
)

// Load harness for the fan-out of one public post: a real app and its
// worker at the default concurrency (8 → 32 adaptive), 10,000 followers on
// 1,000 servers (hNNN.test:port, each with a shared inbox), names that an
// injected resolver sends to a few loopback sink servers answering 202
// after verifying each signature with the persona's key. The figures are
// the deliver_note jobs created (target ≤ 1,000, one per shared inbox)
// and the time from posts.create until every server got its POST
// (target ≤ 30 s).
//
//	MURLOG_BENCH_LOAD=1 go test -run FanoutLoad -v ./bench/   (part of make load)
const (
	fanoutHosts    = 1000
	fanoutPerHost  = 10
	fanoutSinks    = 4
	fanoutDeadline = 30 * time.Second
)

// anyLoopback resolves every name to 127.0.0.1.
type anyLoopback struct{}

func (anyLoopback) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// fanoutSink counts the servers that received a verified POST.
type fanoutSink struct {
	keyID string
	pub   crypto.PublicKey

	mu       sync.Mutex
	hosts    map[string]int
	bad      int
	lastErr  error
	complete chan struct{}
	want     int
	closed   atomic.Bool
}

func (s *fanoutSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	err := func() error {
		sig, err := httpsig.Parse(r, true, httpsig.VerifyOptions{Now: time.Now()})
		if err != nil {
			return err
		}
		if sig.KeyID != s.keyID {
			return fmt.Errorf("keyId %s", sig.KeyID)
		}
		if err := sig.Verify(s.pub); err != nil {
			return err
		}
		return httpsig.VerifyDigest(r, body)
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.bad++
		s.lastErr = err
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	s.hosts[r.Host]++
	if len(s.hosts) == s.want && s.closed.CompareAndSwap(false, true) {
		close(s.complete)
	}
	w.WriteHeader(http.StatusAccepted)
}

func TestFanoutLoad(t *testing.T) {
	if os.Getenv("MURLOG_BENCH_LOAD") == "" {
		t.Skip("set MURLOG_BENCH_LOAD=1 to deliver one post to 10,000 followers on 1,000 loopback servers (make load)")
	}
	ctx := context.Background()
	s := testsite.Start(t, testsite.Options{Env: map[string]string{"MURLOG_ALLOW_PRIVATE_NETWORK": "true"}})
	// Reopen with the resolver that maps hNNN.test to loopback and a
	// logger that formats every line but drops it.
	s.App.Close()
	a, err := app.New(ctx, app.Options{
		ConfigPath: filepath.Join(s.Dir, "murlog.ini"),
		Getenv:     func(k string) string { return s.Env[k] },
		Logger:     testsite.Discard(),
		KeyPair:    testsite.KeyPair,
		Stderr:     io.Discard,
		Resolver:   anyLoopback{},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.App = a
	s.Server.Config.Handler = a
	st := a.Store()

	var p *murlog.Persona
	if err := st.View(ctx, func(tx store.Tx) error { var err error; p, err = tx.Personas().Primary(); return err }); err != nil {
		t.Fatal(err)
	}
	pub, err := httpsig.ParsePublicKeyPEM(p.PublicKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	site := murlog.Site{Scheme: "http", Domain: s.Domain()}
	sink := &fanoutSink{keyID: site.KeyID(p.Username), pub: pub, hosts: map[string]int{}, complete: make(chan struct{}), want: fanoutHosts}
	ports := make([]string, fanoutSinks)
	for i := range ports {
		srv := httptest.NewUnstartedServer(sink)
		srv.Config.ReadHeaderTimeout = 10 * time.Second
		srv.Start()
		t.Cleanup(srv.Close)
		_, ports[i], _ = net.SplitHostPort(srv.Listener.Addr().String())
	}

	t0 := time.Now()
	seedFollowers(t, st, p.ID, ports)
	t.Logf("seeded %d followers on %d servers in %v", fanoutHosts*fanoutPerHost, fanoutHosts, time.Since(t0).Round(time.Millisecond))

	wctx, stop := context.WithCancel(ctx)
	wdone := make(chan error, 1)
	go func() { wdone <- a.NewWorker("bench-fanout").Run(wctx) }()
	defer func() { stop(); <-wdone }()

	start := time.Now()
	var created struct {
		ID string `json:"id"`
	}
	if err := s.Client.Call(ctx, "posts.create", map[string]any{"content": noteContent(1)}, &created); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sink.complete:
	case <-time.After(2 * fanoutDeadline):
	}
	took := time.Since(start)

	jobs := 0
	counts, err := a.Queue().Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range counts {
		if c.Topic == delivery.TopicDeliverNote {
			jobs += c.N
		}
	}
	sink.mu.Lock()
	reached, bad, lastErr := len(sink.hosts), sink.bad, sink.lastErr
	sink.mu.Unlock()
	var sum *store.DeliverySummary
	st.View(ctx, func(tx store.Tx) error { var err error; sum, err = tx.Deliveries().Summary(created.ID); return err })
	t.Logf("fan-out: %d followers on %d servers → %d deliver_note jobs; %d servers reached in %v (%d refused signatures)",
		fanoutHosts*fanoutPerHost, fanoutHosts, jobs, reached, took.Round(time.Millisecond), bad)
	if sum != nil {
		t.Logf("posts.deliveries: delivered %d, pending %d, failed %d, skipped %d", sum.Delivered, sum.Pending, sum.Failed, sum.Skipped)
	}
	if jobs > fanoutHosts {
		t.Errorf("%d deliver_note jobs; want at most %d (one per shared inbox)", jobs, fanoutHosts)
	}
	if reached < fanoutHosts || took > fanoutDeadline {
		t.Errorf("%d of %d servers reached in %v; want all within %v (last signature error: %v)", reached, fanoutHosts, took, fanoutDeadline, lastErr)
	}
}

// seedFollowers stores fanoutHosts × fanoutPerHost accepted followers of
// persona, server i answering on ports[i % len(ports)].
func seedFollowers(t *testing.T, st store.Store, personaID string, ports []string) {
	t.Helper()
	now := time.Now()
	for h0 := 0; h0 < fanoutHosts; h0 += 100 {
		err := st.Update(context.Background(), func(tx store.Tx) error {
			for h := h0; h < h0+100; h++ {
				host := fmt.Sprintf("h%03d.test:%s", h, ports[h%len(ports)])
				for u := range fanoutPerHost {
					base := fmt.Sprintf("http://%s/users/u%d", host, u)
					a := &murlog.RemoteActor{URI: base, Username: fmt.Sprintf("u%d", u), Domain: host, Inbox: base + "/inbox",
						SharedInbox: "http://" + host + "/inbox", Type: "Person", KeyID: base + "#main-key", PublicKeyPEM: "pem",
						FetchedAt: now, CreatedAt: now, UpdatedAt: now}
					if err := tx.RemoteActors().Upsert(a); err != nil {
						return err
					}
					if err := tx.Followers().Create(&murlog.Follower{ID: murlog.NewID(), PersonaID: personaID, ActorID: a.ID,
						ActivityURI: base + "#follow", State: murlog.FollowAccepted, CreatedAt: now}); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
