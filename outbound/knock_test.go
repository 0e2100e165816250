package outbound

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
)

// knockServer answers as accept says for each signature scheme and
// records every request it sees.
type knockServer struct {
	*server
	requests atomic.Int32
	mu       sync.Mutex
	seen     []string // scheme, target and body of each request
}

func newKnockServer(t *testing.T, accept map[string]int) *knockServer {
	k := &knockServer{}
	k.server = newServer(t, func(w http.ResponseWriter, r *http.Request) {
		k.requests.Add(1)
		body, _ := io.ReadAll(r.Body)
		sc := r.Header.Get("X-Test-Scheme")
		k.mu.Lock()
		k.seen = append(k.seen, fmt.Sprintf("%s %s %s", sc, r.Header.Get("X-Test-Target"), body))
		k.mu.Unlock()
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/actor", http.StatusFound)
			return
		}
		status, ok := accept[sc]
		if !ok {
			status = http.StatusUnauthorized
		}
		w.WriteHeader(status)
	})
	return k
}

func (k *knockServer) take() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.seen
	k.seen = nil
	k.requests.Store(0)
	return s
}

func TestDoubleKnockFallsBackToCavageAndRemembers(t *testing.T) {
	t.Parallel()
	k := newKnockServer(t, map[string]int{"rfc9421": 401, "cavage": 202})
	mem := NewMemory(10)
	c := local(t, Options{Memory: mem})
	body := []byte(`{"type":"Create","id":"https://murlog.test/@me/activities/1"}`)
	inbox := k.at("a.test", "/inbox")

	r, err := c.Post(context.Background(), inbox, "application/activity+json", body, &testSigner{})
	if err != nil || r.Status != http.StatusAccepted {
		t.Fatalf("first POST = %+v, %v; want 202 after the second knock", r, err)
	}
	seen := k.take()
	want := []string{"rfc9421 " + inbox + " " + string(body), "cavage " + inbox + " " + string(body)}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("first POST sent %q; want %q (RFC 9421, then cavage with the same body)", seen, want)
	}
	if s, ok := mem.Scheme("A.TEST:" + k.port()); !ok || s != SchemeCavage {
		t.Errorf("Memory.Scheme = %v, %v; want cavage remembered", s, ok)
	}

	if _, err := c.Post(context.Background(), inbox, "application/activity+json", body, &testSigner{}); err != nil {
		t.Fatal(err)
	}
	if seen := k.take(); len(seen) != 1 || seen[0] != want[1] {
		t.Errorf("second POST sent %q; want one cavage knock", seen)
	}
}

func TestSingleKnockWhenRFC9421Accepted(t *testing.T) {
	t.Parallel()
	k := newKnockServer(t, map[string]int{"rfc9421": 202, "cavage": 202})
	mem := NewMemory(10)
	c := local(t, Options{Memory: mem})
	for i := 0; i < 2; i++ {
		if _, err := c.Post(context.Background(), k.at("a.test", "/inbox"), "application/activity+json", []byte("{}"), &testSigner{}); err != nil {
			t.Fatal(err)
		}
		if n := k.requests.Load(); n != 1 {
			t.Errorf("POST %d: %d requests; want 1", i+1, n)
		}
		k.take()
	}
	if s, ok := mem.Scheme("a.test:" + k.port()); !ok || s != SchemeRFC9421 {
		t.Errorf("Memory.Scheme = %v, %v; want rfc9421 remembered", s, ok)
	}
}

// A signed GET that a server answers whatever the signature (a public
// document on a server that speaks only cavage) does not teach the
// memory RFC 9421: the next POST still knocks twice and learns cavage.
func TestAcceptedGetTeachesNothing(t *testing.T) {
	t.Parallel()
	k := &knockServer{}
	k.server = newServer(t, func(w http.ResponseWriter, r *http.Request) {
		k.requests.Add(1)
		k.mu.Lock()
		k.seen = append(k.seen, r.Method+" "+r.Header.Get("X-Test-Scheme"))
		k.mu.Unlock()
		if r.Method == http.MethodGet || r.Header.Get("X-Test-Scheme") == "cavage" {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
	})
	mem := NewMemory(10)
	c := local(t, Options{Memory: mem})
	if _, err := c.Get(context.Background(), k.at("a.test", "/actor"), "application/activity+json", &testSigner{}); err != nil {
		t.Fatal(err)
	}
	if s, ok := mem.Scheme("a.test:" + k.port()); ok {
		t.Errorf("after an accepted GET, Memory.Scheme = %v; want nothing remembered", s)
	}
	if _, err := c.Post(context.Background(), k.at("a.test", "/inbox"), "application/activity+json", []byte("{}"), &testSigner{}); err != nil {
		t.Fatalf("POST after the GET: %v; want the cavage knock accepted", err)
	}
	if seen := k.take(); fmt.Sprint(seen) != "[GET rfc9421 POST rfc9421 POST cavage]" {
		t.Errorf("requests %q; want the GET, then the POST knocking twice", seen)
	}
	if s, ok := mem.Scheme("a.test:" + k.port()); !ok || s != SchemeCavage {
		t.Errorf("Memory.Scheme = %v, %v; want cavage remembered from the POST", s, ok)
	}
}

func TestKnockRefusedByBoth(t *testing.T) {
	t.Parallel()
	k := newKnockServer(t, map[string]int{"rfc9421": 401, "cavage": 403})
	mem := NewMemory(10)
	c := local(t, Options{Memory: mem})
	_, err := c.Post(context.Background(), k.at("a.test", "/inbox"), "application/activity+json", []byte("{}"), &testSigner{})
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 403 || !Permanent(err) || k.requests.Load() != 2 {
		t.Errorf("both refused: err = %v after %d requests; want the cavage 403, permanent, after 2", err, k.requests.Load())
	}
	if _, ok := mem.Scheme("a.test:" + k.port()); ok {
		t.Error("a scheme was remembered although neither was accepted")
	}
	k.take()

	// A domain remembered as RFC 9421 gets one knock; its 401 may be a
	// stale key cache on its side, so it is not permanent.
	mem.Remember("a.test:"+k.port(), SchemeRFC9421)
	_, err = c.Post(context.Background(), k.at("a.test", "/inbox"), "application/activity+json", []byte("{}"), &testSigner{})
	if !errors.As(err, &se) || se.Status != 401 || Permanent(err) || k.requests.Load() != 1 {
		t.Errorf("remembered domain: err = %v after %d requests; want 401, not permanent, after 1", err, k.requests.Load())
	}
	k.take()

	// Unsigned: one request, nothing else to try.
	_, err = c.Get(context.Background(), k.at("a.test", "/actor"), "", nil)
	if !errors.As(err, &se) || se.Status != 401 || !Permanent(err) || k.requests.Load() != 1 {
		t.Errorf("unsigned GET: err = %v after %d requests; want 401, permanent, after 1", err, k.requests.Load())
	}
}

// TestSignedGetResignsEachHop: a redirect target gets its own signature
// (a signature covers the target URI), with the knock per hop.
func TestSignedGetResignsEachHop(t *testing.T) {
	t.Parallel()
	k := newKnockServer(t, map[string]int{"rfc9421": 200})
	c := local(t, Options{})
	r, err := c.Get(context.Background(), k.at("a.test", "/moved"), "application/activity+json", &testSigner{})
	if err != nil || r.Status != 200 {
		t.Fatalf("signed GET = %+v, %v", r, err)
	}
	want := []string{"rfc9421 " + k.at("a.test", "/moved") + " ", "rfc9421 " + k.at("a.test", "/actor") + " "}
	if seen := k.take(); fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("sent %q; want %q", seen, want)
	}
}

func TestSignerErrorStopsTheRequest(t *testing.T) {
	t.Parallel()
	k := newKnockServer(t, nil)
	c := local(t, Options{})
	_, err := c.Post(context.Background(), k.at("a.test", "/inbox"), "application/activity+json", []byte("{}"), failingSigner{})
	if err == nil || k.requests.Load() != 0 || Permanent(err) {
		t.Errorf("signer failure: err = %v, %d requests; want an error and nothing sent", err, k.requests.Load())
	}
}

type failingSigner struct{}

func (failingSigner) Sign(*http.Request, []byte, Scheme) error { return errors.New("no key") }

func TestMemoryEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	m := NewMemory(2)
	m.Remember("a.example", SchemeCavage)
	m.Remember("b.example", SchemeRFC9421)
	m.Scheme("A.example") // a is now the most recent
	m.Remember("c.example", SchemeCavage)
	if _, ok := m.Scheme("b.example"); ok {
		t.Error("b.example kept; want it evicted as least recently used")
	}
	for _, d := range []string{"a.example", "c.example"} {
		if s, ok := m.Scheme(d); !ok || s != SchemeCavage {
			t.Errorf("Scheme(%s) = %v, %v; want cavage", d, s, ok)
		}
	}
	m.Remember("a.example", SchemeRFC9421)
	if s, _ := m.Scheme("a.example"); s != SchemeRFC9421 {
		t.Errorf("Remember did not update a.example: %v", s)
	}

	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				d := fmt.Sprintf("h%d.example", i%5)
				m.Remember(d, Scheme(i%2))
				m.Scheme(d)
			}
		}()
	}
	wg.Wait()
	if n := m.(memory).c.Len(); n != 2 {
		t.Errorf("after concurrent use: %d entries; want 2", n)
	}
}

// TestConcurrentDeliveries: the shared client under -race.
func TestConcurrentDeliveries(t *testing.T) {
	t.Parallel()
	k := newKnockServer(t, map[string]int{"cavage": 202})
	c := local(t, Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := c.Post(context.Background(), k.at("a.test", "/inbox"), "application/activity+json", bytes.Repeat([]byte("x"), i), &testSigner{})
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	// Each delivery knocks once or twice; the first ones cannot know yet.
	if n := k.requests.Load(); n < 33 || n > 64 {
		t.Errorf("%d requests for 32 deliveries; want 33 to 64", n)
	}
}
