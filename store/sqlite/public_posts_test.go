package sqlite

import (
	"testing"

	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/storetest"
)

func TestPublicPostsContract(t *testing.T) {
	storetest.PublicPosts(t, func(t *testing.T) store.Store { return MustOpen(t, nil) })
}
