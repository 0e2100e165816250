package inbox

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

// pending is one accepted activity on its way to the database; isNew and
// err are its result, valid once done is closed.
type pending struct {
	id, actorID, personaID string
	body                   []byte
	traceparent            string

	isNew bool
	err   error
	done  chan struct{}
}

// batcher is the inbox's group commit: SQLite has one writer, and one
// transaction per POST would cap the inbox at the writer's commit rate.
// Accepted items wait up to MaxWait for others (at most MaxItems), and
// each group is written in one transaction, every waiting request getting
// its own result. The goroutine that writes runs only while there is
// work, so an idle or replaced runtime leaves nothing behind.
//
// It admits no more than its writer can store within QueueWait: the
// number waiting is held to MaxItems per transaction times the
// transactions the last writes show fit in QueueWait (between MaxItems
// and Queue). Past that, or when no room frees within submitWait, an
// activity is refused at once with 503 and Retry-After, which senders
// retry, instead of waiting on a slowed writer until the sender gives up.
type batcher struct {
	store   store.Store
	o       BatchOptions
	ch      chan *pending
	running atomic.Bool
	// room is how many items may wait: the estimate of what the writer
	// stores within QueueWait.
	room atomic.Int64
}

// QueueWait is how long an accepted activity should wait at most for its
// transaction; submitWait how long a submitter waits for room in a full
// queue; BusyRetry the Retry-After of an activity refused for either.
const (
	QueueWait  = time.Second
	submitWait = 100 * time.Millisecond
	BusyRetry  = 2 * time.Second
)

// idleExit is how long the writer goroutine waits for work before it
// stops.
const idleExit = 100 * time.Millisecond

func newBatcher(st store.Store, o BatchOptions) *batcher {
	if o.MaxItems <= 0 {
		o.MaxItems = 200
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 2 * time.Millisecond
	}
	if o.Queue <= 0 {
		o.Queue = 4096
	}
	b := &batcher{store: st, o: o, ch: make(chan *pending, o.Queue)}
	b.room.Store(int64(o.Queue))
	return b
}

// full reports whether as many items wait as the writer has room for.
func (b *batcher) full() bool { return int64(len(b.ch)) >= b.room.Load() }

// busy is the refusal of an activity the writer has no room for.
func (b *batcher) busy(ctx context.Context) error {
	dbstat.Dropped(ctx, dbstat.ShieldInboxBusy)
	return &murlog.Error{Code: murlog.EUnavailable, RetryAfter: BusyRetry,
		Message: "the inbox is busy: its writer is behind; retry later"}
}

// measure updates room from one transaction's duration: a transaction
// holds up to MaxItems, so the writer stores MaxItems × QueueWait/took
// within QueueWait. A quarter of each new estimate is taken in, so one
// slow commit does not shut the door, and a slowed writer closes it
// within a few.
func (b *batcher) measure(took time.Duration) {
	est := int64(b.o.Queue)
	if took > 0 {
		est = min(est, int64(float64(b.o.MaxItems)*float64(QueueWait)/float64(took)))
	}
	est = max(est, int64(b.o.MaxItems))
	old := b.room.Load()
	b.room.Store((3*old + est) / 4)
}

// submit hands p to the writer and waits for its result.
func (b *batcher) submit(ctx context.Context, p *pending) error {
	p.done = make(chan struct{})
	if b.full() {
		return b.busy(ctx)
	}
	select {
	case b.ch <- p:
	default:
		t := time.NewTimer(submitWait)
		select {
		case b.ch <- p:
			t.Stop()
		case <-t.C:
			return b.busy(ctx)
		case <-ctx.Done():
			t.Stop()
			return murlog.Errorf(murlog.EUnavailable, "the inbox is busy")
		}
	}
	if b.running.CompareAndSwap(false, true) {
		go b.loop()
	}
	// The result is awaited even when the client goes away: the item may
	// be committing, and p must not be reused before it is.
	<-p.done
	return p.err
}

func (b *batcher) loop() {
	idle := time.NewTimer(idleExit)
	defer idle.Stop()
	for {
		var first *pending
		select {
		case first = <-b.ch:
		case <-idle.C:
			b.running.Store(false)
			// An item sent after the timeout but before running was
			// cleared found the writer running: take it, unless a new
			// writer has started for it.
			if len(b.ch) == 0 || !b.running.CompareAndSwap(false, true) {
				return
			}
			idle.Reset(idleExit)
			continue
		}
		group := b.collect(first)
		start := time.Now()
		b.write(dbstat.With(context.Background(), dbstat.Inbox), group) // the batch is the senders' writes
		b.measure(time.Since(start))
		idle.Reset(idleExit)
	}
}

// collect gathers up to MaxItems items, waiting at most MaxWait after
// the first.
func (b *batcher) collect(first *pending) []*pending {
	group := []*pending{first}
	deadline := time.NewTimer(b.o.MaxWait)
	defer deadline.Stop()
	for len(group) < b.o.MaxItems {
		select {
		case p := <-b.ch:
			group = append(group, p)
		case <-deadline.C:
			return group
		}
	}
	return group
}

// write stores a group and its jobs in one transaction and tells each
// item its result. A failed transaction fails every item of the group:
// the senders retry.
func (b *batcher) write(ctx context.Context, group []*pending) error {
	err := b.store.Update(ctx, func(tx store.Tx) error {
		jobs := make([]queue.Job, 0, len(group))
		for _, p := range group {
			isNew, err := tx.InboxItems().Put(p.id, p.actorID, p.personaID, p.body, tx.Now())
			if err != nil {
				return err
			}
			p.isNew = isNew
			if !isNew {
				continue
			}
			j, err := inboxJob(p)
			if err != nil {
				return err
			}
			jobs = append(jobs, j)
		}
		if len(jobs) == 0 {
			return nil
		}
		return tx.Jobs().Enqueue(jobs...)
	})
	if err != nil {
		if murlog.ErrorCode(err) != murlog.EUnavailable {
			err = murlog.Internal(fmt.Errorf("inbox: store %d activities: %w", len(group), err))
		}
	}
	for _, p := range group {
		p.err = err
		if p.done != nil {
			close(p.done)
		}
	}
	return err
}
