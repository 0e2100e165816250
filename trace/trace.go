// Package trace carries a W3C Trace Context (the traceparent header)
// through a request and into the jobs it enqueues, so a job's log lines
// share the trace id of the request that caused it.
package trace

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"strings"
)

// Context is one span's trace context.
type Context struct {
	TraceID string // 32 lower-case hex digits, not all zero
	SpanID  string // 16 lower-case hex digits, not all zero
	Flags   string // 2 hex digits; "01" means sampled
}

// Header is the HTTP header and job header name.
const Header = "traceparent"

// Parse reads a traceparent value ("00-<trace>-<span>-<flags>"). It
// rejects malformed values and the all-zero ids the specification forbids.
func Parse(v string) (Context, bool) {
	parts := strings.Split(strings.TrimSpace(v), "-")
	if len(parts) != 4 || parts[0] != "00" || !hexOf(parts[1], 32) || !hexOf(parts[2], 16) || !hexOf(parts[3], 2) {
		return Context{}, false
	}
	if allZero(parts[1]) || allZero(parts[2]) {
		return Context{}, false
	}
	return Context{TraceID: parts[1], SpanID: parts[2], Flags: parts[3]}, true
}

// New starts a new trace.
func New() Context {
	return Context{TraceID: randomHex(16), SpanID: randomHex(8), Flags: "01"}
}

// Child returns a new span in the same trace: what a request that
// continues an incoming trace, or a job enqueued by it, carries.
func (c Context) Child() Context {
	return Context{TraceID: c.TraceID, SpanID: randomHex(8), Flags: c.Flags}
}

// String renders the traceparent value.
func (c Context) String() string { return "00-" + c.TraceID + "-" + c.SpanID + "-" + c.Flags }

// Valid reports whether c holds a trace.
func (c Context) Valid() bool { return c.TraceID != "" }

type key struct{}

// With returns ctx carrying c.
func With(ctx context.Context, c Context) context.Context { return context.WithValue(ctx, key{}, c) }

// From returns the trace context in ctx, if any.
func From(ctx context.Context) (Context, bool) {
	c, ok := ctx.Value(key{}).(Context)
	return c, ok && c.Valid()
}

func hexOf(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < n; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func allZero(s string) bool { return strings.Trim(s, "0") == "" }

// randomHex is n random bytes in hex, never all zero. The bytes come
// from the runtime's generator (ChaCha8, seeded by the system, one state
// per thread): an id needs to be unique, not secret, and a system call
// per id cost every request murlog serve answers a microsecond.
func randomHex(n int) string {
	var b [16]byte
	for i := 0; i < n; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], rand.Uint64())
	}
	if b == [16]byte{} { // n ≤ 16, the rest is zero anyway
		b[n-1] = 1
	}
	var out [32]byte
	hex.Encode(out[:], b[:n])
	return string(out[:2*n])
}
