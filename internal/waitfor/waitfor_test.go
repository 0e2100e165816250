package waitfor

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestUntil(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	if !Until(context.Background(), time.Millisecond, time.Minute, func() bool { return n.Add(1) == 3 }) || n.Load() != 3 {
		t.Errorf("Until returned after %d checks; want true on the third", n.Load())
	}
	if Until(context.Background(), time.Millisecond, 5*time.Millisecond, func() bool { return false }) {
		t.Error("Until of a condition that never holds = true")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Until(ctx, time.Hour, time.Hour, func() bool { return false }) {
		t.Error("Until after ctx ended = true")
	}
}
