package trace

import (
	"context"
	"sync"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	good := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	c, ok := Parse(good)
	if !ok || c.TraceID != "0af7651916cd43dd8448eb211c80319c" || c.SpanID != "b7ad6b7169203331" || c.String() != good {
		t.Errorf("Parse(%q) = %+v, %v", good, c, ok)
	}
	for _, bad := range []string{"", "garbage", "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
		"00-00000000000000000000000000000000-b7ad6b7169203331-01", "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
		"00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b71692033-01"} {
		if _, ok := Parse(bad); ok {
			t.Errorf("Parse(%q) accepted a malformed traceparent", bad)
		}
	}
}

func TestNewAndChild(t *testing.T) {
	t.Parallel()
	c := New()
	if _, ok := Parse(c.String()); !ok {
		t.Fatalf("New() = %q does not parse", c)
	}
	ch := c.Child()
	if ch.TraceID != c.TraceID || ch.SpanID == c.SpanID {
		t.Errorf("Child = %+v of %+v; want the same trace, a new span", ch, c)
	}
	ctx := With(context.Background(), c)
	if got, ok := From(ctx); !ok || got != c {
		t.Errorf("From(With(c)) = %+v, %v", got, ok)
	}
	if _, ok := From(context.Background()); ok {
		t.Error("From(empty) reported a trace")
	}
}

// TestIDsAreDistinct: ids from every goroutine are well-formed and never
// repeat, in the trace and span halves alike.
func TestIDsAreDistinct(t *testing.T) {
	t.Parallel()
	const per, goroutines = 20_000, 4
	got := make(chan Context, per*goroutines)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range per {
				got <- New()
			}
		})
	}
	wg.Wait()
	close(got)
	seen := map[string]bool{}
	for c := range got {
		if _, ok := Parse(c.String()); !ok {
			t.Fatalf("%q does not parse", c)
		}
		if seen[c.TraceID] || seen[c.SpanID] {
			t.Fatalf("an id repeats: %+v", c)
		}
		seen[c.TraceID], seen[c.SpanID] = true, true
	}
}
