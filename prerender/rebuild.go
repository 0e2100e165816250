package prerender

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/worker"
)

// RebuildPriority is the rebuild job's (migration 016's triggers use the
// same): the default's. What keeps a backlog of pages (an import, a theme
// change) from holding up deliveries and follows is that one run renders
// at a time (Rebuilder.running), in a single worker slot; what keeps it
// from holding up the pages just written is that the newest marks are
// rendered first (migration 018).
const RebuildPriority = 5

// TopicRebuild is the job that renders what writes marked. Migration
// 016's triggers enqueue it with the marks; its payload is empty.
const TopicRebuild = "artifacts.rebuild"

// rebuildPolicy: a rebuild that fails (the database busy, a disk full)
// leaves the marks in place and the old artifacts served; it retries
// quickly, and gives up only after many tries — the next write enqueues
// it again anyway.
var rebuildPolicy = queue.Policy{MaxAttempts: 10, Timeout: 2 * time.Minute, Backoff: func(attempt int) time.Duration {
	return min(time.Second<<min(attempt-1, 6), time.Minute)
}}

// Rebuilder renders the artifacts the dirty marks name.
type Rebuilder struct {
	Renderer *Renderer
	Store    store.Store
	// Forget, when set, drops rebuilt keys from this process's
	// micro-cache (Server.Forget).
	Forget func(...artifact.Key)
	// Invalidate, when set, drops the process's caches of what pages
	// are made of (personas, settings, posts) before each mark renders,
	// in its turn (mark).
	Invalidate func()
	Log        *slog.Logger
	// Budget is how long one run may render before it hands the rest to
	// a new job (a site-wide rebuild of a big site is many runs, each
	// short, so a CGI worker's lifetime and the job lease hold, and the
	// worker's slot is given back often); 5 s when zero.
	Budget time.Duration
	Now    func() time.Time

	// running lets one Run at a time render in this process: the rebuild
	// jobs of a burst (one per quarter second) would otherwise all render
	// the same marks at once and take every worker slot from the jobs that
	// deliver and take in activities. The run in progress reads the marks
	// again until none is left, so a job that finds it busy has nothing
	// to do. Inline does not take it (see there).
	running *sync.Mutex
	// writes are the owner's requests in flight in this process (Writing).
	writes *inFlight
}

// NewRebuilder is a Rebuilder over rd and st.
func NewRebuilder(rd *Renderer, st store.Store) *Rebuilder {
	return &Rebuilder{Renderer: rd, Store: st, running: &sync.Mutex{}, writes: &inFlight{}}
}

// writeWait bounds how long a run waits for the owner's requests in
// flight: their own pass is bounded by the budget the app gives it.
const writeWait = 3 * time.Second

// Writing tells the Rebuilder that an owner's request that may write has
// begun in this process; done, when it ends. A run of the job waits for
// the requests in flight before it reads the marks (up to writeWait): the
// worker is woken by the request's commit, and would otherwise render the
// very marks the request's own pass (Inline) is rendering — twice the
// work, and a third render when Clear finds its mark taken.
//
// Through a store that is a Yielder the request is seen by the job of
// every process sharing the folder (under CGI the worker is another
// process); a store that cannot say so leaves this process's job alone
// to give way.
func (rb *Rebuilder) Writing() (done func()) {
	if rb.writes == nil {
		return func() {}
	}
	done = rb.writes.begin()
	if y, ok := rb.Renderer.Store.(Yielder); ok {
		if theirs, err := y.Owner(context.Background()); err == nil {
			mine := done
			done = func() { theirs(); mine() }
		}
	}
	return done
}

// Yielder is an artifact store through which the owner's requests of
// every process sharing it make the rebuild job give way
// (fsstore.Store.Owner).
type Yielder interface {
	// Owner marks an owner's request in progress until done.
	Owner(ctx context.Context) (done func(), err error)
	// OwnersBusy reports whether one is in progress, without waiting.
	OwnersBusy() bool
	// WaitOwners returns when none is, or ctx ends.
	WaitOwners(ctx context.Context) error
}

// ownersBusy reports whether an owner's request is in progress, in this
// process or (through a Yielder) another.
func (rb *Rebuilder) ownersBusy() bool {
	if rb.writes.busy() {
		return true
	}
	y, ok := rb.Renderer.Store.(Yielder)
	return ok && y.OwnersBusy()
}

// waitOwners waits, up to max in all, for the owner's requests in
// progress in this process and in others.
func (rb *Rebuilder) waitOwners(ctx context.Context, max time.Duration) {
	start := time.Now()
	rb.writes.wait(ctx, max)
	if y, ok := rb.Renderer.Store.(Yielder); ok {
		c, cancel := context.WithTimeout(ctx, max-time.Since(start))
		defer cancel()
		y.WaitOwners(c) // a wait cut short: the pass goes on, as after max
	}
}

// inFlight counts what is in flight and lets others wait until none is.
type inFlight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n falls to 0
}

func (f *inFlight) begin() (done func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.idle = make(chan struct{})
	}
	f.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.n--; f.n == 0 {
				close(f.idle)
			}
		})
	}
}

// busy reports whether anything is in flight.
func (f *inFlight) busy() bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n > 0
}

// wait returns when nothing is in flight, ctx ends or max has passed.
func (f *inFlight) wait(ctx context.Context, max time.Duration) {
	if f == nil {
		return
	}
	f.mu.Lock()
	idle, n := f.idle, f.n
	f.mu.Unlock()
	if n == 0 {
		return
	}
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-idle:
	case <-ctx.Done():
	case <-t.C:
	}
}

// RegisterJobs registers artifacts.rebuild with the worker's registry.
// rebuilder returns the site's Rebuilder when the job runs (the site may
// be set up after the worker started); nil means the site keeps no
// artifacts, and the job has nothing to do.
func RegisterJobs(r *worker.Registry, rebuilder func() (*Rebuilder, error)) {
	worker.Register(r, TopicRebuild, rebuildPolicy, func(ctx context.Context, _ struct{}, _ *queue.Job) error {
		rb, err := rebuilder()
		if err != nil || rb == nil {
			return err
		}
		_, err = rb.Run(ctx)
		return err
	})
}

// Stats is what one Run did.
type Stats struct {
	Rendered int // keys rendered (stored or deleted)
	Failed   int // keys whose render failed; their marks stay
	Left     int // marks left for the next run
}

// renderers is how many keys one mark renders at once.
const renderers = 4

// marksPerRead is how many marks one pass reads: a pass ends, and the
// newest are read again, at least this often.
const marksPerRead = 50

// Inline renders, within budget, the marks made since the owner's
// request began — its own writes, the newest first, at most limit; none
// when they are more (a batch importing hundreds of posts is the job's,
// and its answer does not wait) — before the write's answer goes out, so the owner (and anyone)
// reads what they wrote at once, in serve mode and under CGI alike, however
// long a backlog the job is working through. It does not wait for the
// job's run: the two may render one key at once, and Clear, which marks
// again a key another rebuild cleared meanwhile, makes sure the render
// that stays is a fresh one. What the budget does not reach is the job's.
func (rb *Rebuilder) Inline(ctx context.Context, budget time.Duration, since time.Time, limit int) (Stats, error) {
	ctx = dbstat.Pin(ctx, dbstat.Of(ctx))
	deadline := time.Now().Add(budget)
	var st Stats
	var failed []error
	for pass := 0; ; pass++ {
		var marks []store.DirtyKey
		if err := rb.Store.View(ctx, func(tx store.Tx) (err error) {
			marks, err = tx.DirtyKeys().Newest(limit+1, since)
			return err
		}); err != nil {
			return st, err
		}
		if pass == 0 && len(marks) > limit {
			return Stats{Left: len(marks)}, nil
		}
		marks = marks[:min(len(marks), limit)]
		fs, err := rb.renderMarks(ctx, marks, deadline, &st, true)
		if err != nil {
			return st, err
		}
		failed = append(failed, fs...)
		// A site-wide change (a theme) marked every page: the newest of
		// them — the lists, feeds and actors — are rendered here too, as
		// far as the budget goes; the job does the rest.
		if pass > 0 || !time.Now().Before(deadline) || !slices.ContainsFunc(marks, func(m store.DirtyKey) bool { return m.Key == "site" }) {
			break
		}
	}
	return st, errors.Join(failed...)
}

// Run renders what the marks name, the most recently marked first (what
// was just written is what someone waits to read; a backlog goes on
// behind it), and clears each mark whose keys were all rendered — unless
// a write marked it again meanwhile (its generation moved on). A mark
// whose keys failed stays, and Run returns an error, so the job retries;
// marks left when the budget ran out go to a new job.
func (rb *Rebuilder) Run(ctx context.Context) (Stats, error) {
	if rb.running != nil {
		if !rb.running.TryLock() {
			return Stats{}, nil
		}
		defer rb.running.Unlock()
	}
	ctx = dbstat.Pin(ctx, dbstat.Of(ctx))
	var st Stats
	deadline := time.Now().Add(cmp.Or(rb.Budget, 5*time.Second)) // wall time, whatever the site's clock
	var failed []error
	skip := map[string]bool{} // marks that failed in this run: not read again
	for time.Now().Before(deadline) {
		rb.waitOwners(ctx, writeWait)
		var marks []store.DirtyKey
		err := rb.Store.View(ctx, func(tx store.Tx) (err error) {
			marks, err = tx.DirtyKeys().Newest(marksPerRead, time.Time{})
			return err
		})
		if err != nil {
			return st, err
		}
		marks = slices.DeleteFunc(marks, func(m store.DirtyKey) bool { return skip[m.Key] })
		if len(marks) == 0 {
			break
		}
		fs, err := rb.renderMarks(ctx, marks, deadline, &st, false)
		if err != nil {
			return st, err
		}
		for _, f := range fs {
			skip[f.(markError).key] = true
		}
		failed = append(failed, fs...)
	}
	err := rb.Store.Update(ctx, func(tx store.Tx) error {
		n, err := tx.DirtyKeys().Count()
		st.Left = n - len(skip)
		if err != nil || st.Left <= 0 || len(failed) > 0 {
			return err
		}
		// The budget ran out with marks left: a new job goes on (this
		// one's id is taken; a new id is a new job).
		return tx.Jobs().Enqueue(queue.Job{ID: murlog.NewID(), Topic: TopicRebuild, Payload: []byte("{}"),
			Priority: RebuildPriority})
	})
	if err != nil {
		return st, err
	}
	if len(failed) > 0 {
		return st, errors.Join(failed...)
	}
	return st, nil
}

// errNoTurn ends a pass whose budget ran out waiting for its turn.
var errNoTurn = errors.New("no render turn within the budget")

// markError is a mark whose keys did not all render.
type markError struct {
	key string
	err error
}

func (e markError) Error() string { return e.key + ": " + e.err.Error() }
func (e markError) Unwrap() error { return e.err }

// renderMarks renders marks in order until the deadline, then clears
// those done. It returns a markError for each mark that failed (its mark
// stays), and an error only when the marks could not be cleared. With
// inline (an owner's request waiting), what only crawlers read (Crawled)
// is not rendered but marked for the job.
func (rb *Rebuilder) renderMarks(ctx context.Context, marks []store.DirtyKey, deadline time.Time, st *Stats, inline bool) ([]error, error) {
	withdrawalsFirst(marks)
	var done []store.DirtyKey
	var failed []error
	var later map[string]bool
	if inline {
		later = map[string]bool{}
	}
	for i, m := range marks {
		if !time.Now().Before(deadline) {
			break
		}
		// The job gives the folder to an owner's request that began
		// meanwhile, in this process or another (its pass waits for the
		// turn): the run waits for it at the top of its next pass (Run),
		// having rendered at least one mark in this one.
		if !inline && i > 0 && rb.ownersBusy() {
			break
		}
		n, err := rb.mark(ctx, m, deadline, later)
		st.Rendered += n
		if errors.Is(err, errNoTurn) {
			break // another process renders a mark still: the rest is the job's
		}
		if err != nil {
			st.Failed++
			failed = append(failed, markError{m.Key, err})
			continue
		}
		done = append(done, m)
		if m.Key == "site" {
			break // what it marked is newer than the rest: read again
		}
	}
	if len(done) == 0 {
		return failed, nil
	}
	return failed, rb.Store.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.DirtyKeys().Clear(done...); err != nil || len(later) == 0 {
			return err
		}
		var ks []string
		for k := range later {
			ks = append(ks, "key:"+k)
		}
		return tx.DirtyKeys().Mark(ks...)
	})
}

// withdrawalsFirst puts the marks of deleted posts ("gone/…") ahead of
// the rest, keeping the order otherwise: a deleted post must stop being
// served at once — an owner deletes what should not have been public —
// and its marks only take files away, which costs next to nothing, while
// the lists the deletion also marked may take a loaded machine the whole
// budget of the owner's request.
func withdrawalsFirst(marks []store.DirtyKey) {
	slices.SortStableFunc(marks, func(a, b store.DirtyKey) int {
		return cmp.Compare(withdrawal(b), withdrawal(a))
	})
}

func withdrawal(m store.DirtyKey) int {
	if strings.HasPrefix(m.Key, "gone/") {
		return 1
	}
	return 0
}

// Crawled reports whether k is only for crawlers and costly — the
// sitemap: megabytes on a big site (50,000 addresses) — so that an owner's
// request leaves it to the job. NodeInfo's documents are crawlers' too,
// but a few hundred bytes, and a site's new name shows in them at once.
func Crawled(k artifact.Key) bool {
	return k.String() == "misc/sitemap.xml"
}

// RebuildKey renders k and stores it (Renderer.Rebuild) in a turn of its
// own, as a pass over the marks does: for tools that render one artifact
// outside a pass ("murlog artifacts check").
func (rb *Rebuilder) RebuildKey(ctx context.Context, k artifact.Key) error {
	release, err := rb.Renderer.turn(ctx, true)
	if err != nil {
		return err
	}
	defer release()
	if rb.Invalidate != nil {
		rb.Invalidate()
	}
	_, err = rb.Renderer.Rebuild(ctx, k)
	return err
}

func (rb *Rebuilder) now() time.Time {
	if rb.Now != nil {
		return rb.Now()
	}
	return time.Now()
}

// mark expands one mark into keys and renders them; a mark that only
// expands into others (site) marks them instead. With later, the keys
// only crawlers read go there instead of being rendered.
func (rb *Rebuilder) mark(ctx context.Context, m store.DirtyKey, deadline time.Time, later map[string]bool) (int, error) {
	if m.Key == "site" {
		return 0, rb.markAll(ctx)
	}
	// One mark at a time across processes: what it names is read from
	// the database and stored inside the turn, so no render of an older
	// snapshot is stored after this one (Turner). The wait for the turn
	// ends with the pass's budget.
	wait, cancel := context.WithDeadline(ctx, deadline)
	release, err := rb.Renderer.turn(wait, true)
	cancel()
	if err != nil {
		if wait.Err() != nil && ctx.Err() == nil {
			return 0, errNoTurn
		}
		return 0, err
	}
	defer release()
	// What this process keeps of personas, settings and posts is dropped
	// in the turn: a write of another process (the CGI request beside the
	// worker it spawned) reaches no cache here, and a page rendered from
	// what an earlier mark of this pass kept would be stored after the
	// write's own render and stay old until the next write.
	if rb.Invalidate != nil {
		rb.Invalidate()
	}
	keys, drop, err := rb.Expand(ctx, m.Key)
	if err != nil {
		return 0, err
	}
	if later != nil {
		keys = slices.DeleteFunc(keys, func(k artifact.Key) bool {
			if Crawled(k) {
				later[k.String()] = true
				return true
			}
			return false
		})
	}
	n := 0
	var errs []error
	for _, k := range drop {
		if err := Delete(ctx, rb.Renderer.Store, k); err != nil {
			errs = append(errs, err)
		}
	}
	// Renders run a few at a time: each waits mostly on its fsyncs, which
	// the filesystem commits together.
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, renderers)
	forget := slices.Clone(drop)
	for _, k := range keys {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			_, changed, err := rb.Renderer.RebuildChanged(ctx, k)
			mu.Lock()
			defer mu.Unlock()
			if changed {
				forget = append(forget, k)
			}
			if err != nil {
				errs = append(errs, err)
				return
			}
			n++
		})
	}
	wg.Wait()
	if rb.Forget != nil {
		rb.Forget(forget...)
	}
	return n, errors.Join(errs...)
}
