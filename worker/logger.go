package worker

import (
	"context"
	"io"
	"log/slog"
)

// NewJobLogger returns the logger for job events. Its lines have murlog's
// one log shape, slog's JSON ("time", "level" as INFO/WARN/ERROR, "msg"),
// the same as the request lines (app.NewLogger), so one query or log
// shipper reads both. The seed's job fields follow as attributes: the
// event name once more as "event" (it is also "msg"), then svc,
// queue.provider, queue.topic, job.id, job.attempt, trace_id and
// duration_ms as the worker logs them.
func NewJobLogger(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(WithEvent(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})))
}

// WithEvent wraps h so every record also carries its message as the
// attribute "event", the seed's name for a job event.
func WithEvent(h slog.Handler) slog.Handler { return eventHandler{h} }

type eventHandler struct{ slog.Handler }

func (h eventHandler) Handle(ctx context.Context, r slog.Record) error {
	r = r.Clone() // AddAttrs must not write into the caller's record
	r.AddAttrs(slog.String("event", r.Message))
	return h.Handler.Handle(ctx, r)
}

func (h eventHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return eventHandler{h.Handler.WithAttrs(as)}
}

func (h eventHandler) WithGroup(name string) slog.Handler {
	return eventHandler{h.Handler.WithGroup(name)}
}
