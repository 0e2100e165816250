package storetest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// testDirtyKeys: marks are kept oldest first with their first time; a
// key marked again during a rebuild keeps its newer mark through the
// rebuild's Clear; a rolled-back write marks nothing; limits are refused
// whole.
func testDirtyKeys(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	update(t, s, func(tx store.Tx) error { return tx.DirtyKeys().Mark("html/@alice/a/index.html", "feed/@alice.rss") })
	c.t = c.t.Add(time.Second)
	update(t, s, func(tx store.Tx) error {
		return tx.DirtyKeys().Mark("sitemap.xml", "html/@alice/a/index.html") // the post again: keeps its first time
	})
	var got []store.DirtyKey
	view(t, s, func(tx store.Tx) (err error) { got, err = tx.DirtyKeys().Oldest(10); return })
	if len(got) != 3 || got[0].Key != "feed/@alice.rss" || got[1].Key != "html/@alice/a/index.html" || got[2].Key != "sitemap.xml" {
		t.Fatalf("Oldest = %+v; want the two first marks (by key), then sitemap.xml", got)
	}
	if got[1].Gen != 2 || got[0].Gen != 1 || !got[1].Since.Equal(got[0].Since) || !got[2].Since.After(got[0].Since) {
		t.Errorf("generations and times %+v; want the post at gen 2 with its first time", got)
	}
	// A rebuild read the keys; a write marks the post again before the
	// rebuild clears: the newer mark survives.
	update(t, s, func(tx store.Tx) error { return tx.DirtyKeys().Mark("html/@alice/a/index.html") })
	var cleared int
	update(t, s, func(tx store.Tx) (err error) { cleared, err = tx.DirtyKeys().Clear(got...); return })
	if cleared != 2 {
		t.Errorf("Clear cleared %d; want 2 (the post was dirtied again)", cleared)
	}
	var left []store.DirtyKey
	var n int
	view(t, s, func(tx store.Tx) (err error) {
		if left, err = tx.DirtyKeys().Oldest(10); err != nil {
			return err
		}
		n, err = tx.DirtyKeys().Count()
		return err
	})
	if len(left) != 1 || left[0].Key != "html/@alice/a/index.html" || left[0].Gen != 3 || n != 1 {
		t.Errorf("left %+v (count %d); want the post at gen 3", left, n)
	}
	// A write that fails marks nothing.
	boom := errors.New("boom")
	if err := s.Update(ctx, func(tx store.Tx) error {
		if err := tx.DirtyKeys().Mark("html/rolled-back"); err != nil {
			return err
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("Update = %v", err)
	}
	view(t, s, func(tx store.Tx) (err error) { n, err = tx.DirtyKeys().Count(); return })
	if n != 1 {
		t.Errorf("count after a rolled-back mark = %d; want 1", n)
	}
	// Limits, refused whole.
	many := make([]string, store.MaxMarkKeys+1)
	for i := range many {
		many[i] = "k" + strings.Repeat("x", i%7) + string(rune('a'+i%26))
	}
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.DirtyKeys().Mark(many...) }); code(err) != murlog.EInvalid {
		t.Errorf("Mark of %d keys: %v; want invalid", len(many), err)
	}
	for _, bad := range []string{"", strings.Repeat("a", store.MaxDirtyKey+1)} {
		if err := s.Update(ctx, func(tx store.Tx) error { return tx.DirtyKeys().Mark("ok-first", bad) }); code(err) != murlog.EInvalid {
			t.Errorf("Mark of a %d-byte key: %v; want invalid", len(bad), err)
		}
	}
	view(t, s, func(tx store.Tx) error {
		if n, _ := tx.DirtyKeys().Count(); n != 1 {
			t.Errorf("count after refused marks = %d; want 1 (nothing of them written)", n)
		}
		for _, l := range []int{0, -1, store.MaxMarkKeys + 1} {
			if _, err := tx.DirtyKeys().Oldest(l); code(err) != murlog.EInvalid {
				t.Errorf("Oldest(%d): %v; want invalid", l, err)
			}
		}
		return nil
	})
}
