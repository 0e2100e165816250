// Package trace carries a W3C Trace Context (the traceparent header)
// through a request and into the jobs it enqueues, so a job's log lines
// share the trace id of the request that caused it.
package trace

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	if allZero(hex.EncodeToString(b)) {
		b[n-1] = 1
	}
	return hex.EncodeToString(b)
}
