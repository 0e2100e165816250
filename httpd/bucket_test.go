package httpd

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestBucketsBurstThenRate(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	b := &Buckets{Rate: 2, Burst: 3, Now: func() time.Time { return now }}
	for i := 0; i < 3; i++ {
		if ok, _ := b.Allow("a"); !ok {
			t.Fatalf("Allow #%d within the burst: got refused; want allowed", i+1)
		}
	}
	ok, retry := b.Allow("a")
	if ok || retry <= 0 || retry > time.Second {
		t.Fatalf("Allow past the burst: got %v, retry %v; want refused with 0 < retry ≤ 1s", ok, retry)
	}
	if ok, _ := b.Allow("b"); !ok {
		t.Fatal("another key: got refused; want its own bucket")
	}
	now = now.Add(500 * time.Millisecond) // one token at 2/s
	if ok, _ := b.Allow("a"); !ok {
		t.Fatal("after 0.5 s at 2 tokens/s: got refused; want one token")
	}
	if ok, _ := b.Allow("a"); ok {
		t.Fatal("second call after 0.5 s: got allowed; want refused")
	}
}

func TestBucketsBoundedMemory(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	b := &Buckets{Rate: 1, Burst: 2, Max: 10, Now: func() time.Time { return now }}
	for i := 0; i < 10; i++ {
		b.Allow(fmt.Sprint("k", i))
	}
	// Full, and every bucket has spent a token: a new key is refused,
	// not tracked, and the known offenders keep their state.
	if ok, _ := b.Allow("new"); ok {
		t.Fatal("new key with a full table of busy buckets: got allowed; want refused")
	}
	if b.Len() != 10 {
		t.Fatalf("Len: got %d; want 10", b.Len())
	}
	now = now.Add(5 * time.Second) // everything refills
	if ok, _ := b.Allow("new"); !ok {
		t.Fatal("new key once idle buckets refilled: got refused; want allowed")
	}
	if b.Len() != 1 {
		t.Fatalf("Len after eviction: got %d; want 1 (idle keys dropped)", b.Len())
	}
}

func TestBucketsConcurrent(t *testing.T) {
	t.Parallel()
	b := &Buckets{Rate: 0.001, Burst: 100}
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if ok, _ := b.Allow("x"); ok {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowed != 100 {
		t.Fatalf("400 concurrent calls on a burst of 100: got %d allowed; want exactly 100", allowed)
	}
}

func BenchmarkBucketsAllow(b *testing.B) {
	bk := &Buckets{Rate: 1e9, Burst: 1e9}
	keys := make([]string, 100)
	for i := range keys {
		keys[i] = fmt.Sprint("10.0.0.", i)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			bk.Allow(keys[i%len(keys)])
			i++
		}
	})
}

func TestBucketsCharge(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	b := &Buckets{Rate: 10, Burst: 10, Now: func() time.Time { return now }}
	b.Allow("forger")
	b.Charge("forger", 15) // 9 tokens left, minus 15, floored at -10
	if ok, retry := b.Allow("forger"); ok || retry < 700*time.Millisecond {
		t.Fatalf("after a penalty of 15: got allowed=%v retry %v; want refused until 7 tokens refill (0.7 s)", ok, retry)
	}
	now = now.Add(1100 * time.Millisecond) // -6 + 11 = 5 tokens
	if ok, _ := b.Allow("forger"); !ok {
		t.Fatal("after the penalty refilled: got refused; want allowed")
	}
	b.Charge("stranger", 5)
	if b.Len() != 1 {
		t.Fatalf("Charge of an untracked key: Len %d; want 1 (not added)", b.Len())
	}
}
