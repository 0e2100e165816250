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
type batcher struct {
	store   store.Store
	o       BatchOptions
	ch      chan *pending
	running atomic.Bool
}

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
	return &batcher{store: st, o: o, ch: make(chan *pending, o.Queue)}
}

// submit hands p to the writer and waits for its result.
func (b *batcher) submit(ctx context.Context, p *pending) error {
	p.done = make(chan struct{})
	select {
	case b.ch <- p:
	case <-ctx.Done():
		return murlog.Errorf(murlog.EUnavailable, "the inbox is busy")
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
		b.write(dbstat.With(context.Background(), dbstat.Inbox), group) // the batch is the senders' writes
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
