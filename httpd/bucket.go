package httpd

import (
	"sync"
	"time"
)

// Buckets is an in-memory token-bucket rate limiter keyed by a string (a
// client address, a signing domain). It is the inbox's cheapest shield:
// it runs before the body is read, parsed or a signature verified, so it
// costs one map lookup under a mutex and never touches the database.
//
// Memory is bounded: at most Max keys are tracked. When the table is full
// the keys whose buckets have refilled (they would allow a full burst
// anyway) are dropped; if none has, the new key is refused rather than
// tracked, so a flood of distinct keys cannot grow the table or push the
// busiest offenders out. Under CGI each process starts empty, which makes
// the limiter a per-request no-op there; the shared host's own limits
// apply instead.
type Buckets struct {
	Rate  float64          // tokens added per second
	Burst float64          // bucket size: requests allowed at once
	Max   int              // keys tracked at most; 0 means 100,000
	Now   func() time.Time // the clock; time.Now when nil

	mu sync.Mutex
	m  map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// Allow takes one token from key's bucket and reports whether there was
// one. When it refuses, retry says how long until the next token.
func (b *Buckets) Allow(key string) (ok bool, retry time.Duration) {
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	t := now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]*bucket{}
	}
	k, found := b.m[key]
	if !found {
		if len(b.m) >= b.max() && !b.evict(t) {
			return false, time.Second
		}
		k = &bucket{tokens: b.Burst, at: t}
		b.m[key] = k
	}
	k.refill(t, b.Rate, b.Burst)
	if k.tokens < 1 {
		if b.Rate <= 0 {
			return false, time.Minute
		}
		return false, time.Duration((1 - k.tokens) / b.Rate * float64(time.Second))
	}
	k.tokens--
	return true, 0
}

// Charge takes n more tokens from key's bucket, as a penalty for a
// request that turned out to be bad after it was allowed (a forged
// signature cost a signature check). The bucket may go below zero, down
// to -Burst, so that a key sending forgeries is refused, cheaply, for
// longer. A key not tracked is not added.
func (b *Buckets) Charge(key string, n float64) {
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	t := now()
	b.mu.Lock()
	defer b.mu.Unlock()
	k, ok := b.m[key]
	if !ok {
		return
	}
	k.refill(t, b.Rate, b.Burst)
	k.tokens = max(k.tokens-n, -b.Burst)
}

// Len is the number of keys tracked.
func (b *Buckets) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.m)
}

func (b *Buckets) max() int {
	if b.Max > 0 {
		return b.Max
	}
	return 100_000
}

// evict drops every bucket that has refilled to Burst by t and reports
// whether it freed room. It walks the whole table, but only when the
// table is full, and each walk frees every idle key at once.
func (b *Buckets) evict(t time.Time) bool {
	freed := false
	for key, k := range b.m {
		k.refill(t, b.Rate, b.Burst)
		if k.tokens >= b.Burst {
			delete(b.m, key)
			freed = true
		}
	}
	return freed
}

func (k *bucket) refill(t time.Time, rate, burst float64) {
	if d := t.Sub(k.at); d > 0 {
		k.tokens += d.Seconds() * rate
		if k.tokens > burst {
			k.tokens = burst
		}
		k.at = t
	}
}
