package sqlite

import (
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue/queuetest"
	"github.com/murlog/murlog/worker"
)

var _ worker.Ledger = (*Ledger)(nil)

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = murlog.NewID()
	}
	return out
}

func TestLedgerSeenAndDone(t *testing.T) {
	l := MustOpen(t, nil).Ledger()
	a, b, c := murlog.NewID(), murlog.NewID(), murlog.NewID()

	got, err := l.Seen(ctx, []string{a, b})
	must(t, err)
	if len(got) != 0 {
		t.Errorf("Seen on an empty ledger = %v; want nothing", got)
	}
	if got, err := l.Seen(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("Seen(nil) = %v, %v; want an empty map", got, err)
	}
	must(t, l.Done(ctx, nil))

	// A batch with a repeated id, and ids recorded twice: no conflict error.
	must(t, l.Done(ctx, []string{a, c, a}))
	must(t, l.Done(ctx, []string{c}))

	got, err = l.Seen(ctx, []string{a, b, c})
	must(t, err)
	if !got[a] || got[b] || !got[c] || len(got) != 2 {
		t.Errorf("Seen(a, b, c) after Done(a, c) = %v; want a and c only", got)
	}
}

// TestLedgerLargeBatches covers batches of every shape a statement can
// take, including more than one chunk and sizes just past a power of two.
func TestLedgerLargeBatches(t *testing.T) {
	l := MustOpen(t, nil).Ledger()
	for _, n := range []int{1, 2, 3, 17, 33, ledgerChunk, ledgerChunk + 1, 1500} {
		done, other := ids(n), ids(n)
		must(t, l.Done(ctx, done))
		got, err := l.Seen(ctx, append(append([]string(nil), other...), done...))
		must(t, err)
		if len(got) != n {
			t.Errorf("n=%d: Seen of %d done and %d unknown ids found %d; want %d", n, n, n, len(got), n)
		}
		for _, id := range done {
			if !got[id] {
				t.Errorf("n=%d: done id %s not seen", n, id)
				break
			}
		}
	}
}

func TestLedgerPrune(t *testing.T) {
	c := queuetest.NewClock()
	db := MustOpen(t, c.Now)
	l := db.Ledger()

	old := ids(2*pruneChunk + 5) // more than one chunk
	for start := 0; start < len(old); start += 700 {
		must(t, l.Done(ctx, old[start:min(start+700, len(old))]))
	}
	c.Add(time.Hour)
	cutoff := c.Now()
	recent := ids(3)
	must(t, l.Done(ctx, recent))
	// Recording an old id again keeps its first done_at, so it is pruned
	// with the others.
	must(t, l.Done(ctx, old[:1]))

	n, err := l.Prune(ctx, cutoff)
	must(t, err)
	if n != len(old) {
		t.Errorf("Prune(cutoff) = %d; want the %d entries done before it", n, len(old))
	}
	got, err := l.Seen(ctx, append(old[:10:10], recent...))
	must(t, err)
	if len(got) != 3 {
		t.Errorf("after Prune, Seen(10 old + 3 recent) = %d ids; want only the 3 recent", len(got))
	}
	if n, err := l.Prune(ctx, cutoff); err != nil || n != 0 {
		t.Errorf("second Prune = %d, %v; want 0", n, err)
	}
}
