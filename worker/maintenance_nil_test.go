package worker

import (
	"context"
	"testing"

	"github.com/murlog/murlog/queue"
)

// TestVacuumIsOptional: an engine without a vacuum registers maintenance
// with a nil Vacuumer, and the vacuum job then succeeds doing nothing.
func TestVacuumIsOptional(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	RegisterMaintenance(r, nil, nil, nil)
	h, ok := r.lookup(TopicVacuum)
	if !ok {
		t.Fatal("queue.vacuum is not registered")
	}
	if err := h.fn(context.Background(), &queue.Job{Topic: TopicVacuum}); err != nil {
		t.Errorf("queue.vacuum with no vacuum = %v; want nil", err)
	}
}
