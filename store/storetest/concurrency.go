package storetest

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// Writers and steps of the concurrency contract: enough goroutines that an
// engine with concurrent writers interleaves their reads and writes, few
// enough steps that SQLite's single writer finishes in well under a second.
const (
	concWriters = 8
	concSteps   = 25
)

// testConcurrentWriters is the serialisation contract of Store.Update:
// writers that each read a value and write it back incremented, all at
// once, end with the exact total. An adapter that lets two transactions
// read the same value and both commit (READ COMMITTED without row locks)
// loses increments and fails here. The counter operations
// (AddPostsCount, RecountPosts) are checked the same way.
func testConcurrentWriters(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	per := seedPersona(t, s, c.t)
	pub := c.t.Add(-time.Minute)
	post := NewPost(per.ID, &pub, murlog.VisibilityPublic, c.t)
	post.Summary = "0"
	update(t, s, func(tx store.Tx) error {
		if err := tx.Settings().Set("counter", "0"); err != nil {
			return err
		}
		return tx.Posts().Create(post)
	})

	steps := []struct {
		name string
		fn   func(tx store.Tx) error
	}{
		{"setting Get+Set", func(tx store.Tx) error {
			v, err := tx.Settings().Get("counter")
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return err
			}
			return tx.Settings().Set("counter", strconv.Itoa(n+1))
		}},
		{"post Get+Update", func(tx store.Tx) error {
			p, err := tx.Posts().Get(post.ID)
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(p.Summary)
			if err != nil {
				return err
			}
			p.Summary = strconv.Itoa(n + 1)
			return tx.Posts().Update(p)
		}},
		{"AddPostsCount", func(tx store.Tx) error { return tx.Personas().AddPostsCount(per.ID, 1) }},
	}
	var wg sync.WaitGroup
	errs := make(chan error, concWriters*concSteps*len(steps))
	for w := 0; w < concWriters; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < concSteps; i++ {
				for _, st := range steps {
					if err := s.Update(ctx, st.fn); err != nil {
						errs <- fmt.Errorf("%s: %w", st.name, err)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		// The adapter retries what it must; a caller never sees a
		// serialisation failure.
		t.Errorf("concurrent Update failed: %v", err)
	}

	want := concWriters * concSteps
	view(t, s, func(tx store.Tx) error {
		if v, err := tx.Settings().Get("counter"); err != nil || v != strconv.Itoa(want) {
			t.Errorf("after %d×%d Get+Set increments the setting is %q, %v; want %d", concWriters, concSteps, v, err, want)
		}
		if p, err := tx.Posts().Get(post.ID); err != nil || p.Summary != strconv.Itoa(want) {
			t.Errorf("after %d×%d Get+Update increments the post field is %q, %v; want %d", concWriters, concSteps, p.Summary, err, want)
		}
		if p, err := tx.Personas().Get(per.ID); err != nil || p.PostsCount != want {
			t.Errorf("after %d×%d AddPostsCount(+1) posts_count = %d, %v; want %d", concWriters, concSteps, p.PostsCount, err, want)
		}
		return nil
	})
}

// testPostsCount checks the counter operations: AddPostsCount never goes
// below zero, and RecountPosts counts exactly the posts published at or
// before now, whatever the counter said.
func testPostsCount(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	per := seedPersona(t, s, c.t)
	other := NewPersona("bob", false, c.t)
	past, future := c.t.Add(-time.Hour), c.t.Add(time.Hour)
	update(t, s, func(tx store.Tx) error {
		if err := tx.Personas().Create(other); err != nil {
			return err
		}
		for _, p := range []*murlog.Post{
			NewPost(per.ID, &past, murlog.VisibilityPublic, c.t),
			NewPost(per.ID, &past, murlog.VisibilityFollowers, c.t),
			NewPost(per.ID, &c.t, murlog.VisibilityDirect, c.t), // published exactly now
			NewPost(per.ID, &future, murlog.VisibilityPublic, c.t),
			NewPost(per.ID, nil, murlog.VisibilityPublic, c.t),
			NewPost(other.ID, &past, murlog.VisibilityPublic, c.t),
		} {
			if err := tx.Posts().Create(p); err != nil {
				return err
			}
		}
		return tx.Personas().AddPostsCount(per.ID, -5)
	})
	count := func(id string) int {
		var n int
		view(t, s, func(tx store.Tx) error {
			p, err := tx.Personas().Get(id)
			n = p.PostsCount
			return err
		})
		return n
	}
	if n := count(per.ID); n != 0 {
		t.Errorf("AddPostsCount(-5) from 0 left posts_count = %d; want 0 (never negative)", n)
	}
	for _, tc := range []struct {
		at   time.Time
		want int
	}{
		{c.t, 3},                    // two in the past, one exactly now; not the draft or the scheduled one
		{c.t, 3},                    // again: the same, not 6
		{future, 4},                 // the scheduled post's time has come
		{past.Add(-time.Second), 0}, // before anything was published
	} {
		var got int
		update(t, s, func(tx store.Tx) error {
			var err error
			got, err = tx.Personas().RecountPosts(per.ID, tc.at)
			return err
		})
		if got != tc.want || count(per.ID) != tc.want {
			t.Errorf("RecountPosts(at %s) = %d, stored %d; want %d", tc.at.Format(time.RFC3339), got, count(per.ID), tc.want)
		}
	}
	if n := count(other.ID); n != 0 {
		t.Errorf("recounting alice changed bob's posts_count to %d; want 0", n)
	}
	err := s.Update(ctx, func(tx store.Tx) error { _, err := tx.Personas().RecountPosts(murlog.NewID(), c.t); return err })
	if code(err) != murlog.ENotFound {
		t.Errorf("RecountPosts(unknown persona) err = %v; want not_found", err)
	}
}

// testFanoutProgress checks that Advance is a compare-and-set: of the
// writers that read one position, exactly one moves it, and a finished
// fan-out moves no more.
func testFanoutProgress(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	const key = "fanout-key"
	get := func() (string, bool) {
		var after string
		var done bool
		view(t, s, func(tx store.Tx) error {
			var err error
			after, done, err = tx.FanoutProgress().Get(key)
			return err
		})
		return after, done
	}
	if after, done := get(); after != "" || done {
		t.Fatalf("Get of a fan-out never started = %q, %v; want \"\", false", after, done)
	}
	// All writers read the start ("") and try to commit their first page.
	var wg sync.WaitGroup
	var mu sync.Mutex
	winners := []string{}
	for w := 0; w < concWriters; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			to := fmt.Sprintf("r%02d", w)
			err := s.Update(ctx, func(tx store.Tx) error {
				won, err := tx.FanoutProgress().Advance(key, "", to, false, tx.Now())
				if won {
					mu.Lock()
					winners = append(winners, to)
					mu.Unlock()
				}
				return err
			})
			if err != nil {
				t.Errorf("Advance from the start: %v", err)
			}
		}()
	}
	wg.Wait()
	if len(winners) != 1 {
		t.Fatalf("%d of %d writers advanced from the same position (%v); want exactly 1", len(winners), concWriters, winners)
	}
	pos := winners[0]
	if after, done := get(); after != pos || done {
		t.Errorf("Get = %q, %v; want the winner's %q, not done", after, done, pos)
	}
	for _, tc := range []struct {
		name     string
		from, to string
		done     bool
		want     bool
	}{
		{"from the start again", "", "zz", false, false},
		{"from a stale position", "r99", "zz", false, false},
		{"from the stored position", pos, "s1", false, true},
		{"to done", "s1", "s1", true, true},
		{"after done", "s1", "s2", false, false},
	} {
		var won bool
		update(t, s, func(tx store.Tx) error {
			var err error
			won, err = tx.FanoutProgress().Advance(key, tc.from, tc.to, tc.done, tx.Now())
			return err
		})
		if won != tc.want {
			t.Errorf("Advance %s (%q → %q) = %v; want %v", tc.name, tc.from, tc.to, won, tc.want)
		}
	}
	if after, done := get(); after != "s1" || !done {
		t.Errorf("Get after finishing = %q, %v; want \"s1\", true", after, done)
	}
	// An empty fan-out finishes from the start in one step.
	update(t, s, func(tx store.Tx) error {
		won, err := tx.FanoutProgress().Advance("empty", "", "", true, tx.Now())
		if !won {
			t.Error("Advance of an empty fan-out to done from the start = false; want true")
		}
		return err
	})
}
