// Package controls holds the owner's emergency levers as data (issue 16,
// points 6–8): kill switches that turn a feature off at once, server-side,
// and lockdown, under which the owner's state-changing calls are refused
// (423) but for a short list. They live in the settings table, not in
// murlog.ini, so flipping one needs no deploy and takes effect in every
// process within the cache's lifetime.
//
// Reads are cached in process (TTL, ~30 s) and a failing read keeps the
// last known value: a database that stops answering must never turn a
// switched-off feature back on, nor lift a lockdown. Only a process that
// has never read them and cannot read them now reports an error, and its
// callers fail closed.
package controls

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/worker"
)

// Switches are the kill switches; true means the feature runs. The zero
// value is every feature off, so New's defaults (DefaultSwitches) are what
// a site without the setting gets.
type Switches struct {
	// Comments: readers' comments on posts (the comments issue).
	Comments bool `json:"comments"`
	// PageViews: counting page views (the view-count issue).
	PageViews bool `json:"page_views"`
	// Inbox: taking activities from other servers; off answers 503 with
	// Retry-After, so senders retry later and nothing is lost.
	Inbox bool `json:"inbox"`
	// Delivery: sending activities to other servers; off holds delivery
	// jobs in the queue until it is on again.
	Delivery bool `json:"delivery"`
	// LinkPreviews: fetching previews of links in posts.
	LinkPreviews bool `json:"link_previews"`
	// ServiceWorker: the public theme's offline worker; off makes it
	// unregister itself on the reader's next visit.
	ServiceWorker bool `json:"service_worker"`
}

// DefaultSwitches is every feature on.
var DefaultSwitches = Switches{Comments: true, PageViews: true, Inbox: true, Delivery: true, LinkPreviews: true, ServiceWorker: true}

// Lockdown is the owner's switch against changes: while it is active the
// owner's state-changing API calls answer 423 Locked, but for the
// allowlist (the controls themselves, logging in and out, revoking
// sessions, changing the password).
type Lockdown struct {
	On bool `json:"on"`
	// From and Until bound it in time when set: a lockdown scheduled for
	// a launch, or one that lifts itself.
	From  *time.Time `json:"from,omitempty"`
	Until *time.Time `json:"until,omitempty"`
	// Reason is the owner's own note, shown in the app and in the error.
	Reason string `json:"reason,omitempty"`
}

// MaxReason bounds Lockdown.Reason, in characters.
const MaxReason = 200

// Active reports whether l is in force at now.
func (l Lockdown) Active(now time.Time) bool {
	return l.On && (l.From == nil || !now.Before(*l.From)) && (l.Until == nil || now.Before(*l.Until))
}

// Check validates l as the owner sets it.
func (l Lockdown) Check() error {
	if l.From != nil && l.Until != nil && !l.Until.After(*l.From) {
		return murlog.Invalid("until", "must be after from")
	}
	if n := len([]rune(l.Reason)); n > MaxReason {
		return murlog.Invalid("reason", "must be at most %d characters (is %d)", MaxReason, n)
	}
	return nil
}

// State is every control.
type State struct {
	Switches Switches `json:"switches"`
	Lockdown Lockdown `json:"lockdown"`
}

// The settings rows.
const (
	keySwitches = "kill_switches"
	keyLockdown = "lockdown"
)

// TTL is how long a process trusts what it read: the longest a switch
// flipped by another process takes to reach this one.
const TTL = 30 * time.Second

// Service reads and sets the controls.
type Service struct {
	store store.Store
	now   func() time.Time
	ttl   time.Duration

	mu    sync.Mutex
	last  State
	known bool      // last holds a value read from the database
	at    time.Time // when last was read
}

// New returns a Service over st; now is the clock (time.Now when nil).
func New(st store.Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, now: now, ttl: TTL}
}

// Current returns the controls: the cached value while it is fresh, else
// a new read; when that read fails, the last known value (and no error).
// Only a process that never read them and cannot now gets an error.
func (s *Service) Current(ctx context.Context) (State, error) {
	s.mu.Lock()
	if s.known && s.now().Sub(s.at) < s.ttl {
		st := s.last
		s.mu.Unlock()
		return st, nil
	}
	s.mu.Unlock()
	st, err := s.read(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.known {
			return s.last, nil
		}
		return State{}, &murlog.Error{Code: murlog.EUnavailable, Message: "the site's controls cannot be read", RetryAfter: TTL,
			Err: fmt.Errorf("controls: %w", err)}
	}
	s.last, s.known, s.at = st, true, s.now()
	return st, nil
}

func (s *Service) read(ctx context.Context) (State, error) {
	var st State
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		st, err = readState(tx)
		return err
	})
	return st, err
}

// readState reads both controls in tx; unset ones have their defaults.
func readState(tx store.Tx) (State, error) {
	st := State{Switches: DefaultSwitches}
	m, err := tx.Settings().GetMany(keySwitches, keyLockdown)
	if err != nil {
		return st, err
	}
	if v := m[keySwitches]; v != "" {
		if err := json.Unmarshal([]byte(v), &st.Switches); err != nil {
			return st, fmt.Errorf("setting %s: %w", keySwitches, err)
		}
	}
	if v := m[keyLockdown]; v != "" {
		if err := json.Unmarshal([]byte(v), &st.Lockdown); err != nil {
			return st, fmt.Errorf("setting %s: %w", keyLockdown, err)
		}
	}
	return st, nil
}

// SetSwitches stores sw and makes it this process's current value at once.
func (s *Service) SetSwitches(ctx context.Context, sw Switches) (State, error) {
	return s.set(ctx, keySwitches, sw)
}

// SetLockdown stores l (after Check) and makes it current at once.
func (s *Service) SetLockdown(ctx context.Context, l Lockdown) (State, error) {
	if err := l.Check(); err != nil {
		return State{}, err
	}
	if l.From != nil {
		t := l.From.UTC()
		l.From = &t
	}
	if l.Until != nil {
		t := l.Until.UTC()
		l.Until = &t
	}
	return s.set(ctx, keyLockdown, l, edgeJobs(l, s.now())...)
}

func (s *Service) set(ctx context.Context, key string, v any, jobs ...queue.Job) (State, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return State{}, err
	}
	var st State
	err = s.store.Update(ctx, func(tx store.Tx) error {
		if err := tx.Settings().Set(key, string(b)); err != nil {
			return err
		}
		if len(jobs) > 0 {
			if err := tx.Jobs().Enqueue(jobs...); err != nil {
				return err
			}
		}
		// Both controls as stored after this write, so the value cached
		// here is the database's, not this process's older copy of the
		// other one.
		st, err = readState(tx)
		return err
	})
	if err != nil {
		return State{}, err
	}
	s.mu.Lock()
	s.last, s.known, s.at = st, true, s.now()
	s.mu.Unlock()
	return st, nil
}

// TopicLockdownEdge is the job that runs when a scheduled lockdown begins
// or lifts: nothing is written then, and what was rendered at the last
// write — the runtime pointer readers' pages obey, kept as an artifact —
// would go on saying what held before. It marks the pointer again.
const TopicLockdownEdge = "controls.lockdown_edge"

var edgeNS = uuid.MustParse("5d0c3a52-7b61-4f4e-9a0e-6c1b2f3d4e5f")

// edgeJobs are the jobs at l's future edges. Their ids are the times', so
// setting the same schedule again makes no second job, and an edge of a
// schedule since changed only marks the pointer once more.
func edgeJobs(l Lockdown, now time.Time) []queue.Job {
	var js []queue.Job
	for _, at := range []*time.Time{l.From, l.Until} {
		if l.On && at != nil && at.After(now) {
			j := queue.NewJob(TopicLockdownEdge, []byte("{}"))
			j.ID, j.RunAt = uuid.NewSHA1(edgeNS, []byte(at.UTC().Format(time.RFC3339Nano))).String(), *at
			js = append(js, j)
		}
	}
	return js
}

// RegisterJobs registers controls.lockdown_edge with the worker's
// registry: it marks the runtime pointer, which the rebuild renders with
// the lockdown as it is then.
func RegisterJobs(r *worker.Registry, st store.Store) {
	worker.Register(r, TopicLockdownEdge, queue.DefaultPolicy, func(ctx context.Context, _ struct{}, _ *queue.Job) error {
		return st.Update(ctx, func(tx store.Tx) error { return tx.DirtyKeys().Mark("runtime") })
	})
}

// ErrLocked is the error of a call refused by lockdown.
func ErrLocked(l Lockdown) error {
	msg := "the site is in lockdown: changes are refused until the owner lifts it"
	if l.Until != nil {
		msg = "the site is in lockdown until " + l.Until.UTC().Format(time.RFC3339) + ": changes are refused until then"
	}
	if l.Reason != "" {
		msg += " (" + l.Reason + ")"
	}
	return &murlog.Error{Code: murlog.ELocked, Message: msg}
}
