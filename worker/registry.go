// Package worker runs queued jobs: a registry of handlers by topic, and a
// runner with adaptive concurrency, batched acks, panic isolation, stale
// recovery and graceful shutdown. The same runner is driven three ways:
// resident (murlog worker, and inside murlog serve), and as a short-lived
// batch loop (murlog worker --once) that a CGI request spawns or cron runs.
package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/murlog/murlog/queue"
)

// HandlerFunc runs one job. Returning nil marks it done; an error retries
// it by the topic's policy, or sends it to the dead letters at once when
// wrapped with queue.Permanent.
type HandlerFunc func(ctx context.Context, job *queue.Job) error

// Registry maps topics to handlers. Job types register next to the domain
// they serve (for example deliveries in the federation package).
type Registry struct {
	handlers map[string]HandlerFunc
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{handlers: map[string]HandlerFunc{}} }

// Handle registers fn for topic. Registering a topic twice is a
// programming error and panics at start-up.
func (r *Registry) Handle(topic string, fn HandlerFunc) {
	if err := queue.ValidTopic(topic); err != nil {
		panic("worker: " + err.Error())
	}
	if _, dup := r.handlers[topic]; dup {
		panic("worker: topic registered twice: " + topic)
	}
	r.handlers[topic] = fn
}

// Register registers a handler whose payload decodes into T. A payload
// that does not decode can never succeed, so it goes to the dead letters
// at once with the decoding error as the reason.
func Register[T any](r *Registry, topic string, fn func(ctx context.Context, payload T, job *queue.Job) error) {
	r.Handle(topic, func(ctx context.Context, job *queue.Job) error {
		var p T
		if err := json.Unmarshal(job.Payload, &p); err != nil {
			return queue.Permanent(fmt.Errorf("payload of %s does not decode: %w", topic, err))
		}
		return fn(ctx, p, job)
	})
}

// Topics lists the registered topics, sorted.
func (r *Registry) Topics() []string {
	out := make([]string, 0, len(r.handlers))
	for t := range r.handlers {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func (r *Registry) lookup(topic string) (HandlerFunc, bool) {
	h, ok := r.handlers[topic]
	return h, ok
}

// FederationTopics are the job types of the federation layer (seed:
// ジョブ種別). Their handlers register with the federation issue; until
// then a job on one of them goes to the dead letters as unhandled.
var FederationTopics = []string{
	"deliver_post", "deliver_note", "deliver_update", "deliver_delete", "deliver_delete_note",
	"deliver_announce", "accept_follow", "reject_follow", "send_follow", "send_undo_follow",
	"send_like", "send_undo_like", "send_announce", "send_undo_announce", "send_block",
	"send_undo_block", "update_actor",
}
