// Package worker runs queued jobs: a registry of handlers and policies by
// topic, and a runner with adaptive concurrency, batched acks, panic
// isolation, stale recovery and graceful shutdown. The same runner is
// driven three ways: resident (murlog worker, and inside murlog serve),
// and as a short-lived batch loop (murlog worker --once) that a CGI
// request spawns or cron runs.
package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/murlog/murlog/queue"
)

// HandlerFunc runs one job. Returning nil marks it done; an error retries
// it by the topic's policy, or sends it to the dead letters at once when
// wrapped with queue.Permanent.
type HandlerFunc func(ctx context.Context, job *queue.Job) error

// Registry maps topics to their handler and policy. Job types register
// next to the domain they serve (for example deliveries in the federation
// package, with queue.DeliveryPolicy); neither the queue nor the worker
// names a topic. It implements queue.Policies, so the queue retries each
// topic as its owner registered. It is safe for concurrent use.
type Registry struct {
	mu     sync.RWMutex
	topics map[string]entry
}

type entry struct {
	fn  HandlerFunc
	pol queue.Policy
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{topics: map[string]entry{}} }

// Handle registers fn and its policy for topic (zero policy fields take
// queue.DefaultPolicy's). Registering a topic twice is a programming
// error and panics at start-up.
func (r *Registry) Handle(topic string, fn HandlerFunc, p queue.Policy) {
	if err := queue.ValidTopic(topic); err != nil {
		panic("worker: " + err.Error())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.topics[topic]; dup {
		panic("worker: topic registered twice: " + topic)
	}
	r.topics[topic] = entry{fn: fn, pol: p.Normal()}
}

// Register registers a handler whose payload decodes into T. A payload
// that does not decode can never succeed, so it goes to the dead letters
// at once with the decoding error as the reason.
func Register[T any](r *Registry, topic string, p queue.Policy, fn func(ctx context.Context, payload T, job *queue.Job) error) {
	r.Handle(topic, func(ctx context.Context, job *queue.Job) error {
		var v T
		if err := json.Unmarshal(job.Payload, &v); err != nil {
			return queue.Permanent(fmt.Errorf("payload of %s does not decode: %w", topic, err))
		}
		return fn(ctx, v, job)
	}, p)
}

// Policy implements queue.Policies: the registered policy of topic, or
// queue.DefaultPolicy for a topic nobody registered.
func (r *Registry) Policy(topic string) queue.Policy {
	r.mu.RLock()
	e, ok := r.topics[topic]
	r.mu.RUnlock()
	if !ok {
		return queue.DefaultPolicy
	}
	return e.pol
}

// Topics lists the registered topics, sorted.
func (r *Registry) Topics() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.topics))
	for t := range r.topics {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func (r *Registry) lookup(topic string) (entry, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.topics[topic]
	return e, ok
}

// Handler returns the handler registered for topic, so a registry can
// forward a topic to another one (the app registers the federation
// handlers, which need the site's domain, once setup has named it).
func (r *Registry) Handler(topic string) (HandlerFunc, bool) {
	e, ok := r.lookup(topic)
	return e.fn, ok
}
