package lru

import (
	"fmt"
	"sync"
	"testing"
)

func TestEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	c := New[string, int](2)
	c.Put("a", 1)
	c.Put("b", 2)
	if v, ok := c.Get("a"); !ok || v != 1 { // a is now the most recent
		t.Fatalf(`Get("a") = %v, %v; want 1, true`, v, ok)
	}
	c.Put("c", 3) // evicts b
	if _, ok := c.Get("b"); ok {
		t.Error(`"b" survived; want it evicted as least recently used`)
	}
	for k, want := range map[string]int{"a": 1, "c": 3} {
		if v, ok := c.Get(k); !ok || v != want {
			t.Errorf("Get(%q) = %v, %v; want %d", k, v, ok, want)
		}
	}
	c.Put("a", 10)
	if v, _ := c.Get("a"); v != 10 || c.Len() != 2 {
		t.Errorf("after replacing a: Get = %d, Len = %d; want 10 and 2", v, c.Len())
	}
	if New[int, int](0).max != 1 {
		t.Error("New(0): want a size of 1")
	}
}

func TestConcurrent(t *testing.T) {
	t.Parallel()
	c := New[string, int](50)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				k := fmt.Sprint(i % 80)
				c.Put(k, i)
				c.Get(k)
			}
		}()
	}
	wg.Wait()
	if c.Len() != 50 {
		t.Fatalf("Len = %d; want the bound 50", c.Len())
	}
}
