package prerender

import (
	"fmt"
	"testing"

	"github.com/murlog/murlog/artifact"
)

// TestMicroCacheBounds: the micro-cache holds at most cacheBytes of
// bodies, random entries leaving for new ones, keeps nothing over
// maxCached, and counts what it forgets.
func TestMicroCacheBounds(t *testing.T) {
	s := &Server{}
	body := make([]byte, maxCached*3/5)
	for i := range 40 {
		s.keep(fmt.Sprint("html/k", i, ".html"), &entry{body: body})
		if s.cached > cacheBytes {
			t.Fatalf("after %d entries of %d bytes the cache holds %d bytes; want at most %d", i+1, len(body), s.cached, cacheBytes)
		}
	}
	if n := len(s.cache); n != cacheBytes/len(body) {
		t.Errorf("the cache holds %d entries of %d bytes; want %d (cacheBytes of them)", n, len(body), cacheBytes/len(body))
	}
	s.keep("html/k39.html", &entry{body: body}) // the same key again: no growth
	if s.cached != len(s.cache)*len(body) {
		t.Errorf("cached %d bytes for %d entries of %d", s.cached, len(s.cache), len(body))
	}
	s.keep("html/big.html", &entry{body: make([]byte, maxCached+1)})
	if _, ok := s.cache["html/big.html"]; ok {
		t.Error("a body over maxCached was kept in memory")
	}
	for k := range s.cache {
		s.Forget(artifact.MustParseKey(k))
	}
	if s.cached != 0 || len(s.cache) != 0 {
		t.Errorf("after forgetting every key: %d entries, %d bytes", len(s.cache), s.cached)
	}
}
