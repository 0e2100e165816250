package httpd

import (
	"context"
	"testing"
	"time"

	"github.com/murlog/murlog/dbstat"
)

// TestSlotsCountTheirRefusals: a Slots made Counting counts each refused
// Acquire as a drop of its shield in the request's Counter; an admitted
// one counts nothing, and Slots not counting never do.
func TestSlotsCountTheirRefusals(t *testing.T) {
	t.Parallel()
	k := &dbstat.Counter{}
	ctx := dbstat.WithCounter(context.Background(), k)
	s := NewSlots(1, time.Millisecond, "test requests").Counting(dbstat.ShieldAnonAPI)
	if !s.Acquire(ctx) {
		t.Fatal("the free slot was refused")
	}
	for range 3 {
		if s.Acquire(ctx) {
			t.Fatal("a taken slot was given")
		}
	}
	plain := NewSlots(1, time.Millisecond, "other")
	plain.Acquire(ctx)
	plain.Acquire(ctx)
	if n := k.DropCounts()[dbstat.ShieldAnonAPI]; n != 3 {
		t.Errorf("anon_api drops %d; want 3 (the refusals of the counting slots only)", n)
	}
}
