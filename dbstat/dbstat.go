// Package dbstat counts the database statements murlog runs, by the class
// of the request or job that ran them: db_statements_total{class=…} on
// /metrics (issue 16, point 12). The read path's promise — a public read
// in steady state costs no statement at all — is checked by watching the
// "public" count not move during a load run.
//
// A request or job carries its class in its context (With); the store
// adapter counts each statement it prepares or runs, and each
// transaction it begins, under the class of the context it was given
// (Of). A statement with no class in its context is counted as System:
// opening the database, the setup guard, the process's own bookkeeping.
//
// Counts live in the process (Counter) and are added to a small file
// beside the database when the process ends (Log.Flush), so that CGI
// requests and the workers they spawn, each a process of its own, add to
// the same totals as a resident server, without a database write per
// read. /metrics reads the file and adds what its own process has not
// flushed yet.
package dbstat

import (
	"context"
	"sync/atomic"
)

// Class is who ran a statement.
type Class uint8

// The classes. Public is every anonymous read a visitor or a remote
// server makes (pages, ActivityPub documents, WebFinger, NodeInfo, feeds,
// the sitemap, theme assets, media, search, the public JSON API); Owner
// is the owner's app and its API; Inbox is remote servers' deliveries;
// Worker is jobs; Setup the setup wizard; System the rest.
const (
	System Class = iota
	Public
	Owner
	Inbox
	Worker
	Setup
	numClasses
)

var names = [numClasses]string{"system", "public", "owner", "inbox", "worker", "setup"}

// String is the class's label value.
func (c Class) String() string {
	if c >= numClasses {
		return "system"
	}
	return names[c]
}

// Classes lists every class in label order of their constants.
func Classes() []Class {
	out := make([]Class, numClasses)
	for i := range out {
		out[i] = Class(i)
	}
	return out
}

// parse is the class named s, and false for a name no class has.
func parse(s string) (Class, bool) {
	for i, n := range names {
		if n == s {
			return Class(i), true
		}
	}
	return 0, false
}

type ctxKey struct{}

// With returns ctx carrying class c. The innermost class wins: a job a
// request runs in its own context is the job's.
func With(ctx context.Context, c Class) context.Context {
	if _, pinned := ctx.Value(pinKey{}).(bool); pinned {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, c)
}

type pinKey struct{}

// Pin returns ctx carrying class c for good: a With further in keeps it.
// The rebuild job renders pages through the public routes, which name
// their class Public; pinned, their statements count as the job's
// (Worker), so that "public" counts only what readers cause.
func Pin(ctx context.Context, c Class) context.Context {
	return context.WithValue(context.WithValue(ctx, ctxKey{}, c), pinKey{}, true)
}

// Of is the class ctx carries, System when none.
func Of(ctx context.Context) Class {
	if ctx == nil {
		return System
	}
	if c, ok := ctx.Value(ctxKey{}).(Class); ok && c < numClasses {
		return c
	}
	return System
}

// Counter counts statements by class. The zero Counter is ready; it is
// safe for concurrent use and costs one atomic add per statement.
type Counter struct {
	n     [numClasses]atomic.Uint64
	drops [numShields]atomic.Uint64 // shield.go
	ev    eventCounts               // events.go
}

// Add counts n statements of class c.
func (k *Counter) Add(c Class, n uint64) {
	if k == nil {
		return
	}
	if c >= numClasses {
		c = System
	}
	k.n[c].Add(n)
}

// Counts returns the counts so far, by class.
func (k *Counter) Counts() map[Class]uint64 {
	out := make(map[Class]uint64, numClasses)
	if k == nil {
		return out
	}
	for i := range k.n {
		out[Class(i)] = k.n[i].Load()
	}
	return out
}

// take returns the counts and subtracts them (what a flush writes).
func (k *Counter) take() map[Class]uint64 {
	out := make(map[Class]uint64, numClasses)
	for i := range k.n {
		if v := k.n[i].Load(); v > 0 {
			k.n[i].Add(^(v - 1)) // subtracts v
			out[Class(i)] = v
		}
	}
	return out
}

// takeDrops is take for the shields' drops.
func (k *Counter) takeDrops() map[Shield]uint64 {
	out := make(map[Shield]uint64, numShields)
	for i := range k.drops {
		if v := k.drops[i].Load(); v > 0 {
			k.drops[i].Add(^(v - 1))
			out[Shield(i)] = v
		}
	}
	return out
}

// giveBack adds counts a failed flush could not write.
func (k *Counter) giveBack(m map[Class]uint64, d map[Shield]uint64) {
	for c, v := range m {
		k.Add(c, v)
	}
	for s, v := range d {
		k.drops[s].Add(v)
	}
}
