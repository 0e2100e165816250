package blog

import (
	"sync"
	"time"
)

// siteCache keeps each persona's personaSite by the key its pages look it
// up with ("primary", "u:<lower-case username>"). Only personas that
// exist are kept, so it holds at most a few entries per persona whatever
// names the requests carry.
type siteCache struct {
	mu  sync.Mutex
	m   map[string]siteEntry
	gen uint64 // bumped by Invalidate: older entries are dropped
}

type siteEntry struct {
	ps  *personaSite
	at  time.Time
	gen uint64
}

// Invalidate drops what the Loader keeps about personas, settings and
// post lists; the app calls it when a post, a persona, its site settings
// or a site setting changes.
func (l *Loader) Invalidate() {
	l.sites.mu.Lock()
	l.sites.gen++
	l.sites.m = nil
	l.sites.mu.Unlock()
}

// cached returns key's entry, nil when there is none (or it is stale).
func (l *Loader) cached(key string) *personaSite {
	if l.SiteTTL <= 0 {
		return nil
	}
	c := &l.sites
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || e.gen != c.gen || time.Since(e.at) > l.SiteTTL {
		return nil
	}
	return e.ps
}

// keep stores ps, read in a transaction of generation gen (Loader.view).
// When an Invalidate ran since, the read may predate the change that
// caused it, so it is not kept.
func (l *Loader) keep(key string, ps *personaSite, gen uint64) {
	if l.SiteTTL <= 0 {
		return
	}
	c := &l.sites
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.m == nil {
		c.m = map[string]siteEntry{}
	}
	c.m[key] = siteEntry{ps: ps, at: time.Now(), gen: gen}
}
