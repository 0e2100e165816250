package fanout_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/fanout"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
)

var ctx = context.Background()

// openDB opens a migrated database file in a temporary directory.
func openDB(tb testing.TB) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(ctx, sqlitetest.Path(tb, tb.TempDir(), sqlite.FileName), sqlite.Options{Logger: quiet})
	if err != nil {
		tb.Fatalf("sqlite.Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// counted is the real store with its write transactions counted.
type counted struct {
	store.Store
	updates int
}

func (c *counted) Update(ctx context.Context, fn func(store.Tx) error) error {
	c.updates++
	return c.Store.Update(ctx, fn)
}

const domainCount = 100

// recipients returns n recipients sorted by ID, spread evenly over
// domainCount domains d00.example … d99.example.
func recipients(n int) []fanout.Recipient {
	rs := make([]fanout.Recipient, n)
	for i := range rs {
		id := fmt.Sprintf("r%05d", i)
		rs[i] = fanout.Recipient{ID: id, Inbox: fmt.Sprintf("https://d%02d.example/users/%s/inbox", i%domainCount, id)}
	}
	return rs
}

// uuidRecipients is recipients(n) with UUIDv7 ids, as a followers
// table's rows would have, still sorted.
func uuidRecipients(n int) []fanout.Recipient {
	rs := recipients(n)
	for i := range rs {
		rs[i].ID = murlog.NewID() // monotonic within the process
	}
	return rs
}

// pager pages over a sorted slice, counting its calls and the non-empty
// pages it returned. failAfter makes the call with that cursor fail.
type pager struct {
	rs        []fanout.Recipient
	calls     int
	pages     int
	failAfter string
}

var errPager = errors.New("followers table unreadable")

func (p *pager) page(_ context.Context, after string, limit int) ([]fanout.Recipient, error) {
	p.calls++
	if p.failAfter != "" && after == p.failAfter {
		return nil, errPager
	}
	i := sort.Search(len(p.rs), func(i int) bool { return p.rs[i].ID > after })
	out := p.rs[i:min(i+limit, len(p.rs))]
	if len(out) > 0 {
		p.pages++
	}
	return out, nil
}

const parent = "01a22c96-7857-70f9-bbb4-7a4a6ae66d4f"

// build makes a deliver_note job per recipient.
func build(r fanout.Recipient) (queue.Job, error) {
	payload, err := json.Marshal(map[string]string{"recipient": r.ID, "inbox": r.Inbox})
	if err != nil {
		return queue.Job{}, err
	}
	return queue.NewJob("deliver_note", payload), nil
}

// byRecipient indexes claimed jobs by the recipient in their payload and
// fails the test if a recipient has two.
func byRecipient(t *testing.T, jobs map[string]*queue.Job) map[string]*queue.Job {
	t.Helper()
	out := map[string]*queue.Job{}
	for _, j := range jobs {
		var p struct{ Recipient string }
		json.Unmarshal(j.Payload, &p)
		if out[p.Recipient] != nil {
			t.Fatalf("recipient %s has two jobs", p.Recipient)
		}
		out[p.Recipient] = j
	}
	return out
}

// drain claims every runnable job and returns them by id.
func drain(t *testing.T, db *sqlite.DB) map[string]*queue.Job {
	t.Helper()
	out := map[string]*queue.Job{}
	for {
		js, err := db.Queue().Claim(ctx, nil, queue.MaxBatch, queue.DefaultLease)
		if err != nil {
			t.Fatalf("DequeueBatch: %v", err)
		}
		if len(js) == 0 {
			return out
		}
		for _, j := range js {
			out[j.ID] = j
		}
	}
}

// total counts the jobs in the queue in any state.
func total(t *testing.T, db *sqlite.DB) int {
	t.Helper()
	cs, err := db.Queue().Counts(ctx)
	if err != nil {
		t.Fatalf("Counts: %v", err)
	}
	n := 0
	for _, c := range cs {
		n += c.N
	}
	return n
}

// TestRun fans out to 10,000 recipients in pages of 100: 100 write
// transactions (plus one recording completion), one dead-set read, every
// live recipient's job claimable, and a second run that adds nothing.
func TestRun(t *testing.T) {
	const n = 10000
	for _, tc := range []struct {
		name string
		dead []string // domains given DeadThreshold failures first
		want fanout.Stats
	}{
		{"no dead domains", nil, fanout.Stats{Recipients: n, Enqueued: n, SkippedDead: 0, Pages: 100}},
		{"two dead domains", []string{"d07.example", "D42.example"},
			fanout.Stats{Recipients: n, Enqueued: n - 2*n/domainCount, SkippedDead: 2 * n / domainCount, Pages: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t)
			breaker := domains.New(db)
			for _, d := range tc.dead {
				for i := 0; i < domains.DeadThreshold; i++ {
					if err := breaker.Failure(ctx, d, errors.New("HTTP 502")); err != nil {
						t.Fatal(err)
					}
				}
			}
			deadCalls := 0
			opts := fanout.Options{Key: parent, Build: build, Dead: func(ctx context.Context) (map[string]bool, error) {
				deadCalls++
				return breaker.DeadSet(ctx)
			}}
			st := &counted{Store: db}
			// Follower-like UUIDv7 ids, whose jobs' ids keep their order
			// (TestRunTwiceAtOnce covers other ids too).
			p := &pager{rs: uuidRecipients(n)}
			got, err := fanout.Run(ctx, st, p.page, opts)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got != tc.want {
				t.Errorf("Run stats = %+v; want %+v", got, tc.want)
			}
			if st.updates != 101 || p.pages != 100 {
				t.Errorf("Run used %d write transactions for %d pages; want 101 for 100 (one per page, one to finish)", st.updates, p.pages)
			}
			if deadCalls != 1 {
				t.Errorf("Run read the dead set %d times; want once per fan-out", deadCalls)
			}
			jobs := byRecipient(t, drain(t, db))
			if len(jobs) != tc.want.Enqueued {
				t.Errorf("claimed %d jobs; want %d", len(jobs), tc.want.Enqueued)
			}
			dead := map[string]bool{}
			for _, d := range tc.dead {
				dead[strings.ToLower(d)] = true
			}
			for _, r := range p.rs {
				d, _ := domains.FromURL(r.Inbox)
				j, ok := jobs[r.ID]
				if ok == dead[d] {
					t.Fatalf("recipient %s on %s (dead: %v): job claimed = %v", r.ID, d, dead[d], ok)
				}
				if ok && (j.Topic != "deliver_note" || !strings.Contains(string(j.Payload), r.Inbox)) {
					t.Fatalf("job for %s = %s %s; want deliver_note to its inbox", r.ID, j.Topic, j.Payload)
				}
			}

			// Run again (the job running it was retried): it knows it
			// finished and adds nothing, without reading a single page.
			before := total(t, db)
			p2 := &pager{rs: p.rs}
			again, err := fanout.Run(ctx, db, p2.page, opts)
			if err != nil || !again.Finished || again.Enqueued != 0 || p2.calls != 0 {
				t.Errorf("second Run = %+v, %v after %d pager calls; want Finished and nothing done", again, err, p2.calls)
			}
			if after := total(t, db); after != before {
				t.Errorf("second Run grew the queue from %d to %d jobs; want no new jobs", before, after)
			}
			if more := drain(t, db); len(more) != 0 {
				t.Errorf("after the second Run %d jobs are claimable; want 0", len(more))
			}
		})
	}
}

var errBuild = errors.New("post was deleted")

// TestRunStops checks that a failure mid-way stops the fan-out with only
// whole pages committed and says how many, and that running it again
// completes it without duplicates.
func TestRunStops(t *testing.T) {
	const n = 2000 // 20 pages: enough for a middle, a first and a last
	badTopic := func(at int) func(fanout.Recipient) (queue.Job, error) {
		id := fmt.Sprintf("r%05d", at)
		return func(r fanout.Recipient) (queue.Job, error) {
			j, err := build(r)
			if r.ID == id {
				j.Topic = "Deliver-Note"
			}
			return j, err
		}
	}
	for _, tc := range []struct {
		name      string
		build     func(fanout.Recipient) (queue.Job, error)
		failAfter string // cursor at which the pager fails
		pages     int    // committed before the stop
		is        error
		code      murlog.Code
		mention   string
	}{
		{"build error on page 13", func(r fanout.Recipient) (queue.Job, error) {
			if r.ID == "r01250" {
				return queue.Job{}, errBuild
			}
			return build(r)
		}, "", 12, errBuild, murlog.EInternal, `"r01250"`},
		{"invalid topic on page 1", badTopic(50), "", 0, nil, murlog.EInvalid, "topic"},
		{"invalid topic on the last page", badTopic(n - 1), "", 19, nil, murlog.EInvalid, "topic"},
		{"pager error on page 11", build, "r00999", 10, errPager, murlog.EInternal, `after "r00999"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t)
			p := &pager{rs: recipients(n), failAfter: tc.failAfter}
			got, err := fanout.Run(ctx, db, p.page, fanout.Options{Key: parent, Build: tc.build})
			if err == nil {
				t.Fatalf("Run = %+v, nil; want it to stop at page %d", got, tc.pages+1)
			}
			want := fmt.Sprintf("stopped at page %d, after %d pages (%d jobs) committed", tc.pages+1, tc.pages, tc.pages*100)
			if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("Run err = %q; want it to say %q and mention %s", err, want, tc.mention)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("Run err = %v; want it to wrap %v", err, tc.is)
			}
			if c := murlog.ErrorCode(err); c != tc.code {
				t.Errorf("Run err code = %s; want %s", c, tc.code)
			}
			if got.Pages != tc.pages || got.Enqueued != tc.pages*100 || got.Recipients != tc.pages*100 {
				t.Errorf("Run stats = %+v; want %d pages of 100 committed", got, tc.pages)
			}
			if jobs := total(t, db); jobs != tc.pages*100 {
				t.Errorf("queue holds %d jobs; want %d (whole pages only)", jobs, tc.pages*100)
			}

			// Run again: it resumes after the last committed recipient.
			p2 := &pager{rs: p.rs}
			again, err := fanout.Run(ctx, db, p2.page, fanout.Options{Key: parent, Build: build})
			if err != nil {
				t.Fatalf("Run again: %v", err)
			}
			wantResume := ""
			if tc.pages > 0 {
				wantResume = fmt.Sprintf("r%05d", tc.pages*100-1)
			}
			if again.Resumed != wantResume || again.Recipients != n-tc.pages*100 {
				t.Errorf("second Run = %+v; want it to resume after %q and read the other %d recipients", again, wantResume, n-tc.pages*100)
			}
			if jobs := byRecipient(t, drain(t, db)); len(jobs) != n {
				t.Errorf("after running again %d recipients have a job; want exactly %d, one each", len(jobs), n)
			}
		})
	}
}

// TestRunEdges covers the options and pagers Run refuses, and the cases
// where it must not touch the store at all.
func TestRunEdges(t *testing.T) {
	db := openDB(t)
	two := recipients(2)
	fixed := func(rs []fanout.Recipient) fanout.Pager {
		return func(context.Context, string, int) ([]fanout.Recipient, error) { return rs, nil }
	}
	errDead := errors.New("dead set unreadable")
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		pages  fanout.Pager
		opts   fanout.Options
		errHas string // "" for success
		want   fanout.Stats
	}{
		{"no Build", ctx, (&pager{rs: two}).page, fanout.Options{Key: "k"}, "are required", fanout.Stats{}},
		{"no Key", ctx, (&pager{rs: two}).page, fanout.Options{Build: build}, "are required", fanout.Stats{}},
		{"page size over MaxBatch", ctx, (&pager{rs: two}).page, fanout.Options{Build: build, PageSize: queue.MaxBatch + 1}, "outside", fanout.Stats{}},
		{"pager ignores the limit", ctx, fixed(recipients(3)), fanout.Options{Build: build, PageSize: 2}, "3 recipients for a page of 2", fanout.Stats{}},
		{"pager does not advance", ctx, fixed(two), fanout.Options{Build: build}, "did not advance", fanout.Stats{Recipients: 2, Enqueued: 2, Pages: 1}},
		{"dead set fails", ctx, (&pager{rs: two}).page, fanout.Options{Build: build, Dead: func(context.Context) (map[string]bool, error) { return nil, errDead }}, errDead.Error(), fanout.Stats{}},
		{"canceled", canceled, (&pager{rs: two}).page, fanout.Options{Build: build}, "context canceled", fanout.Stats{}},
		{"no recipients", ctx, (&pager{}).page, fanout.Options{Build: build, Dead: func(context.Context) (map[string]bool, error) {
			t.Error("Dead called for a fan-out with no recipients")
			return nil, nil
		}}, "", fanout.Stats{}},
		{"unreadable inbox is not skipped", ctx, (&pager{rs: []fanout.Recipient{{ID: "x1", Inbox: "not a url"}, {ID: "x2", Inbox: "https://d01.example/inbox"}}}).page,
			fanout.Options{Build: build, Dead: func(context.Context) (map[string]bool, error) { return map[string]bool{"d01.example": true}, nil }},
			"", fanout.Stats{Recipients: 2, Enqueued: 1, SkippedDead: 1, Pages: 1}},
		{"page of dead recipients only", ctx, (&pager{rs: []fanout.Recipient{{ID: "y1", Inbox: "https://D01.example:443/inbox"}}}).page,
			fanout.Options{Build: build, Dead: func(context.Context) (map[string]bool, error) { return map[string]bool{"d01.example": true}, nil }},
			"", fanout.Stats{Recipients: 1, SkippedDead: 1, Pages: 1}},
	} {
		st := &counted{Store: db}
		if tc.opts.Key == "" && tc.name != "no Key" {
			tc.opts.Key = tc.name // progress is per fan-out; the cases share a database
		}
		got, err := fanout.Run(tc.ctx, st, tc.pages, tc.opts)
		switch {
		case tc.errHas == "" && err != nil:
			t.Errorf("%s: Run err = %v; want success", tc.name, err)
		case tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)):
			t.Errorf("%s: Run err = %v; want one saying %q", tc.name, err, tc.errHas)
		}
		if got != tc.want {
			t.Errorf("%s: Run stats = %+v; want %+v", tc.name, got, tc.want)
		}
		if tc.errHas == "" && st.updates != got.Pages+1 {
			t.Errorf("%s: Run opened %d write transactions for %d pages; want one per page and one to finish", tc.name, st.updates, got.Pages)
		}
	}
}

// rendezvous is a pager shared by two runs whose first calls wait for each
// other, so both runs have read the fan-out's position before either
// commits a page: the race a stale recovery or a migration sets up.
type rendezvous struct {
	rs      []fanout.Recipient
	arrived chan struct{}
	mu      sync.Mutex
	first   map[int]bool
}

func (p *rendezvous) pager(run int) fanout.Pager {
	return func(ctx context.Context, after string, limit int) ([]fanout.Recipient, error) {
		p.mu.Lock()
		first := !p.first[run]
		p.first[run] = true
		p.mu.Unlock()
		if first {
			p.arrived <- struct{}{}
			select {
			case <-p.arrived: // the other run's arrival, or our own given back
			case <-time.After(5 * time.Second):
				return nil, errors.New("the other run never read its first page")
			}
			p.arrived <- struct{}{} // let the other run through too
		}
		i := sort.Search(len(p.rs), func(i int) bool { return p.rs[i].ID > after })
		return p.rs[i:min(i+limit, len(p.rs))], nil
	}
}

// TestRunTwiceAtOnce runs two fan-outs of one key at the same time over
// 1,000 recipients: every page commits in exactly one of them, and the
// queue holds exactly one job per recipient, with the derived id — for
// recipients with UUID ids (ids kept in order) and with other ids (hashed).
func TestRunTwiceAtOnce(t *testing.T) {
	const n = 1000
	for name, rs := range map[string][]fanout.Recipient{"uuid ids": uuidRecipients(n), "other ids": recipients(n)} {
		t.Run(name, func(t *testing.T) { runTwiceAtOnce(t, rs) })
	}
}

func runTwiceAtOnce(t *testing.T, rs []fanout.Recipient) {
	n := len(rs)
	db := openDB(t)
	p := &rendezvous{rs: rs, arrived: make(chan struct{}, 2), first: map[int]bool{}}
	var wg sync.WaitGroup
	stats := make([]fanout.Stats, 2)
	errs := make([]error, 2)
	for run := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stats[run], errs[run] = fanout.Run(ctx, db, p.pager(run), fanout.Options{Key: parent, Build: build})
		}()
	}
	wg.Wait()
	for run, err := range errs {
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
	}
	a, b := stats[0], stats[1]
	if a.Recipients+b.Recipients != n || a.Enqueued+b.Enqueued != n {
		t.Errorf("runs covered %d+%d recipients with %d+%d jobs; want %d in all, each page in one run", a.Recipients, b.Recipients, a.Enqueued, b.Enqueued, n)
	}
	if a.Lost+b.Lost == 0 {
		t.Errorf("stats %+v and %+v report no lost page; both read the start, so one must have lost the first", a, b)
	}
	if got := total(t, db); got != n {
		t.Errorf("queue holds %d jobs after two concurrent runs; want %d, one per recipient", got, n)
	}
	jobs := byRecipient(t, drain(t, db))
	if len(jobs) != n {
		t.Errorf("%d recipients have a job; want %d", len(jobs), n)
	}
	for r, j := range jobs {
		if want := fanout.JobID(parent, r); j.ID != want {
			t.Fatalf("job of %s has id %s; want the derived %s", r, j.ID, want)
		}
	}
}

// TestRunAfterLostProgress is a fan-out whose worker died between pages
// and whose position was then lost (a queue migration that did not carry
// fanout_progress): the run after it starts from the beginning, and the
// derived ids make every job it enqueues one the queue already has, so no
// recipient gets a second.
func TestRunAfterLostProgress(t *testing.T) {
	const n = 1000
	db := openDB(t)
	rs := recipients(n)
	crash, die := context.WithCancel(ctx)
	calls := 0
	dying := func(ctx context.Context, after string, limit int) ([]fanout.Recipient, error) {
		if calls++; calls == 5 {
			die() // the process dies after committing 4 pages
		}
		i := sort.Search(len(rs), func(i int) bool { return rs[i].ID > after })
		return rs[i:min(i+limit, len(rs))], nil
	}
	got, err := fanout.Run(crash, db, dying, fanout.Options{Key: parent, Build: build})
	if !errors.Is(err, context.Canceled) || got.Pages != 4 || total(t, db) != 400 {
		t.Fatalf("crashing Run = %+v, %v with %d jobs queued; want 4 pages (400 jobs) then context canceled", got, err, total(t, db))
	}

	// Resume as it was: after the last committed recipient.
	p := &pager{rs: rs}
	again, err := fanout.Run(ctx, db, p.page, fanout.Options{Key: parent, Build: build})
	if err != nil || again.Resumed != "r00399" || again.Recipients != n-400 {
		t.Fatalf("resumed Run = %+v, %v; want it to resume after r00399 and read %d recipients", again, err, n-400)
	}
	if got := total(t, db); got != n {
		t.Fatalf("after resuming the queue holds %d jobs; want %d", got, n)
	}

	// Lose the position, then run once more from the start.
	raw, err := sql.Open("sqlite", db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec("DELETE FROM fanout_progress"); err != nil {
		t.Fatal(err)
	}
	p2 := &pager{rs: rs}
	third, err := fanout.Run(ctx, db, p2.page, fanout.Options{Key: parent, Build: build})
	if err != nil || third.Resumed != "" || third.Recipients != n {
		t.Fatalf("Run with lost progress = %+v, %v; want it to walk all %d recipients again", third, err, n)
	}
	if got := total(t, db); got != n {
		t.Errorf("after a run with lost progress the queue holds %d jobs; want still %d (the same ids)", got, n)
	}
	if jobs := byRecipient(t, drain(t, db)); len(jobs) != n {
		t.Errorf("%d recipients have a job; want %d, one each", len(jobs), n)
	}
}

// TestJobID checks what the derived ids promise: a pure function of key
// and recipient, distinct per recipient and per key, a canonical id; for
// UUID recipients the recipients' order kept (a page appends to one place
// in the queue's index), for others the key's timestamp first when the
// key is a UUIDv7.
func TestJobID(t *testing.T) {
	key, other := murlog.NewID(), murlog.NewID()
	upper := strings.ToUpper(key)
	uuids := make([]string, 2000)
	for i := range uuids {
		uuids[i] = murlog.NewID() // monotonic: in the pager's order
	}
	names := []string{"r00001", "https://a.example/users/x", upper} // not canonical UUIDs: hashed
	seen := map[string]string{}
	for _, k := range []string{key, other, "not-a-uuid-key"} {
		descents := 0
		var prev string
		for _, r := range append(append([]string{}, uuids...), names...) {
			id := fanout.JobID(k, r)
			if id != fanout.JobID(k, r) {
				t.Fatalf("JobID(%s, %s) differs between calls", k, r)
			}
			if !murlog.ValidID(id) {
				t.Fatalf("JobID(%s, %s) = %q; want a canonical UUID string", k, r, id)
			}
			if was, dup := seen[id]; dup {
				t.Fatalf("JobID(%s, %s) = %s, the id of %s too", k, r, id, was)
			}
			seen[id] = k + " " + r
			if murlog.ValidID(r) {
				if prev != "" && id < prev {
					descents++ // once at most: where recipient + h(key) wraps
				}
				prev = id
			} else if k != "not-a-uuid-key" && id[:13] != k[:13] {
				t.Fatalf("JobID(%s, %s) = %s; want it to start with the key's timestamp %s", k, r, id, k[:13])
			}
		}
		if descents > 1 {
			t.Errorf("key %s: ids of %d UUID recipients in order fell %d times; want them in recipient order (one wrap at most)", k, len(uuids), descents)
		}
	}
	if fanout.JobID(key, key) == fanout.JobID(key, upper) {
		t.Error("JobID gives a recipient and its upper-case spelling one id; want two")
	}
}

// TestRunOnPage: OnPage sees each page's recipients with a job and those
// skipped on dead domains, inside the page's transaction: what it writes
// commits with the jobs, and its error rolls the page back (no job, no
// progress) and stops the run.
func TestRunOnPage(t *testing.T) {
	db := openDB(t)
	p := &pager{rs: recipients(250)}
	dead := func(context.Context) (map[string]bool, error) { return map[string]bool{"d07.example": true}, nil }
	var sent, skipped int
	fail := true
	o := fanout.Options{Key: parent, Build: build, Dead: dead, OnPage: func(tx store.Tx, s, k []fanout.Recipient) error {
		if fail && sent > 0 {
			return errPager // the second page fails once
		}
		for _, r := range s {
			if err := tx.Deliveries().Add(parent, tx.Now(), r.Inbox); err != nil {
				return err
			}
		}
		sent, skipped = sent+len(s), skipped+len(k)
		return nil
	}}
	st, err := fanout.Run(ctx, db, p.page, o)
	if !errors.Is(err, errPager) || st.Pages != 1 {
		t.Fatalf("Run with a failing OnPage = %+v, %v; want 1 page then the hook's error", st, err)
	}
	if n := len(drain(t, db)); n != sent {
		t.Errorf("after the rolled-back page: %d jobs; want %d (the first page's)", n, sent)
	}
	fail = false
	if _, err := fanout.Run(ctx, db, p.page, o); err != nil {
		t.Fatal(err)
	}
	var sum *store.DeliverySummary
	db.View(ctx, func(tx store.Tx) error { var err error; sum, err = tx.Deliveries().Summary(parent); return err })
	if sent != 250-3 || skipped != 3 || sum.Pending != sent {
		t.Errorf("OnPage saw %d sent, %d skipped, rows %d pending; want 247, 3 (d07's) and 247", sent, skipped, sum.Pending)
	}
}
