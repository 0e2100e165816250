package migrate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/murlog/murlog/queue"
)

// Side names one of a Switch's two queues.
type Side int

// The sides of a migration.
const (
	Old Side = iota // the queue being left
	New             // the queue being moved to
)

func (s Side) String() string {
	if s == New {
		return "new"
	}
	return "old"
}

func (s Side) other() Side { return 1 - s }

// Switch is a queue.Queue over two queues that changes, at run time,
// which one the workers consume (seed §5 Phase 2). While migrating it
// writes every job to both, the read side first (so a job whose second
// write fails is where it will run); with SetSingleWrite it writes only to
// the read side (Phase 3). Claims come from the read side; each claimed job
// is remembered until it is acked, so its ack goes to the queue it came
// from even when the read side changed meanwhile.
//
// Reads are fenced when the read side changes, and when a Switch starts
// (the previous process may have read the other side): the read side
// hands out nothing until every job claimed from the other side has been
// acked, here and — when that queue is a queue.Inspector — in any other
// process. The worker records a finished job in its ledger before it acks
// it, so once the fence lifts the ledger knows every job the old side ran
// and their copies are skipped; without the fence a copy could start while
// its original is still running (seed §5.2: pause, wait for completion,
// then release the new side). The fence lifts anyway after FenceLimit.
//
// Switch implements queue.Inspector: the read side answers, except that
// recovery of expired leases and clean-up run on both sides. It is safe for
// concurrent use. Poll and FenceLimit are set before first use.
type Switch struct {
	// Poll is how often a blocked Dequeue looks for work it was not woken
	// for; 1 s when 0.
	Poll time.Duration
	// FenceLimit bounds how long reads wait for jobs still running on the
	// side left behind; DefaultFenceLimit when 0.
	FenceLimit time.Duration

	q     [2]queue.Queue
	names [4]string // Provider() by mode, built once: it is called per job log line

	// mode holds the read side (bit 0) and single write (bit 1). It is
	// read without locking on every enqueue and log line.
	mode atomic.Uint32
	// mu is held shared by each claim and exclusively by a change of the
	// read side, so no claim straddles a switch unrecorded.
	mu sync.RWMutex

	cmu    sync.Mutex
	claims map[*queue.Job]Side // claimed and not yet acked
	held   [2]int              // len(claims) by side
	fence  *fence

	wake chan struct{}
}

// fence holds reads back until the jobs claimed from a side are acked.
type fence struct {
	from  Side
	since time.Time
}

const singleBit = 2

// DefaultFenceLimit is how long reads wait, at most, for jobs still
// running on the side left behind: a live worker renews its leases, so
// they can stay running for as long as their handlers take (each bounded
// by its topic's timeout); a dead worker's are recovered within a lease.
const DefaultFenceLimit = 5 * time.Minute

var (
	_ queue.Queue     = (*Switch)(nil)
	_ queue.Inspector = (*Switch)(nil)
)

// NewSwitch returns a Switch reading from readFrom and writing to both.
func NewSwitch(old, new queue.Queue, readFrom Side) *Switch {
	s := &Switch{q: [2]queue.Queue{old, new}, claims: map[*queue.Job]Side{}, wake: make(chan struct{}, 1)}
	for m := range s.names {
		write := "both"
		if m&singleBit != 0 {
			write = "read side"
		}
		s.names[m] = fmt.Sprintf("switch(old=%s, new=%s, read=%s, write=%s)",
			old.Provider(), new.Provider(), Side(m&1), write)
	}
	s.mode.Store(uint32(readFrom & 1))
	// A process that starts reading one side may follow one that read the
	// other (the read side changes with a restart), and a worker of the
	// old configuration may still be running jobs there: start fenced.
	s.fence = &fence{from: Side(readFrom & 1).other(), since: time.Now()}
	return s
}

func (s *Switch) state() (read Side, single bool) {
	m := s.mode.Load()
	return Side(m & 1), m&singleBit != 0
}

// ReadFrom returns the side claims come from.
func (s *Switch) ReadFrom() Side { r, _ := s.state(); return r }

// SingleWrite reports whether jobs are written to the read side only.
func (s *Switch) SingleWrite() bool { _, single := s.state(); return single }

// Queue returns one side, for the operator's checks (counts on both
// sides) and for Drain.
func (s *Switch) Queue(side Side) queue.Queue { return s.q[side&1] }

// SetReadFrom makes side the one claims come from. It waits for claims in
// progress; jobs already claimed from the other side are still acked
// there, and reads stay fenced until they are.
func (s *Switch) SetReadFrom(side Side) {
	side &= 1
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, _ := s.state()
	if prev == side {
		return
	}
	s.mode.Store(s.mode.Load()&singleBit | uint32(side))
	s.cmu.Lock()
	s.fence = &fence{from: prev, since: time.Now()}
	s.cmu.Unlock()
}

// SetSingleWrite makes enqueues go to the read side only (on) or to both
// sides (off).
func (s *Switch) SetSingleWrite(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.mode.Load() &^ singleBit
	if on {
		m |= singleBit
	}
	s.mode.Store(m)
}

// Woken receives after jobs were enqueued through this Switch, for a
// worker's Wake. Dequeue waits on the same channel: one receiver is woken
// per signal.
func (s *Switch) Woken() <-chan struct{} { return s.wake }

// Enqueue implements queue.Queue.
func (s *Switch) Enqueue(ctx context.Context, j queue.Job) error {
	return s.EnqueueBatch(ctx, []queue.Job{j})
}

// EnqueueBatch implements queue.Queue: the read side first, then (unless
// single write) the other side. A failure of the second write is an
// error so the caller retries; both sides skip ids they already have.
func (s *Switch) EnqueueBatch(ctx context.Context, js []queue.Job) error {
	read, single := s.state()
	if err := s.q[read].EnqueueBatch(ctx, js); err != nil {
		return err
	}
	if len(js) > 0 {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	if single {
		return nil
	}
	other := s.q[read.other()]
	return secondWrite(other, other.EnqueueBatch(ctx, js))
}

// DequeueBatch implements queue.Queue: it claims from the read side, or
// returns nothing while reads are fenced.
func (s *Switch) DequeueBatch(ctx context.Context, topics []string, max int) ([]*queue.Job, error) {
	if max <= 0 {
		return nil, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	read, _ := s.state()
	if held, err := s.fenced(ctx); held || err != nil {
		return nil, err
	}
	js, err := s.q[read].DequeueBatch(ctx, topics, max)
	if len(js) > 0 {
		s.cmu.Lock()
		for _, j := range js {
			s.claims[j] = read
		}
		s.held[read] += len(js)
		s.cmu.Unlock()
	}
	return js, err
}

func (s *Switch) fenceLimit() time.Duration {
	if s.FenceLimit > 0 {
		return s.FenceLimit
	}
	return DefaultFenceLimit
}

// fenced reports whether reads must still wait for the side left behind,
// lifting the fence once they need not.
func (s *Switch) fenced(ctx context.Context) (bool, error) {
	s.cmu.Lock()
	f := s.fence
	switch {
	case f == nil:
		s.cmu.Unlock()
		return false, nil
	case time.Since(f.since) > s.fenceLimit():
		s.fence = nil
		s.cmu.Unlock()
		return false, nil
	case s.held[f.from] > 0:
		s.cmu.Unlock()
		return true, nil
	}
	s.cmu.Unlock()
	// Other processes' claims (a CGI-spawned worker) only the queue knows.
	if in, ok := inspectable(s.q[f.from]); ok {
		cs, err := in.Counts(ctx)
		if err != nil {
			return true, fmt.Errorf("migrate: looking for jobs still running on the %s queue: %w", f.from, err)
		}
		for _, c := range cs {
			if c.State == queue.StateRunning && c.N > 0 {
				return true, nil
			}
		}
	}
	s.cmu.Lock()
	if s.fence == f {
		s.fence = nil
	}
	s.cmu.Unlock()
	return false, nil
}

// Dequeue implements queue.Queue. It polls through DequeueBatch rather
// than blocking in a side's own Dequeue, which could claim from a side
// the Switch has just left.
func (s *Switch) Dequeue(ctx context.Context, topics []string) (*queue.Job, error) {
	return queue.PollDequeue(ctx, s.DequeueBatch, topics, s.wake, s.Poll)
}

// Ack implements queue.Queue.
func (s *Switch) Ack(ctx context.Context, j *queue.Job, r queue.Result) error {
	return s.AckBatch(ctx, []queue.Ack{{Job: j, Result: r}})
}

// AckBatch implements queue.Queue: each ack goes to the side its job was
// claimed from (the read side for a job this Switch did not hand out, so
// pass the pointers DequeueBatch returned). The jobs stay remembered until
// the whole batch is accepted: the worker retries a failed AckBatch as it
// was, and the retry must route every ack as before (acking a job its
// queue already finished changes nothing).
func (s *Switch) AckBatch(ctx context.Context, acks []queue.Ack) error {
	var by [2][]queue.Ack
	read, _ := s.state()
	s.cmu.Lock()
	for _, a := range acks {
		side, ok := s.claims[a.Job]
		if !ok {
			side = read
		}
		by[side] = append(by[side], a)
	}
	s.cmu.Unlock()
	var errs []error
	for side, as := range by {
		if len(as) == 0 {
			continue
		}
		if err := s.q[side].AckBatch(ctx, as); err != nil {
			errs = append(errs, fmt.Errorf("migrate: ack on the %s queue: %w", Side(side), err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	s.cmu.Lock()
	for _, a := range acks {
		if from, ok := s.claims[a.Job]; ok {
			delete(s.claims, a.Job)
			s.held[from]--
		}
	}
	s.cmu.Unlock()
	return nil
}

// Renew implements queue.Queue: each job's lease is renewed on the side
// it was claimed from, as its ack will be.
func (s *Switch) Renew(ctx context.Context, js []*queue.Job) ([]bool, error) {
	held := make([]bool, len(js))
	var idx [2][]int
	read, _ := s.state()
	s.cmu.Lock()
	for i, j := range js {
		side, ok := s.claims[j]
		if !ok {
			side = read
		}
		idx[side] = append(idx[side], i)
	}
	s.cmu.Unlock()
	for side, is := range idx {
		if len(is) == 0 {
			continue
		}
		sub := make([]*queue.Job, len(is))
		for k, i := range is {
			sub[k] = js[i]
		}
		h, err := s.q[side].Renew(ctx, sub)
		if err != nil {
			return nil, fmt.Errorf("migrate: renew on the %s queue: %w", Side(side), err)
		}
		for k, i := range is {
			held[i] = h[k]
		}
	}
	return held, nil
}

// Lease implements queue.Queue: the shorter of the two sides' leases, so
// a worker renews often enough for either.
func (s *Switch) Lease() time.Duration { return min(s.q[Old].Lease(), s.q[New].Lease()) }

// HealthCheck implements queue.Queue: the read side, and the other side
// too while it is written.
func (s *Switch) HealthCheck(ctx context.Context) error {
	read, single := s.state()
	if single {
		return s.q[read].HealthCheck(ctx)
	}
	return healthCheck(ctx, s.q[read], s.q[read.other()], "read", "written")
}

// Provider implements queue.Queue, e.g.
// "switch(old=sqlite, new=redis, read=new, write=both)".
func (s *Switch) Provider() string { return s.names[s.mode.Load()&3] }

func (s *Switch) reader() (queue.Inspector, error) { return inspector(s.q[s.ReadFrom()]) }

// Counts implements queue.Inspector for the read side; Queue(side) gives
// the other side's.
func (s *Switch) Counts(ctx context.Context) ([]queue.Count, error) {
	in, err := s.reader()
	if err != nil {
		return nil, err
	}
	return in.Counts(ctx)
}

// Runnable implements queue.Inspector for the read side, the one the
// worker's concurrency should follow.
func (s *Switch) Runnable(ctx context.Context) (int, error) {
	in, err := s.reader()
	if err != nil {
		return 0, err
	}
	return in.Runnable(ctx)
}

// List implements queue.Inspector for the read side.
func (s *Switch) List(ctx context.Context, q queue.ListQuery) ([]*queue.Info, error) {
	in, err := s.reader()
	if err != nil {
		return nil, err
	}
	return in.List(ctx, q)
}

// Retry implements queue.Inspector on the read side, where the retried
// job will be claimed.
func (s *Switch) Retry(ctx context.Context, id string) error {
	in, err := s.reader()
	if err != nil {
		return err
	}
	return in.Retry(ctx, id)
}

// Dismiss implements queue.Inspector on the read side.
func (s *Switch) Dismiss(ctx context.Context, id string) error {
	in, err := s.reader()
	if err != nil {
		return err
	}
	return in.Dismiss(ctx, id)
}

// RecoverExpired implements queue.Inspector on both sides: a job left
// running on the side no longer read would hold the fence and Drain until
// recovered.
func (s *Switch) RecoverExpired(ctx context.Context) (int, error) {
	return s.both(func(in queue.Inspector) (int, error) { return in.RecoverExpired(ctx) })
}

// Cleanup implements queue.Inspector on both sides: both collect done jobs
// (runs, skipped copies, moved jobs).
func (s *Switch) Cleanup(ctx context.Context, before time.Time) (int, error) {
	return s.both(func(in queue.Inspector) (int, error) { return in.Cleanup(ctx, before) })
}

// both runs fn on the read side (which must be inspectable) and on the
// other side when it is.
func (s *Switch) both(fn func(queue.Inspector) (int, error)) (int, error) {
	read := s.ReadFrom()
	in, err := inspector(s.q[read])
	if err != nil {
		return 0, err
	}
	n, err := fn(in)
	if err != nil {
		return n, err
	}
	if other, ok := inspectable(s.q[read.other()]); ok {
		k, err := fn(other)
		n += k
		if err != nil {
			return n, fmt.Errorf("migrate: on the %s queue: %w", read.other(), err)
		}
	}
	return n, nil
}
