package outbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
)

// mapSchemes is a SchemeStore over a map, counting its reads and writes.
type mapSchemes struct {
	mu                 sync.Mutex
	m                  map[string]string
	loads, saves       int
	failLoad, failSave bool
}

func (s *mapSchemes) LoadScheme(_ context.Context, domain string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loads++
	if s.failLoad {
		return "", false, errors.New("database gone")
	}
	v, ok := s.m[domain]
	return v, ok, nil
}

func (s *mapSchemes) SaveScheme(_ context.Context, domain, scheme string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saves++
	if s.failSave {
		return errors.New("disk full")
	}
	s.m[domain] = scheme
	return nil
}

// Under CGI every worker is a new process with a new client: the second
// "process" finds what the first learned in the store and knocks at a
// cavage-only peer once, with cavage, rather than twice.
func TestStoredMemoryKnocksOncePerDomainAcrossProcesses(t *testing.T) {
	k := newKnockServer(t, map[string]int{"rfc9421": 401, "cavage": 202})
	st := &mapSchemes{m: map[string]string{}}
	inbox := k.at("a.test", "/inbox")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for process := 1; process <= 3; process++ {
		c := local(t, Options{Memory: NewStoredMemory(10, st, log)})
		for i := 0; i < 2; i++ {
			if r, err := c.Post(context.Background(), inbox, "application/activity+json", []byte("{}"), &testSigner{}); err != nil || r.Status != http.StatusAccepted {
				t.Fatalf("process %d, POST %d = %+v, %v; want 202", process, i+1, r, err)
			}
		}
		want := []string{"cavage " + inbox + " {}", "cavage " + inbox + " {}"}
		if process == 1 {
			want = append([]string{"rfc9421 " + inbox + " {}"}, want...)
		}
		if seen := k.take(); fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Errorf("process %d sent %q; want %q (the double-knock in the first process only)", process, seen, want)
		}
	}
	if got := st.m["a.test:"+k.port()]; got != "cavage" {
		t.Errorf("stored scheme %q; want cavage", got)
	}
	// Written once (when learnt), read once per later process (then cached).
	if st.saves != 1 || st.loads != 3 {
		t.Errorf("store saw %d saves and %d loads; want 1 save and 3 loads (one per process)", st.saves, st.loads)
	}
}

// A store that fails costs a knock, never a delivery: an unreadable
// domain is unknown, an unwritable scheme is still kept in the process.
func TestStoredMemoryFailingStore(t *testing.T) {
	st := &mapSchemes{m: map[string]string{}, failLoad: true, failSave: true}
	m := NewStoredMemory(10, st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if s, ok := m.Scheme("a.test"); ok {
		t.Errorf("Scheme with a failing store = %v, true; want unknown", s)
	}
	m.Remember("A.test", SchemeCavage)
	if s, ok := m.Scheme("a.test"); !ok || s != SchemeCavage {
		t.Errorf("Scheme after Remember with a failing store = %v, %v; want cavage from the process's memory", s, ok)
	}
	// A stored name this version does not know is unknown, not RFC 9421.
	st = &mapSchemes{m: map[string]string{"b.test": "rfc9999"}}
	if s, ok := NewStoredMemory(10, st, slog.New(slog.NewTextHandler(io.Discard, nil))).Scheme("b.test"); ok {
		t.Errorf("Scheme of an unknown stored name = %v, true; want unknown", s)
	}
}
