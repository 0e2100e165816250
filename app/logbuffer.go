package app

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// A resident server writes a request line per request: thousands a
// second under a boost, each its own write(2) to stderr, and as much work
// again for whatever reads it (journald, a pipe). NewServeLogger gathers
// the lines and writes them together, from a goroutine of its own: a
// request never waits for the log's reader. A pipe holds 64 KB, a few
// milliseconds of a crowd's lines; when its reader fell behind, every
// request of murlog serve waited in its log line, the answers piled up
// and the server fell over (the boost spike at 4,366 visitors/s, the
// reader a busy process on the same two cores).

// Gathered lines wait at most logFlushEvery, or until logFlushSize bytes
// wait. Past logMaxWaiting bytes waiting for a writer that is not done
// (its reader does not keep up), new lines are dropped and counted, and a
// warning in their place says how many once the reader has caught up.
const (
	logFlushEvery = 100 * time.Millisecond
	logFlushSize  = 32 << 10
	logMaxWaiting = 1 << 20
)

// lineBuffer gathers whole lines (slog writes each line in one Write) and
// writes them to w together, in order.
type lineBuffer struct {
	w     io.Writer
	every time.Duration

	wmu sync.Mutex // held while writing to w, and while taking what to write

	mu       sync.Mutex
	buf      []byte
	spare    []byte // the buffer last written, reused
	lost     int    // lines dropped since the last report
	timer    *time.Timer
	draining bool // a goroutine is writing what waits
}

func (b *lineBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf)+len(p) > logMaxWaiting {
		b.lost++
		return len(p), nil
	}
	b.buf = append(b.buf, p...)
	switch {
	case b.draining:
		// The writer takes it when it is done with what it holds.
	case len(b.buf) >= logFlushSize:
		b.drainLocked()
	case b.timer == nil:
		b.timer = time.AfterFunc(b.every, func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.timer = nil
			if !b.draining && len(b.buf) > 0 {
				b.drainLocked()
			}
		})
	}
	return len(p), nil
}

// drainLocked starts the goroutine that writes what waits, until nothing
// does.
func (b *lineBuffer) drainLocked() {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.draining = true
	go func() {
		for b.writeWaiting(true) {
		}
	}()
}

// writeWaiting writes what waits and reports whether more came meanwhile
// (drain: the goroutine goes on; its end is marked when nothing did).
// Taking the lines under wmu keeps them in order whoever writes.
func (b *lineBuffer) writeWaiting(drain bool) (more bool) {
	b.wmu.Lock()
	b.mu.Lock()
	out, lost := b.buf, b.lost
	b.buf, b.spare, b.lost = b.spare[:0], nil, 0
	b.mu.Unlock()
	if lost > 0 {
		out = appendDropped(out, lost)
	}
	if len(out) > 0 {
		b.w.Write(out) // a failing stderr has no one to tell: the lines go, as an unbuffered write's would
	}
	b.wmu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spare == nil && cap(out) <= logMaxWaiting {
		b.spare = out[:0]
	}
	if drain {
		more = len(b.buf) > 0 || b.lost > 0
		b.draining = more
	}
	return more
}

// appendDropped appends the warning that n lines were dropped, where they
// were, in the JSON shape of every line (without the attributes a logger
// adds: the buffer is below them). Made here, under the write lock, it
// can neither be dropped itself nor come after a Flush that returned.
func appendDropped(out []byte, n int) []byte {
	var line bytes.Buffer
	slog.New(slog.NewJSONHandler(&line, nil)).Warn("log lines dropped: the log's reader did not keep up with the requests", "dropped", n)
	return append(out, line.Bytes()...)
}

// Flush writes what waits, and returns when it is written: for a warning
// (with every line before it) and before the process exits.
func (b *lineBuffer) Flush() {
	b.mu.Lock()
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.mu.Unlock()
	b.writeWaiting(false)
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
