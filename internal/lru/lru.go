// Package lru is a bounded least-recently-used map, safe for concurrent
// use: the in-memory caches of federation (parsed remote keys, which
// signature scheme each domain accepts) keep at most a set number of
// entries however many remote servers turn up.
package lru

import (
	"container/list"
	"sync"
)

// Cache holds at most its size in entries; adding one more evicts the least
// recently used.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recently used; values *entry[K, V]
	m     map[K]*list.Element
}

type entry[K comparable, V any] struct {
	key K
	val V
}

// New returns a Cache of at most size entries; a size below 1 means 1.
func New[K comparable, V any](size int) *Cache[K, V] {
	return &Cache[K, V]{max: max(size, 1), order: list.New(), m: map[K]*list.Element{}}
}

// Get returns key's value and marks it used.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*entry[K, V]).val, true
}

// Put sets key's value, evicting the least recently used entries past
// the bound.
func (c *Cache[K, V]) Put(key K, val V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		e.Value.(*entry[K, V]).val = val
		c.order.MoveToFront(e)
		return
	}
	c.m[key] = c.order.PushFront(&entry[K, V]{key, val})
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.m, old.Value.(*entry[K, V]).key)
	}
}

// Len is the number of entries.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
