package blog

import (
	"sync"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// postCache keeps what post pages read — the published posts themselves,
// a persona's recent posts and each post's neighbours — so that a post
// page in the steady state reads no row. It is one epoch, dropped as a
// whole:
//   - by Invalidate, which the app calls after every post write;
//   - after SiteTTL, so writes of another process (CGI beside serve) show;
//   - when the next scheduled post goes public: no write marks that
//     moment, so the epoch remembers when it is (NextPublication) and ends
//     there.
//
// The posts it holds are never modified once read. With SiteTTL 0 (CGI)
// nothing is kept.
type postCache struct {
	mu     sync.Mutex
	gen    uint64     // the siteCache generation the epoch belongs to
	at     time.Time  // wall time the epoch began
	until  *time.Time // next publication at the epoch's start; nil for none
	recent map[recentKey][]*murlog.Post
	neigh  map[string][2]*murlog.Post
	post   map[string]*murlog.Post  // by id: posts PublicPosts.Get found
	slug   map[slugKey]*murlog.Post // by persona and slug: posts PublicPosts.BySlug found
}

type slugKey struct{ persona, slug string }

type recentKey struct {
	persona string
	n       int
}

// maxNeighbours bounds the neighbour entries of one epoch; when full the
// epoch starts again (a crawl of every post must not grow memory).
const maxNeighbours = 4096

// epoch returns the generation entries may be kept under, starting a new
// epoch (one NextPublication query) when the current one is over, and
// false when nothing is cached at all.
func (l *Loader) epoch(s *scope) (uint64, bool, error) {
	if l.SiteTTL <= 0 {
		return 0, false, nil
	}
	// The transaction's generation, not the current one: an epoch is
	// filled only by transactions that began after its Invalidate.
	gen := l.genOf(s.tx)
	if gen != l.generation() {
		return 0, false, nil
	}
	c := &l.posts
	c.mu.Lock()
	ok := c.recent != nil && c.gen == gen && time.Since(c.at) <= l.SiteTTL &&
		(c.until == nil || s.now.Before(*c.until)) && len(c.neigh) < maxNeighbours && len(c.post) < maxNeighbours &&
		len(c.slug) < maxNeighbours
	c.mu.Unlock()
	if ok {
		return gen, true, nil
	}
	next, err := s.tx.PublicPosts().NextPublication(s.now)
	if err != nil {
		return 0, false, err
	}
	c.mu.Lock()
	c.gen, c.at, c.until = gen, time.Now(), next
	c.recent, c.neigh, c.post = map[recentKey][]*murlog.Post{}, map[string][2]*murlog.Post{}, map[string]*murlog.Post{}
	c.slug = map[slugKey]*murlog.Post{}
	c.mu.Unlock()
	return gen, true, nil
}

// generation is the siteCache's generation, bumped by Invalidate.
func (l *Loader) generation() uint64 {
	l.sites.mu.Lock()
	defer l.sites.mu.Unlock()
	return l.sites.gen
}

// kept returns what read returns, through the epoch's map m at key k:
// from the map when this epoch has it, else read and, unless an
// Invalidate came in between, kept.
func kept[K comparable, V any](l *Loader, s *scope, m func(*postCache) map[K]V, k K, read func() (V, error)) (V, error) {
	gen, ok, err := l.epoch(s)
	if err != nil {
		var zero V
		return zero, err
	}
	c := &l.posts
	if ok {
		c.mu.Lock()
		got, hit := m(c)[k]
		hit = hit && c.gen == gen
		c.mu.Unlock()
		if hit {
			return got, nil
		}
	}
	got, err := read()
	if err != nil || !ok {
		return got, err
	}
	c.mu.Lock()
	if c.gen == gen && m(c) != nil {
		m(c)[k] = got
	}
	c.mu.Unlock()
	return got, nil
}

// recentPosts returns the persona's n newest listed posts.
func (l *Loader) recentPosts(s *scope, n int) ([]*murlog.Post, error) {
	return kept(l, s, func(c *postCache) map[recentKey][]*murlog.Post { return c.recent }, recentKey{s.persona.ID, n},
		func() ([]*murlog.Post, error) {
			return s.tx.PublicPosts().List(store.PublicQuery{PersonaID: s.persona.ID, Now: s.now, Limit: n})
		})
}

// neighbours returns p's older and newer listed posts.
func (l *Loader) neighbours(s *scope, p *murlog.Post) (older, newer *murlog.Post, err error) {
	pair, err := kept(l, s, func(c *postCache) map[string][2]*murlog.Post { return c.neigh }, p.ID,
		func() ([2]*murlog.Post, error) {
			older, newer, err := s.tx.PublicPosts().Neighbours(p, s.now)
			return [2]*murlog.Post{older, newer}, err
		})
	return pair[0], pair[1], err
}

// publicPost returns a published public or unlisted post by id
// (PublicPosts.Get). Only posts found are kept: a post becomes visible
// by a write (which ends the epoch) or by its scheduled time (which ends
// it too), and stops being visible only by a write.
func (l *Loader) publicPost(s *scope, id string) (*murlog.Post, error) {
	return kept(l, s, func(c *postCache) map[string]*murlog.Post { return c.post }, id,
		func() (*murlog.Post, error) { return s.tx.PublicPosts().Get(id, s.now) })
}

// slugPost returns the published post of s's persona whose slug or old
// slug is slug (PublicPosts.BySlug), kept like publicPost: a rename is a
// write, which ends the epoch.
func (l *Loader) slugPost(s *scope, slug string) (*murlog.Post, error) {
	return kept(l, s, func(c *postCache) map[slugKey]*murlog.Post { return c.slug }, slugKey{s.persona.ID, slug},
		func() (*murlog.Post, error) { return s.tx.PublicPosts().BySlug(s.persona.ID, slug, s.now) })
}
