package controls

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
)

var ctx = context.Background()

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func open(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), "murlog.db"), sqlite.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestDefaultsAndOtherProcesses: a new site has every feature on and no
// lockdown; a switch flipped by another process (another Service over the
// same database) reaches this one within TTL, and at once in the process
// that flipped it.
func TestDefaultsAndOtherProcesses(t *testing.T) {
	t.Parallel()
	db := open(t)
	c := &clock{t: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}
	here, there := New(db, c.now), New(db, c.now)
	st, err := here.Current(ctx)
	if err != nil || st.Switches != DefaultSwitches || st.Lockdown.On {
		t.Fatalf("a new site: %+v, %v; want every switch on, no lockdown", st, err)
	}
	sw := DefaultSwitches
	sw.Inbox = false
	if st, err := there.SetSwitches(ctx, sw); err != nil || st.Switches.Inbox {
		t.Fatalf("SetSwitches: %+v, %v", st, err)
	}
	if st, _ := there.Current(ctx); st.Switches.Inbox {
		t.Error("the process that turned the inbox off still sees it on")
	}
	if st, _ := here.Current(ctx); !st.Switches.Inbox {
		t.Error("another process saw the switch before its cache expired: the cache is not used")
	}
	c.add(TTL)
	if st, _ := here.Current(ctx); st.Switches.Inbox {
		t.Error("another process still sees the inbox on after TTL")
	}
	// Setting lockdown keeps the switches as stored (not a stale copy).
	st, err = here.SetLockdown(ctx, Lockdown{On: true, Reason: "launch"})
	if err != nil || st.Switches.Inbox || !st.Lockdown.On {
		t.Errorf("SetLockdown: %+v, %v; want lockdown on and the inbox still off", st, err)
	}
}

// TestFailingReadKeepsLastKnown: once the database stops answering, a
// process keeps the controls it last read — a switched-off feature stays
// off, a lockdown stays on — and only a process that never read them
// reports them unavailable.
func TestFailingReadKeepsLastKnown(t *testing.T) {
	t.Parallel()
	db := open(t)
	c := &clock{t: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}
	s := New(db, c.now)
	sw := DefaultSwitches
	sw.Delivery, sw.Comments = false, false
	if _, err := s.SetSwitches(ctx, sw); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetLockdown(ctx, Lockdown{On: true}); err != nil {
		t.Fatal(err)
	}
	cold := New(db, c.now)
	db.Close() // every read fails from here on
	c.add(2 * TTL)
	st, err := s.Current(ctx)
	if err != nil || st.Switches.Delivery || st.Switches.Comments || !st.Lockdown.Active(c.now()) {
		t.Errorf("with the database gone: %+v, %v; want the last known state, no error", st, err)
	}
	if _, err := cold.Current(ctx); murlog.ErrorCode(err) != murlog.EUnavailable {
		t.Errorf("a cold process with the database gone: %v; want unavailable", err)
	}
}

func TestLockdownWindowAndChecks(t *testing.T) {
	t.Parallel()
	at := func(h int) *time.Time { v := time.Date(2026, 12, 2, h, 0, 0, 0, time.UTC); return &v }
	l := Lockdown{On: true, From: at(10), Until: at(12)}
	for h, want := range map[int]bool{9: false, 10: true, 11: true, 12: false} {
		if got := l.Active(*at(h)); got != want {
			t.Errorf("active at %d:00 = %v; want %v", h, got, want)
		}
	}
	if (Lockdown{From: at(10)}).Active(*at(11)) {
		t.Error("a lockdown that is off is active in its window")
	}
	db := open(t)
	s := New(db, nil)
	for name, bad := range map[string]Lockdown{
		"until before from": {On: true, From: at(12), Until: at(10)},
		"long reason":       {On: true, Reason: strings.Repeat("é", MaxReason+1)},
	} {
		if _, err := s.SetLockdown(ctx, bad); murlog.ErrorCode(err) != murlog.EInvalid {
			t.Errorf("%s: %v; want invalid", name, err)
		}
	}
	if st, _ := s.Current(ctx); st.Lockdown.On {
		t.Error("a refused lockdown was stored")
	}
	err := ErrLocked(Lockdown{On: true, Until: at(12), Reason: "launch"})
	var e *murlog.Error
	if !errors.As(err, &e) || e.Code != murlog.ELocked || !strings.Contains(e.Message, "2026-12-02T12:00:00Z") || !strings.Contains(e.Message, "launch") {
		t.Errorf("ErrLocked = %v", err)
	}
}
