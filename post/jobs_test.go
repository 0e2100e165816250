package post_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/murlog/murlog/internal/testclock"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
	"github.com/murlog/murlog/store/storetest"
	"github.com/murlog/murlog/worker"
)

var ctx = context.Background()

// env is a post service over a real SQLite file with one persona, and a
// worker running the post jobs from that database's queue.
type env struct {
	t       *testing.T
	clock   *testclock.Clock
	db      *sqlite.DB
	posts   *post.Service
	persona string
	worker  *worker.Worker
}

func newEnv(t *testing.T) *env {
	t.Helper()
	c := testclock.New(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))
	db, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), sqlite.FileName),
		sqlite.Options{Now: c.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p := storetest.NewPersona("alice", true, c.Now())
	if err := db.Update(ctx, func(tx store.Tx) error { return tx.Personas().Create(p) }); err != nil {
		t.Fatal(err)
	}
	reg := worker.NewRegistry()
	post.RegisterJobs(reg, db)
	w := worker.New(worker.Options{Queue: queue.New(db.Queue(), queue.Options{Policies: reg}), Registry: reg})
	return &env{t: t, clock: c, db: db, persona: p.ID, worker: w,
		posts: post.New(db, murlog.Site{Scheme: "https", Domain: "example.com"})}
}

// count returns the persona's posts_count.
func (e *env) count() int {
	e.t.Helper()
	var n int
	if err := e.db.View(ctx, func(tx store.Tx) error {
		p, err := tx.Personas().Get(e.persona)
		if err == nil {
			n = p.PostsCount
		}
		return err
	}); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// publishJobs returns the post.publish jobs that have not run, by id.
func (e *env) publishJobs() map[string]*queue.Info {
	e.t.Helper()
	out := map[string]*queue.Info{}
	for _, st := range []queue.State{queue.StatePending, queue.StateScheduled} {
		infos, err := e.db.Queue().List(ctx, queue.ListQuery{State: st, Topic: post.TopicPublish, Limit: 100})
		if err != nil {
			e.t.Fatal(err)
		}
		for _, in := range infos {
			out[in.ID] = in
		}
	}
	return out
}

// run runs every job that is due and returns how many post.publish jobs
// ran (the deliveries a publication enqueues run too, unhandled here).
func (e *env) run() int {
	e.t.Helper()
	before := e.finished(post.TopicPublish)
	if _, err := e.worker.RunBatch(ctx, 10, 10*time.Second); err != nil {
		e.t.Fatalf("worker: %v", err)
	}
	return e.finished(post.TopicPublish) - before
}

// finished counts the jobs of topic that ran to their end (done or dead).
func (e *env) finished(topic string) int {
	e.t.Helper()
	n := 0
	for _, st := range []queue.State{queue.StateDone, queue.StateDead} {
		infos, err := e.db.Queue().List(ctx, queue.ListQuery{State: st, Topic: topic, Limit: 100})
		if err != nil {
			e.t.Fatal(err)
		}
		n += len(infos)
	}
	return n
}

func (e *env) create(in post.CreateInput) *murlog.Post {
	e.t.Helper()
	if in.Content == "" {
		in.Content = "hello"
	}
	p, err := e.posts.Create(ctx, in)
	if err != nil {
		e.t.Fatalf("Create: %v", err)
	}
	return p
}

func (e *env) update(in post.UpdateInput) {
	e.t.Helper()
	if _, err := e.posts.Update(ctx, in); err != nil {
		e.t.Fatalf("Update: %v", err)
	}
}

func at(t time.Time) post.Schedule { return post.Schedule{Mode: post.PublishAt, At: t} }

// wantJob checks that the only publish job waiting is p's, due at its
// published_at.
func (e *env) wantJob(what string, p *murlog.Post, pub time.Time) {
	e.t.Helper()
	jobs := e.publishJobs()
	j, ok := jobs[post.PublishJobID(p.ID, pub)]
	if !ok || len(jobs) != 1 {
		e.t.Fatalf("%s: publish jobs %v; want exactly the one of post %s at %s", what, keys(jobs), p.ID, pub)
	}
	if !j.RunAt.Equal(pub) || j.State != queue.StateScheduled {
		e.t.Errorf("%s: publish job runs at %s (%s); want scheduled at %s", what, j.RunAt, j.State, pub)
	}
	var pl post.PublishPayload
	if err := json.Unmarshal(j.Payload, &pl); err != nil || pl.PostID != p.ID || !pl.PublishedAt.Equal(pub) {
		e.t.Errorf("%s: payload %s; want post %s at %s", what, j.Payload, p.ID, pub)
	}
}

func keys(m map[string]*queue.Info) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestScheduledPublication follows a scheduled post through its life: it
// does not count until its post.publish job runs at its time, moving it
// moves the job, unscheduling or deleting it takes the job back, and a
// post published now counts at once with no job.
func TestScheduledPublication(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	t0 := e.clock.Now()
	in1h := t0.Add(time.Hour)

	p := e.create(post.CreateInput{PublishedAt: at(in1h)})
	if n := e.count(); n != 0 {
		t.Errorf("posts_count after creating a post scheduled in an hour = %d; want 0", n)
	}
	e.wantJob("after Create", p, in1h)
	if ran := e.run(); ran != 0 {
		t.Errorf("worker ran %d jobs before the time; want 0", ran)
	}

	// Editing the text leaves the schedule, and the one job, alone.
	text := "edited"
	e.update(post.UpdateInput{ID: p.ID, Content: &text})
	e.wantJob("after editing the text", p, in1h)

	e.clock.Advance(time.Hour)
	if ran := e.run(); ran != 1 {
		t.Fatalf("worker ran %d jobs at the scheduled time; want the publish job", ran)
	}
	if n := e.count(); n != 1 {
		t.Errorf("posts_count after the publish job ran = %d; want 1", n)
	}
	// The same job once more (a redelivery) recounts: still 1.
	dup := queue.NewJob(post.TopicPublish, mustJSON(t, post.PublishPayload{PostID: p.ID, PublishedAt: in1h}))
	e.enqueue(dup)
	if ran := e.run(); ran != 1 || e.count() != 1 {
		t.Errorf("a second publish job of the same post ran (%d) and left posts_count = %d; want 1", ran, e.count())
	}

	// Reschedule: the old job is gone, the new one waits at the new time.
	now := e.clock.Now()
	q := e.create(post.CreateInput{PublishedAt: at(now.Add(2 * time.Hour))})
	e.wantJob("after creating a second scheduled post", q, now.Add(2*time.Hour))
	later := at(now.Add(3 * time.Hour))
	e.update(post.UpdateInput{ID: q.ID, PublishedAt: &later})
	e.wantJob("after rescheduling", q, now.Add(3*time.Hour))
	// The old schedule's job, had it been running already, does nothing.
	e.enqueue(queue.NewJob(post.TopicPublish, mustJSON(t, post.PublishPayload{PostID: q.ID, PublishedAt: now.Add(2 * time.Hour)})))
	e.clock.Advance(150 * time.Minute)
	if ran := e.run(); ran != 1 || e.count() != 1 {
		t.Errorf("the old schedule's job ran (%d) and left posts_count = %d; want 1 (q is not due)", ran, e.count())
	}

	// Unschedule: the job is taken back.
	draft := post.Schedule{Mode: post.PublishDraft}
	e.update(post.UpdateInput{ID: q.ID, PublishedAt: &draft})
	if jobs := e.publishJobs(); len(jobs) != 0 {
		t.Errorf("after making the post a draft, publish jobs %v wait; want none", keys(jobs))
	}

	// Delete a scheduled post: the job is taken back.
	now = e.clock.Now()
	r := e.create(post.CreateInput{PublishedAt: at(now.Add(time.Hour))})
	e.wantJob("after creating a third scheduled post", r, now.Add(time.Hour))
	if err := e.posts.Delete(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if jobs := e.publishJobs(); len(jobs) != 0 {
		t.Errorf("after deleting the scheduled post, publish jobs %v wait; want none", keys(jobs))
	}

	// Publish now and back-date: counted at once, no job.
	e.create(post.CreateInput{})
	e.create(post.CreateInput{PublishedAt: at(t0.Add(-24 * time.Hour))})
	if n := e.count(); n != 3 {
		t.Errorf("posts_count after publishing one now and one back-dated = %d; want 3", n)
	}
	if jobs := e.publishJobs(); len(jobs) != 0 {
		t.Errorf("publishing now left publish jobs %v; want none", keys(jobs))
	}
	// And the owner's draft made public now counts at once.
	pubNow := post.Schedule{Mode: post.PublishNow}
	e.update(post.UpdateInput{ID: q.ID, PublishedAt: &pubNow})
	if n, jobs := e.count(), e.publishJobs(); n != 4 || len(jobs) != 0 {
		t.Errorf("after publishing the draft now: posts_count = %d, jobs %v; want 4 and none", n, keys(jobs))
	}
}

// TestScheduledPastDueUnrun covers a scheduled post whose time has come
// but whose publish job has not run (a CGI site with no traffic runs no
// worker): unscheduling or deleting it must not take one off a counter
// that never included it, and moving it must count it exactly once.
func TestScheduledPastDueUnrun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	t0 := e.clock.Now()
	e.create(post.CreateInput{}) // one published post: posts_count 1
	a := e.create(post.CreateInput{PublishedAt: at(t0.Add(time.Minute))})
	b := e.create(post.CreateInput{PublishedAt: at(t0.Add(2 * time.Minute))})
	c := e.create(post.CreateInput{PublishedAt: at(t0.Add(3 * time.Minute))})
	e.clock.Advance(time.Hour) // all three are due; no worker ran

	draft := post.Schedule{Mode: post.PublishDraft}
	e.update(post.UpdateInput{ID: a.ID, PublishedAt: &draft})
	// The recount sees b and c published by their time.
	if n := e.count(); n != 3 {
		t.Errorf("posts_count after unscheduling a due, unrun post = %d; want 3 (the first post, b and c)", n)
	}
	if err := e.posts.Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	back := at(t0.Add(-time.Hour))
	e.update(post.UpdateInput{ID: c.ID, PublishedAt: &back})
	if n := e.count(); n != 2 {
		t.Errorf("posts_count after deleting b and back-dating c = %d; want 2", n)
	}
	// What is left of their jobs runs and changes nothing.
	e.run()
	if n := e.count(); n != 2 {
		t.Errorf("posts_count after the leftover jobs ran = %d; want 2", n)
	}
}

// TestPublishJobID: one schedule is one id, another time another id, and
// the id sorts by when the job is due.
func TestPublishJobID(t *testing.T) {
	t.Parallel()
	id := murlog.NewID()
	t1 := time.Date(2026, 5, 1, 9, 0, 0, 123456789, time.UTC)
	t2 := t1.Add(time.Millisecond)
	if post.PublishJobID(id, t1) != post.PublishJobID(id, t1.In(time.FixedZone("JST", 9*3600))) {
		t.Error("PublishJobID differs for one instant in two zones")
	}
	if post.PublishJobID(id, t1) == post.PublishJobID(id, t1.Add(time.Microsecond)) {
		t.Error("PublishJobID is the same for two times a microsecond apart")
	}
	if a, b := post.PublishJobID(id, t1), post.PublishJobID(murlog.NewID(), t2); !murlog.ValidID(a) || a >= b {
		t.Errorf("PublishJobID at %s = %s, at %s = %s; want valid ids in time order", t1, a, t2, b)
	}
}

func (e *env) enqueue(j queue.Job) {
	e.t.Helper()
	if err := e.db.Update(ctx, func(tx store.Tx) error { return tx.Jobs().Enqueue(j) }); err != nil {
		e.t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// retrying is the real store run the way an engine that retries
// serialisation failures runs it: every Update's fn runs once in a
// transaction that is then rolled back, and again in one that commits.
type retrying struct{ store.Store }

var errRetry = errors.New("could not serialize access (simulated)")

func (r retrying) Update(ctx context.Context, fn func(store.Tx) error) error {
	err := r.Store.Update(ctx, func(tx store.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errRetry
	})
	if !errors.Is(err, errRetry) {
		return err
	}
	return r.Store.Update(ctx, fn)
}

// TestWritesSurviveARetriedTransaction holds post's writes to the
// Store.Update contract: fn may run twice, so it must keep nothing of a
// rolled-back run. Counts and jobs come out as with one run.
func TestWritesSurviveARetriedTransaction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.posts = post.New(retrying{e.db}, murlog.Site{Scheme: "https", Domain: "example.com"})
	a := e.create(post.CreateInput{Content: "now"})
	s := e.create(post.CreateInput{PublishedAt: at(e.clock.Now().Add(time.Hour))})
	if n := e.count(); n != 1 {
		t.Errorf("posts_count after one post published and one scheduled, each write run twice = %d; want 1", n)
	}
	e.wantJob("after a retried Create", s, e.clock.Now().Add(time.Hour))
	text := "edited"
	u, err := e.posts.Update(ctx, post.UpdateInput{ID: a.ID, Content: &text})
	if err != nil || u.Source != "edited" || !u.UpdatedAt.Equal(e.clock.Now()) {
		t.Errorf("retried Update = %+v, %v; want the edit", u, err)
	}
	now := post.Schedule{Mode: post.PublishNow}
	e.update(post.UpdateInput{ID: s.ID, PublishedAt: &now})
	if n, jobs := e.count(), e.publishJobs(); n != 2 || len(jobs) != 0 {
		t.Errorf("after publishing the scheduled post now (run twice): posts_count = %d, jobs %v; want 2 and none", n, keys(jobs))
	}
	if err := e.posts.Delete(ctx, a.ID); err != nil {
		t.Fatalf("retried Delete: %v", err)
	}
	if n := e.count(); n != 1 {
		t.Errorf("posts_count after a retried Delete = %d; want 1", n)
	}
}
