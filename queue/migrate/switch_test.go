package migrate_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/queue/migrate"
	"github.com/murlog/murlog/queue/queuetest"
)

// TestSwitchContract runs the adapter contract against a Switch of two
// SQLite queues in each mode the migration passes through.
func TestSwitchContract(t *testing.T) {
	for _, tc := range []struct {
		name   string
		read   migrate.Side
		single bool
	}{
		{"Phase1ReadOld", migrate.Old, false},
		{"Phase2ReadNew", migrate.New, false},
		{"Phase3SingleWriteNew", migrate.New, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			queuetest.Run(t, func(t *testing.T, c *queuetest.Clock, o queue.Options) queuetest.Subject {
				// The side read counts what the suite checks; the copies
				// written to the other side count elsewhere (in
				// production, each queue's own database).
				other := o
				other.Counters = &queuetest.Counter{}
				oldDB, newDB, _, _ := pairWith(t, c.Now, o)
				oldO, newO := o, other
				if tc.read == migrate.New {
					oldO, newO = other, o
				}
				s := migrate.NewSwitch(queue.New(oldDB.Queue(), oldO), queue.New(newDB.Queue(), newO), tc.read)
				s.SetSingleWrite(tc.single)
				s.Poll = o.Poll
				return s
			})
		})
	}
}

func TestSwitchWrites(t *testing.T) {
	for _, tc := range []struct {
		read             migrate.Side
		single           bool
		wantOld, wantNew int
		provider         string
	}{
		{migrate.Old, false, 1, 1, "switch(old=sqlite, new=sqlite, read=old, write=both)"},
		{migrate.New, false, 1, 1, "switch(old=sqlite, new=sqlite, read=new, write=both)"},
		{migrate.New, true, 0, 1, "switch(old=sqlite, new=sqlite, read=new, write=read side)"},
		{migrate.Old, true, 1, 0, "switch(old=sqlite, new=sqlite, read=old, write=read side)"},
	} {
		_, _, oldQ, newQ := pair(t, nil)
		s := migrate.NewSwitch(oldQ, newQ, tc.read)
		s.SetSingleWrite(tc.single)
		must(t, s.Enqueue(ctx, queue.NewJob("test.write", []byte(`{}`))))
		gotOld, gotNew := counts(t, oldQ, "")[queue.StatePending], counts(t, newQ, "")[queue.StatePending]
		if gotOld != tc.wantOld || gotNew != tc.wantNew {
			t.Errorf("read=%v single=%v: one Enqueue left %d jobs on old, %d on new; want %d, %d",
				tc.read, tc.single, gotOld, gotNew, tc.wantOld, tc.wantNew)
		}
		if got := s.Provider(); got != tc.provider {
			t.Errorf("Provider() = %q; want %q", got, tc.provider)
		}
	}
}

// TestSwitchAckGoesWhereClaimed: a job claimed before the switch is acked
// on the queue it came from, and its copy on the new side is untouched.
func TestSwitchAckGoesWhereClaimed(t *testing.T) {
	_, _, oldQ, newQ := pair(t, nil)
	s := migrate.NewSwitch(oldQ, newQ, migrate.Old)
	js := jobs("test.ack", 2)
	must(t, s.EnqueueBatch(ctx, js))

	claimed, err := s.DequeueBatch(ctx, nil, 1)
	must(t, err)
	if len(claimed) != 1 || claimed[0].ID != js[0].ID {
		t.Fatalf("claimed %v; want the first job from the old side", claimed)
	}
	s.SetReadFrom(migrate.New)
	if s.ReadFrom() != migrate.New {
		t.Fatalf("ReadFrom() = %v after SetReadFrom(New)", s.ReadFrom())
	}
	must(t, s.Ack(ctx, claimed[0], queue.Result{Status: queue.Success}))

	if got := stateOf(t, oldQ, js[0].ID); got != queue.StateDone {
		t.Errorf("after the switch, the job claimed from old is %q on old; want done (acked where it came from)", got)
	}
	if got := stateOf(t, newQ, js[0].ID); got != queue.StatePending {
		t.Errorf("its copy on new is %q; want pending (an ack routed to new would have no running job to finish)", got)
	}
	// The fence lifts (nothing runs on old any more): both copies on new
	// come out, and their acks go to new.
	fromNew, err := s.DequeueBatch(ctx, nil, 10)
	must(t, err)
	if len(fromNew) != 2 {
		t.Fatalf("after the ack, claimed %d from new; want both copies", len(fromNew))
	}
	must(t, s.AckBatch(ctx, []queue.Ack{{Job: fromNew[0], Result: queue.Result{Status: queue.Success}},
		{Job: fromNew[1], Result: queue.Result{Status: queue.Success}}}))
	if c := counts(t, newQ, ""); c[queue.StateDone] != 2 {
		t.Errorf("new side counts %v; want 2 done", c)
	}
	if c := counts(t, oldQ, ""); c[queue.StateDone] != 1 || c[queue.StatePending] != 1 {
		t.Errorf("old side counts %v; want 1 done, 1 pending (left for Drain)", c)
	}
}

// TestSwitchFence: after a switch, the new side hands out nothing while a
// job claimed from the old side runs, in this process or another.
func TestSwitchFence(t *testing.T) {
	_, _, oldQ, newQ := pair(t, nil)
	s := migrate.NewSwitch(oldQ, newQ, migrate.Old)
	must(t, s.EnqueueBatch(ctx, jobs("test.fence", 3)))

	mine, err := s.DequeueBatch(ctx, nil, 1) // claimed through the Switch
	must(t, err)
	theirs, err := oldQ.DequeueBatch(ctx, nil, 1) // "another process"
	must(t, err)
	s.SetReadFrom(migrate.New)

	if got, err := s.DequeueBatch(ctx, nil, 10); err != nil || len(got) != 0 {
		t.Fatalf("with jobs running on old, claimed %d from new (err %v); want none", len(got), err)
	}
	must(t, s.Ack(ctx, mine[0], queue.Result{Status: queue.Success}))
	if got, err := s.DequeueBatch(ctx, nil, 10); err != nil || len(got) != 0 {
		t.Fatalf("with another process's job running on old, claimed %d from new (err %v); want none", len(got), err)
	}
	must(t, oldQ.Ack(ctx, theirs[0], queue.Result{Status: queue.Success}))
	if got, err := s.DequeueBatch(ctx, nil, 10); err != nil || len(got) != 3 {
		t.Fatalf("with nothing running on old, claimed %d from new (err %v); want 3", len(got), err)
	}
}

// TestSwitchStartsFenced: a process started reading new (the read side
// changes with a restart) waits for a job an older process still runs on
// old.
func TestSwitchStartsFenced(t *testing.T) {
	_, _, oldQ, newQ := pair(t, nil)
	js := jobs("test.restart", 2)
	must(t, migrate.DualWrite(oldQ, newQ).EnqueueBatch(ctx, js))
	theirs, err := oldQ.DequeueBatch(ctx, nil, 1) // the process before the restart
	must(t, err)

	s := migrate.NewSwitch(oldQ, newQ, migrate.New)
	if got, err := s.DequeueBatch(ctx, nil, 10); err != nil || len(got) != 0 {
		t.Fatalf("started reading new with a job running on old: claimed %d (err %v); want none", len(got), err)
	}
	must(t, oldQ.Ack(ctx, theirs[0], queue.Result{Status: queue.Success}))
	if got, err := s.DequeueBatch(ctx, nil, 10); err != nil || len(got) != 2 {
		t.Fatalf("after the old process acked: claimed %d (err %v); want 2", len(got), err)
	}
}

// TestSwitchFenceLimit: a job that never finishes holds the fence only
// for FenceLimit, and a batch acking jobs of both sides splits correctly.
func TestSwitchFenceLimit(t *testing.T) {
	_, _, oldQ, newQ := pair(t, nil)
	s := migrate.NewSwitch(oldQ, newQ, migrate.Old)
	s.FenceLimit = 50 * time.Millisecond
	js := jobs("test.limit", 2)
	must(t, s.EnqueueBatch(ctx, js))
	a, err := s.DequeueBatch(ctx, nil, 1)
	must(t, err)
	s.SetReadFrom(migrate.New)
	time.Sleep(60 * time.Millisecond)
	b, err := s.DequeueBatch(ctx, nil, 1)
	must(t, err)
	if len(b) != 1 || b[0].ID != js[0].ID {
		t.Fatalf("after FenceLimit claimed %v from new; want the first job's copy", b)
	}
	must(t, s.AckBatch(ctx, []queue.Ack{{Job: a[0], Result: queue.Result{Status: queue.Success}},
		{Job: b[0], Result: queue.Result{Status: queue.Success}}}))
	if got := stateOf(t, oldQ, js[0].ID); got != queue.StateDone {
		t.Errorf("old copy is %q; want done", got)
	}
	if got := stateOf(t, newQ, js[0].ID); got != queue.StateDone {
		t.Errorf("new copy is %q; want done", got)
	}
}

// TestSwitchFlipsUnderConcurrency flips the read side while claimers run:
// every ack must land on the queue its job came from, which shows as a
// done job (an ack on the wrong side finds no running job and changes
// nothing).
func TestSwitchFlipsUnderConcurrency(t *testing.T) {
	_, _, oldQ, newQ := pair(t, nil)
	s := migrate.NewSwitch(oldQ, newQ, migrate.Old)
	s.FenceLimit = time.Millisecond // flip faster than jobs finish
	const n = 400
	all := jobs("test.flip", n)
	for i := 0; i < n; i += 100 {
		must(t, s.EnqueueBatch(ctx, all[i:i+100]))
	}
	var mu sync.Mutex
	acked := 0
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				js, err := s.DequeueBatch(ctx, nil, 5)
				if err != nil {
					t.Error(err)
					return
				}
				time.Sleep(time.Millisecond)
				var acks []queue.Ack
				for _, j := range js {
					acks = append(acks, queue.Ack{Job: j, Result: queue.Result{Status: queue.Success}})
				}
				if err := s.AckBatch(ctx, acks); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				acked += len(js)
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < 40; i++ {
		time.Sleep(3 * time.Millisecond)
		s.SetReadFrom(migrate.Side(i % 2))
	}
	close(stop)
	wg.Wait()
	done := counts(t, oldQ, "")[queue.StateDone] + counts(t, newQ, "")[queue.StateDone]
	if done != acked || acked == 0 {
		t.Errorf("%d acks while flipping, %d jobs done on the two sides; want equal (and some)", acked, done)
	}
	for _, q := range []queue.Inspector{oldQ, newQ} {
		if c := counts(t, q, ""); c[queue.StateRunning] != 0 {
			t.Errorf("a side has %d jobs running after every claim was acked", c[queue.StateRunning])
		}
	}
}

func TestFromConfig(t *testing.T) {
	_, _, primary, secondary := pair(t, nil)
	for _, tc := range []struct {
		secondary  queue.Queue
		dual       bool
		readFrom   string
		wantErr    string // the field of an invalid error
		wantRead   migrate.Side
		wantSingle bool
		wantPlain  bool // primary itself
	}{
		{nil, false, "primary", "", 0, false, true},
		{nil, false, "", "", 0, false, true},
		{nil, true, "primary", "queue_dual_write", 0, false, false},
		{nil, false, "secondary", "queue_read_from", 0, false, false},
		{secondary, true, "primary", "", migrate.Old, false, false},
		{secondary, true, "secondary", "", migrate.New, false, false},
		{secondary, false, "secondary", "", migrate.New, true, false},
		{secondary, false, "primary", "", migrate.Old, true, false},
		{secondary, true, "new", "queue_read_from", 0, false, false},
	} {
		name := tc.readFrom
		q, err := migrate.FromConfig(primary, tc.secondary, tc.dual, tc.readFrom)
		if tc.wantErr != "" {
			if e := murlog.AsError(err); err == nil || e.Code != murlog.EInvalid || e.Field != tc.wantErr {
				t.Errorf("FromConfig(secondary=%v, dual=%v, %q) = %v; want an invalid %s", tc.secondary != nil, tc.dual, name, err, tc.wantErr)
			}
			continue
		}
		must(t, err)
		if tc.wantPlain {
			if q != queue.Queue(primary) {
				t.Errorf("FromConfig(no secondary, %q) = %s; want the primary itself", name, q.Provider())
			}
			continue
		}
		s, ok := q.(*migrate.Switch)
		if !ok {
			t.Errorf("FromConfig(secondary, dual=%v, %q) = %T; want a *Switch", tc.dual, name, q)
			continue
		}
		if s.ReadFrom() != tc.wantRead || s.SingleWrite() != tc.wantSingle || s.Queue(migrate.Old) != queue.Queue(primary) {
			t.Errorf("FromConfig(secondary, dual=%v, %q) = %s; want read=%v single=%v over the primary as old",
				tc.dual, name, s.Provider(), tc.wantRead, tc.wantSingle)
		}
	}
}

// flaky wraps a real queue and refuses acks while failAcks is set.
type flaky struct {
	queue.Queue
	failAcks atomic.Bool
}

func (f *flaky) AckBatch(ctx context.Context, acks []queue.Ack) error {
	if f.failAcks.Load() {
		return murlog.Errorf(murlog.EUnavailable, "acks refused")
	}
	return f.Queue.AckBatch(ctx, acks)
}

// TestSwitchAckRetry: when one side refuses its part of a batch, the
// worker's retry of the same batch still routes every ack to its side, and
// afterwards nothing is left remembered (no fence is held by it).
func TestSwitchAckRetry(t *testing.T) {
	_, _, oldQ, newQ := pair(t, nil)
	old := &flaky{Queue: oldQ}
	s := migrate.NewSwitch(old, newQ, migrate.Old)
	s.FenceLimit = time.Millisecond
	js := jobs("test.retry_ack", 2)
	must(t, s.EnqueueBatch(ctx, js))
	a, err := s.DequeueBatch(ctx, nil, 1)
	must(t, err)
	s.SetReadFrom(migrate.New)
	time.Sleep(5 * time.Millisecond)
	b, err := s.DequeueBatch(ctx, nil, 1)
	must(t, err)
	batch := []queue.Ack{{Job: a[0], Result: queue.Result{Status: queue.Success}}, {Job: b[0], Result: queue.Result{Status: queue.Success}}}

	old.failAcks.Store(true)
	if err := s.AckBatch(ctx, batch); murlog.ErrorCode(err) != murlog.EUnavailable {
		t.Fatalf("AckBatch with old refusing = %v; want its unavailable error", err)
	}
	old.failAcks.Store(false)
	must(t, s.AckBatch(ctx, batch))
	if got := stateOf(t, oldQ, a[0].ID); got != queue.StateDone {
		t.Errorf("after the retry the job from old is %q there; want done", got)
	}
	if got := stateOf(t, newQ, b[0].ID); got != queue.StateDone {
		t.Errorf("after the retry the job from new is %q there; want done", got)
	}
	// Back to old with no fence left over: the FenceLimit is long now, so
	// a remembered claim would hold reads back.
	s.FenceLimit = time.Hour
	s.SetReadFrom(migrate.Old)
	if got, err := s.DequeueBatch(ctx, nil, 10); err != nil || len(got) != 1 {
		t.Errorf("back on old, claimed %d (err %v); want the one job not yet run there", len(got), err)
	}
}

// bareEngine is the SQLite engine with its inspection hidden, standing in
// for a broker engine that cannot answer counts.
type bareEngine struct{ queue.Engine }

// TestSwitchOverEngineWithoutInspection: a side whose engine cannot be
// inspected does not hold reads fenced forever (there is nothing to ask),
// and inspection of the read side says it is unavailable.
func TestSwitchOverEngineWithoutInspection(t *testing.T) {
	oldDB, _, _, newQ := pair(t, nil)
	oldQ := queue.New(bareEngine{oldDB.Queue()}, queue.Options{})
	if oldQ.Inspects() {
		t.Fatal("Managed over an engine without inspection says it inspects")
	}
	s := migrate.NewSwitch(oldQ, newQ, migrate.New) // fenced against the old side at start
	must(t, s.Enqueue(ctx, queue.NewJob("test.bare", []byte(`{}`))))
	js, err := s.DequeueBatch(ctx, nil, 10)
	if err != nil || len(js) != 1 {
		t.Fatalf("claim from the new side with an uninspectable old side = %d jobs, %v; want the job", len(js), err)
	}
	s.SetReadFrom(migrate.Old)
	if _, err := s.Counts(ctx); murlog.ErrorCode(err) != murlog.EUnavailable {
		t.Errorf("Counts with an uninspectable read side = %v; want unavailable", err)
	}
}
