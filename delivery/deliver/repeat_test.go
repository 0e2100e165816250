package deliver_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/worker"
)

// lostAcks is the real queue with the acks of a worker that is killed
// before they land: the runs happen, nothing records them.
type lostAcks struct{ queue.Queue }

func (lostAcks) Ack(context.Context, *queue.Job, queue.Result) error { return nil }
func (lostAcks) AckBatch(context.Context, []queue.Ack) error         { return nil }

// TestRepeatedDeliveriesCarryOneActivityID: a post's deliveries run again
// after their worker died before its acks landed (the fan-out parent
// included), and one of them is retried after a 503 on top. Every POST of
// the post, first, repeated or retried, is the Create with the same id,
// by which receivers drop the repeats; the fan-out run again creates no
// second job for a recipient.
func TestRepeatedDeliveriesCarryOneActivityID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(1, 2, false, "r") // two inboxes: /users/u0/inbox, /users/u1/inbox
	q := queue.New(e.db.Queue(), queue.Options{Policies: e.reg})
	killed := worker.New(worker.Options{Queue: lostAcks{q}, Registry: e.reg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Hold: notRebuilds})
	p := e.publish(post.CreateInput{})
	if n, err := killed.RunBatch(ctx, 100, 30*time.Second); err != nil || n != 3 {
		t.Fatalf("the worker whose acks are lost ran %d jobs, %v; want the fan-out and its 2 deliveries", n, err)
	}
	first := e.sink.take()
	if len(first) != 2 || e.jobs(delivery.TopicDeliverNote) != 2 {
		t.Fatalf("first run: %d POSTs, %d deliver_note jobs; want 2 and 2", len(first), e.jobs(delivery.TopicDeliverNote))
	}

	// Its leases run out; the jobs run again, one remote answering 503.
	e.clock.Advance(q.Lease() + time.Second)
	if n, err := q.RecoverExpired(ctx); err != nil || n != 3 {
		t.Fatalf("RecoverExpired = %d, %v; want the 3 jobs the dead worker held", n, err)
	}
	failing := first[0].Path
	e.sink.setStatus(failing, http.StatusServiceUnavailable)
	e.run()
	second := e.sink.take()
	e.sink.setStatus(failing, http.StatusAccepted)
	e.clock.Advance(3 * time.Minute) // past the backoff after a second attempt (2 min)
	e.run()
	third := e.sink.take()
	if e.jobs(delivery.TopicDeliverNote) != 2 || e.state(delivery.TopicDeliverPost) != queue.StateDone {
		t.Errorf("after the re-run: %d deliver_note jobs, deliver_post %s; want still 2 (one per recipient) and done",
			e.jobs(delivery.TopicDeliverNote), e.state(delivery.TopicDeliverPost))
	}
	want := federation.CreateID(e.site, e.persona.Username, p.ID)
	all := append(append(append([]got(nil), first...), second...), third...)
	verified(t, all)
	perInbox := map[string]int{}
	for _, g := range all {
		perInbox[g.Path]++
		if g.typ() != "Create" || g.Activity["id"] != want {
			t.Errorf("POST to %s%s: %v %v; want the Create %s every time", g.Host, g.Path, g.typ(), g.Activity["id"], want)
		}
		if o := g.object(); o == nil || o["id"] != e.site.PostURL(e.persona.Username, p.ID) {
			t.Errorf("POST to %s%s carries the object %v; want the post", g.Host, g.Path, o["id"])
		}
	}
	if len(second) != 2 || len(third) != 1 || third[0].Path != failing || len(perInbox) != 2 {
		t.Errorf("POSTs: %d first, %d repeated, %d retried, to %d inboxes; want 2, 2, 1 (to %s) to 2",
			len(first), len(second), len(third), len(perInbox), failing)
	}
}
