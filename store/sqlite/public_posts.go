package sqlite

import (
	"errors"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// publicPosts are the anonymous reader's queries. Each includes
// publicPredicate; "listed" adds visibility = 'public'.
type publicPosts struct{ t *tx }

func (r publicPosts) Get(id string, now time.Time) (*murlog.Post, error) {
	return one(r.t, "post", "SELECT "+postCols+" FROM posts WHERE id = ? AND "+publicPredicate, scanPost, id, micros(now))
}

// TODO(h-store): the queries below.
var errTODO = errors.New("sqlite: public posts query not written yet")

func (r publicPosts) List(q store.PublicQuery) ([]*murlog.Post, error) {
	return nil, murlog.Internal(errTODO)
}
func (r publicPosts) Neighbours(p *murlog.Post, now time.Time) (*murlog.Post, *murlog.Post, error) {
	return nil, nil, murlog.Internal(errTODO)
}
func (r publicPosts) ByIDs(ids []string, now time.Time) ([]*murlog.Post, error) {
	return nil, murlog.Internal(errTODO)
}
func (r publicPosts) Search(q store.SearchQuery) ([]*murlog.Post, error) {
	return nil, murlog.Internal(errTODO)
}
func (r publicPosts) Sitemap(now time.Time, limit int) ([]store.SitemapEntry, error) {
	return nil, murlog.Internal(errTODO)
}
func (r publicPosts) NextPublication(now time.Time) (*time.Time, error) {
	return nil, murlog.Internal(errTODO)
}
