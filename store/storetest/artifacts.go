package storetest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// testDirtyKeys: marks are read newest first with their first time; a
// key marked again during a rebuild keeps its newer mark through the
// rebuild's Clear, and one another rebuild cleared meanwhile is marked
// again; a rolled-back write marks nothing; old marks are reaped; limits
// are refused whole.
func testDirtyKeys(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	update(t, s, func(tx store.Tx) error { return tx.DirtyKeys().Mark("html/@alice/a/index.html", "feed/@alice.rss") })
	c.t = c.t.Add(time.Second)
	update(t, s, func(tx store.Tx) error {
		return tx.DirtyKeys().Mark("sitemap.xml", "html/@alice/a/index.html") // the post again: keeps its first time
	})
	var got []store.DirtyKey
	view(t, s, func(tx store.Tx) (err error) { got, err = tx.DirtyKeys().Newest(10, time.Time{}); return })
	if len(got) != 3 || got[0].Key != "html/@alice/a/index.html" || got[1].Key != "sitemap.xml" || got[2].Key != "feed/@alice.rss" {
		t.Fatalf("Newest = %+v; want the post and sitemap.xml (marked last, last first), then the feed", got)
	}
	if got[0].Gen != 2 || got[2].Gen != 1 || !got[0].Since.Equal(got[2].Since) || !got[0].Touched.After(got[1].Touched) || !got[1].Touched.After(got[2].Touched) {
		t.Errorf("generations and times %+v; want the post at gen 2 with its first time, each touch after the one before", got)
	}
	// Since leaves out what was marked before it (the marks of an owner's
	// write are those made since the request began).
	cut := time.Now().Add(time.Hour)
	view(t, s, func(tx store.Tx) error {
		if ks, err := tx.DirtyKeys().Newest(10, cut); err != nil || len(ks) != 0 {
			t.Errorf("Newest since an hour from now = %+v, %v; want nothing", ks, err)
		}
		if ks, err := tx.DirtyKeys().Newest(10, got[2].Touched); err != nil || len(ks) != 3 {
			t.Errorf("Newest since the first mark = %+v, %v; want all three", ks, err)
		}
		return nil
	})
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
		if left, err = tx.DirtyKeys().Newest(10, time.Time{}); err != nil {
			return err
		}
		n, err = tx.DirtyKeys().Count()
		return err
	})
	if len(left) != 1 || left[0].Key != "html/@alice/a/index.html" || left[0].Gen != 3 || n != 1 {
		t.Errorf("left %+v (count %d); want the post at gen 3", left, n)
	}
	// Two rebuilds took the post at gen 3; the first clears it, the
	// second finds it gone and marks it again (its render may be older).
	for i, want := range []int{1, 0} {
		update(t, s, func(tx store.Tx) (err error) { cleared, err = tx.DirtyKeys().Clear(left...); return })
		if cleared != want {
			t.Errorf("Clear #%d cleared %d; want %d", i+1, cleared, want)
		}
	}
	view(t, s, func(tx store.Tx) (err error) { n, err = tx.DirtyKeys().Count(); return })
	if n != 1 {
		t.Errorf("count after a second rebuild cleared a cleared key = %d; want 1 (marked again)", n)
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
			if _, err := tx.DirtyKeys().Newest(l, time.Time{}); code(err) != murlog.EInvalid {
				t.Errorf("Newest(%d): %v; want invalid", l, err)
			}
		}
		return nil
	})
	// Housekeeping reaps by the first mark's time.
	c.t = c.t.Add(time.Hour)
	update(t, s, func(tx store.Tx) error { return tx.DirtyKeys().Mark("fresh") })
	update(t, s, func(tx store.Tx) (err error) {
		if n, err = tx.DirtyKeys().Reap(c.t.Add(-time.Minute)); err == nil && n != 1 {
			t.Errorf("Reap of marks older than a minute = %d; want 1 (the post)", n)
		}
		return err
	})
	view(t, s, func(tx store.Tx) error {
		if ks, err := tx.DirtyKeys().Newest(10, time.Time{}); err != nil || len(ks) != 1 || ks[0].Key != "fresh" {
			t.Errorf("left after Reap: %+v, %v; want fresh", ks, err)
		}
		return nil
	})
}
