package app

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// A resident server writes a request line per request: thousands a
// second under a boost, each its own write(2) to stderr, and as much work
// again for whatever reads it (journald, a pipe). NewServeLogger gathers
// the lines and writes them together.

// Gathered lines wait at most logFlushEvery, or until logFlushSize bytes
// wait.
const (
	logFlushEvery = 100 * time.Millisecond
	logFlushSize  = 32 << 10
)

// lineBuffer gathers whole lines (slog writes each line in one Write) and
// writes them to w together.
type lineBuffer struct {
	mu    sync.Mutex
	w     io.Writer
	buf   []byte
	timer *time.Timer
	every time.Duration
}

func (b *lineBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	switch {
	case len(b.buf) >= logFlushSize:
		b.flushLocked()
	case b.timer == nil:
		b.timer = time.AfterFunc(b.every, func() { b.Flush() })
	}
	return len(p), nil
}

// Flush writes what waits. A failing stderr has no one to tell: its
// error is dropped with the lines, as an unbuffered write's would be.
func (b *lineBuffer) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
}

func (b *lineBuffer) flushLocked() {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if len(b.buf) > 0 {
		b.w.Write(b.buf)
		b.buf = b.buf[:0]
	}
}

// flushAt writes a line of level WARN or above at once, with every line
// before it: what matters when something goes wrong is not held back.
type flushAt struct {
	slog.Handler
	b *lineBuffer
}

func (h flushAt) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		h.b.Flush()
	}
	return err
}

func (h flushAt) WithAttrs(as []slog.Attr) slog.Handler { return flushAt{h.Handler.WithAttrs(as), h.b} }
func (h flushAt) WithGroup(name string) slog.Handler    { return flushAt{h.Handler.WithGroup(name), h.b} }

// NewServeLogger is NewLogger for `murlog serve`: info and debug lines are
// written in batches, at most 100 ms late; a warning or error at once.
// flush writes what waits: call it before the process exits.
func NewServeLogger(w io.Writer, level string) (log *slog.Logger, flush func()) {
	b := &lineBuffer{w: w, every: logFlushEvery}
	return slog.New(flushAt{NewLogger(b, level).Handler(), b}), b.Flush
}
