package worker

import (
	"io"
	"log/slog"
	"strings"
)

// NewJobLogger returns the logger for job events in the seed's format:
// one JSON object per event with "ts", a lower-case "level" and the event
// name as "event", followed by svc, queue.provider, queue.topic, job.id,
// job.attempt, trace_id and duration_ms.
func NewJobLogger(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return a
			}
			switch a.Key {
			case slog.TimeKey:
				a.Key = "ts"
			case slog.LevelKey:
				a.Value = slog.StringValue(strings.ToLower(a.Value.String()))
			case slog.MessageKey:
				a.Key = "event"
			}
			return a
		}}))
}
