package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
)

type jobView struct {
	ID          string            `json:"id"`
	Topic       string            `json:"topic"`
	State       queue.State       `json:"state"`
	Priority    int               `json:"priority"`
	Attempt     int               `json:"attempt"`
	MaxAttempts int               `json:"max_attempts"`
	Payload     json.RawMessage   `json:"payload"`
	Headers     map[string]string `json:"headers,omitempty"`
	LastError   string            `json:"last_error"`
	RunAt       time.Time         `json:"run_at"`
	EnqueuedAt  time.Time         `json:"enqueued_at"`
	StartedAt   *time.Time        `json:"started_at"`
	FinishedAt  *time.Time        `json:"finished_at"`
	// DeadTopic is where a dead letter is addressed: "<topic>.dead".
	DeadTopic string `json:"dead_topic,omitempty"`
}

type queueListParams struct {
	State  queue.State `json:"state"`
	Topic  string      `json:"topic"`
	Cursor string      `json:"cursor"`
	Limit  int         `json:"limit"`
}

func (s *Server) registerQueue() {
	register(s, "queue.stats", owner, false, func(ctx context.Context, _ *noParams) (any, error) {
		counts, err := s.deps.Queue.Counts(ctx)
		if err != nil {
			return nil, err
		}
		total := map[queue.State]int{queue.StatePending: 0, queue.StateScheduled: 0, queue.StateRunning: 0, queue.StateDone: 0, queue.StateDead: 0}
		topics := map[string]map[queue.State]int{}
		for _, c := range counts {
			total[c.State] += c.N
			if topics[c.Topic] == nil {
				topics[c.Topic] = map[queue.State]int{}
			}
			topics[c.Topic][c.State] = c.N
		}
		return map[string]any{"pending": total[queue.StatePending], "scheduled": total[queue.StateScheduled],
			"running": total[queue.StateRunning], "done": total[queue.StateDone], "dead": total[queue.StateDead],
			"topics": topics}, nil
	})
	register(s, "queue.list", owner, false, func(ctx context.Context, p *queueListParams) (any, error) {
		if p.Limit == 0 {
			p.Limit = 20
		}
		if p.Cursor != "" && !murlog.ValidID(p.Cursor) {
			return nil, murlog.Invalid("cursor", "is not a valid cursor")
		}
		infos, err := s.deps.Queue.List(ctx, queue.ListQuery{State: p.State, Topic: p.Topic, Before: p.Cursor, Limit: p.Limit + 1})
		if err != nil {
			return nil, err
		}
		next := ""
		if len(infos) > p.Limit {
			infos = infos[:p.Limit]
			next = infos[len(infos)-1].ID
		}
		views := make([]*jobView, len(infos))
		for i, in := range infos {
			v := &jobView{ID: in.ID, Topic: in.Topic, State: in.State, Priority: in.Priority, Attempt: in.Attempt,
				MaxAttempts: in.MaxAttempts, Headers: in.Headers, LastError: in.LastError, RunAt: in.RunAt,
				EnqueuedAt: in.EnqueuedAt, StartedAt: in.StartedAt, FinishedAt: in.FinishedAt}
			if json.Valid(in.Payload) {
				v.Payload = in.Payload
			} else {
				v.Payload, _ = json.Marshal(string(in.Payload))
			}
			if in.State == queue.StateDead {
				v.DeadTopic = queue.DeadTopic(in.Topic)
			}
			views[i] = v
		}
		return newPage(views, next), nil
	})
	register(s, "queue.retry", owner, true, func(ctx context.Context, p *idParams) (any, error) {
		if !murlog.ValidID(p.ID) {
			return nil, murlog.Invalid("id", "is not a valid id")
		}
		return nil, s.deps.Queue.Retry(ctx, p.ID)
	})
	register(s, "queue.dismiss", owner, true, func(ctx context.Context, p *idParams) (any, error) {
		if !murlog.ValidID(p.ID) {
			return nil, murlog.Invalid("id", "is not a valid id")
		}
		return nil, s.deps.Queue.Dismiss(ctx, p.ID)
	})
	// queue.tick does nothing itself: under CGI, the request is the point,
	// since a CGI request that finds runnable jobs spawns a worker once its
	// response is written. The owner's queue screen calls it every few
	// seconds.
	register(s, "queue.tick", owner, false, func(ctx context.Context, _ *noParams) (any, error) {
		return nil, nil
	})
	register(s, "queue.vacuum", owner, true, func(ctx context.Context, _ *noParams) (any, error) {
		n, err := s.deps.Queue.Cleanup(ctx, s.deps.Now().Add(-queue.CompletedRetention))
		if err != nil {
			return nil, err
		}
		return map[string]int{"deleted": n}, nil
	})
}
