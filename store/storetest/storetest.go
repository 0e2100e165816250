// Package storetest is the contract every store adapter must meet. An
// adapter's tests call Run with a function opening a fresh, empty store;
// the same suite then runs on SQLite today and PostgreSQL later.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// Opener returns a new empty, migrated store whose clock is now().
type Opener func(t *testing.T, now func() time.Time) store.Store

// Run runs the whole contract.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"Settings", testSettings},
		{"Personas", testPersonas},
		{"PostsCRUD", testPostsCRUD},
		{"PublicationPredicate", testPublicationPredicate},
		{"Pagination", testPagination},
		{"Sessions", testSessions},
		{"Tokens", testTokens},
		{"LoginAttempts", testLoginAttempts},
		{"LoginAttemptHit", testLoginAttemptHit},
		{"LoginAttemptHitConcurrent", testLoginAttemptHitConcurrent},
		{"TokensDeleteAll", testTokensDeleteAll},
		{"SessionsList", testSessionsList},
		{"TwoFactor", testTwoFactor},
		{"TwoFactorUseStepConcurrent", testTwoFactorUseStepConcurrent},
		{"DomainFailures", testDomainFailures},
		{"SignatureSchemes", testSignatureSchemes},
		{"Rollback", testRollback},
		{"FixedNow", testFixedNow},
		{"ConcurrentWriters", testConcurrentWriters},
		{"PostsCount", testPostsCount},
		{"FanoutProgress", testFanoutProgress},
		{"Social", testSocial},
		{"InboxItems", testInboxItems},
		{"Slugs", testSlugs},
		{"Pages", testPages},
		{"DirtyKeys", testDirtyKeys},
		{"ShieldCounters", testShieldCounters},
		{"ShieldCountersConcurrent", testShieldCountersConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

var ctx = context.Background()

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newClock() *clock { return &clock{t: time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)} }

func update(t *testing.T, s store.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := s.Update(ctx, fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func view(t *testing.T, s store.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := s.View(ctx, fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

func code(err error) murlog.Code { return murlog.ErrorCode(err) }

// NewPersona returns a persona ready to insert.
func NewPersona(username string, primary bool, now time.Time) *murlog.Persona {
	return &murlog.Persona{ID: murlog.NewID(), Username: username, DisplayName: username, Primary: primary,
		ShowFollows: true, Discoverable: true, PublicKeyPEM: "pub", PrivateKeyPEM: "priv",
		Fields: []murlog.Field{{Name: "web", Value: "https://example.com"}}, CreatedAt: now, UpdatedAt: now}
}

func testSettings(t *testing.T, open Opener) {
	s := open(t, newClock().now)
	view(t, s, func(tx store.Tx) error {
		if _, err := tx.Settings().Get("domain"); code(err) != murlog.ENotFound {
			t.Errorf("Get(missing) err = %v; want not_found", err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		if err := tx.Settings().Set("a", "1"); err != nil {
			return err
		}
		if err := tx.Settings().Set("a", "2"); err != nil {
			return err
		}
		return tx.Settings().Set("b", "x")
	})
	view(t, s, func(tx store.Tx) error {
		m, err := tx.Settings().GetMany("a", "b", "c")
		if err != nil {
			return err
		}
		if len(m) != 2 || m["a"] != "2" || m["b"] != "x" {
			t.Errorf("GetMany = %v; want a=2 b=x", m)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error { return tx.Settings().Delete("a") })
	view(t, s, func(tx store.Tx) error {
		if _, err := tx.Settings().Get("a"); code(err) != murlog.ENotFound {
			t.Errorf("after Delete, Get err = %v; want not_found", err)
		}
		return nil
	})
}

func testPersonas(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	view(t, s, func(tx store.Tx) error {
		if _, err := tx.Personas().PrimaryID(); code(err) != murlog.ENotFound {
			t.Errorf("PrimaryID with no personas: %v; want not_found", err)
		}
		return nil
	})
	alice := NewPersona("alice", true, c.t)
	update(t, s, func(tx store.Tx) error { return tx.Personas().Create(alice) })
	err := s.Update(ctx, func(tx store.Tx) error { return tx.Personas().Create(NewPersona("ALICE", false, c.t)) })
	if code(err) != murlog.EConflict {
		t.Errorf("duplicate username (case-insensitive) err = %v; want conflict", err)
	}
	err = s.Update(ctx, func(tx store.Tx) error { return tx.Personas().Create(NewPersona("bob", true, c.t)) })
	if code(err) != murlog.EConflict {
		t.Errorf("second primary persona err = %v; want conflict", err)
	}
	bob := NewPersona("bob", false, c.t)
	update(t, s, func(tx store.Tx) error { return tx.Personas().Create(bob) })
	view(t, s, func(tx store.Tx) error {
		p, err := tx.Personas().Primary()
		if err != nil || p.ID != alice.ID {
			t.Errorf("Primary = %v, %v; want alice", p, err)
		}
		if id, err := tx.Personas().PrimaryID(); err != nil || id != alice.ID {
			t.Errorf("PrimaryID = %q, %v; want alice's id", id, err)
		}
		p, err = tx.Personas().GetByUsername("Alice")
		if err != nil || p.ID != alice.ID || len(p.Fields) != 1 || p.Fields[0].Name != "web" {
			t.Errorf("GetByUsername(Alice) = %+v, %v; want alice with her field", p, err)
		}
		ps, err := tx.Personas().List()
		if err != nil || len(ps) != 2 || ps[0].ID != alice.ID {
			t.Errorf("List = %d personas, %v; want 2, primary first", len(ps), err)
		}
		if _, err := tx.Personas().Get(murlog.NewID()); code(err) != murlog.ENotFound {
			t.Errorf("Get(unknown) err = %v; want not_found", err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		bob.DisplayName, bob.Locked, bob.Fields = "Bobby", true, nil
		if err := tx.Personas().Update(bob); err != nil {
			return err
		}
		if err := tx.Personas().AddPostsCount(bob.ID, 3); err != nil {
			return err
		}
		return tx.Personas().AddPostsCount(bob.ID, -5)
	})
	view(t, s, func(tx store.Tx) error {
		p, _ := tx.Personas().Get(bob.ID)
		if p.DisplayName != "Bobby" || !p.Locked || len(p.Fields) != 0 || p.PostsCount != 0 {
			t.Errorf("after update: %+v; want Bobby, locked, no fields, posts_count clamped at 0", p)
		}
		return nil
	})
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.Personas().Update(NewPersona("ghost", false, c.t)) }); code(err) != murlog.ENotFound {
		t.Errorf("Update(unknown) err = %v; want not_found", err)
	}
}

// NewPost returns a post ready to insert.
func NewPost(personaID string, pub *time.Time, vis murlog.Visibility, now time.Time) *murlog.Post {
	return &murlog.Post{ID: murlog.NewID(), PersonaID: personaID, Kind: murlog.KindNote, Source: "hi",
		Content: "<p>hi</p>", Visibility: vis, PublishedAt: pub, Tags: []string{"a"}, CreatedAt: now, UpdatedAt: now}
}

func seedPersona(t *testing.T, s store.Store, now time.Time) *murlog.Persona {
	p := NewPersona("alice", true, now)
	update(t, s, func(tx store.Tx) error { return tx.Personas().Create(p) })
	return p
}

func testPostsCRUD(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	per := seedPersona(t, s, c.t)
	pub := c.t.Add(-time.Hour)
	p := NewPost(per.ID, &pub, murlog.VisibilityPublic, c.t)
	p.Kind, p.Title, p.Summary, p.Sensitive, p.Language = murlog.KindArticle, "T", "cw", true, "ja"
	update(t, s, func(tx store.Tx) error { return tx.Posts().Create(p) })
	view(t, s, func(tx store.Tx) error {
		got, err := tx.Posts().Get(p.ID)
		if err != nil {
			return err
		}
		if got.Title != "T" || got.Kind != murlog.KindArticle || !got.Sensitive || got.Language != "ja" ||
			got.PublishedAt == nil || !got.PublishedAt.Equal(pub) || len(got.Tags) != 1 || !got.CreatedAt.Equal(c.t) {
			t.Errorf("Get = %+v; want the stored fields back", got)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		p.PublishedAt, p.Content, p.Tags = nil, "<p>x</p>", nil
		return tx.Posts().Update(p)
	})
	view(t, s, func(tx store.Tx) error {
		got, _ := tx.Posts().Get(p.ID)
		if got.PublishedAt != nil || got.Content != "<p>x</p>" || len(got.Tags) != 0 {
			t.Errorf("after Update = %+v; want draft with new content", got)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error { return tx.Posts().Delete(p.ID) })
	err := s.View(ctx, func(tx store.Tx) error { _, err := tx.Posts().Get(p.ID); return err })
	if code(err) != murlog.ENotFound {
		t.Errorf("Get after Delete err = %v; want not_found", err)
	}
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.Posts().Delete(p.ID) }); code(err) != murlog.ENotFound {
		t.Errorf("Delete twice err = %v; want not_found", err)
	}
	bad := NewPost(murlog.NewID(), nil, murlog.VisibilityPublic, c.t)
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.Posts().Create(bad) }); err == nil {
		t.Error("Create with an unknown persona succeeded; want a foreign key failure")
	}
}

// testPublicationPredicate checks that the store's public listing agrees
// with murlog.Post.PublicAt for every combination of publication state and
// visibility: the predicate is written twice (Go and SQL) and must mean one
// thing.
func testPublicationPredicate(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	per := seedPersona(t, s, c.t)
	past, exact, future := c.t.Add(-48*time.Hour), c.t, c.t.Add(time.Minute)
	var all []*murlog.Post
	for _, pub := range []*time.Time{nil, &past, &exact, &future} {
		for _, vis := range []murlog.Visibility{murlog.VisibilityPublic, murlog.VisibilityUnlisted, murlog.VisibilityFollowers, murlog.VisibilityDirect} {
			p := NewPost(per.ID, pub, vis, c.t)
			all = append(all, p)
			update(t, s, func(tx store.Tx) error { return tx.Posts().Create(p) })
		}
	}
	// A page is in no list; another persona's post counts for it alone.
	page := NewPost(per.ID, &past, murlog.VisibilityPublic, c.t)
	page.Page = true
	other := NewPersona("other", false, c.t)
	otherPost := NewPost(other.ID, &past, murlog.VisibilityPublic, c.t)
	update(t, s, func(tx store.Tx) error {
		if err := tx.Posts().Create(page); err != nil {
			return err
		}
		if err := tx.Personas().Create(other); err != nil {
			return err
		}
		return tx.Posts().Create(otherPost)
	})
	check := func(now time.Time) {
		want := map[string]bool{}
		for _, p := range all {
			if p.PublicAt(now) {
				want[p.ID] = true
			}
		}
		var counts map[string]int
		view(t, s, func(tx store.Tx) error {
			var err error
			counts, err = tx.Posts().CountPublic(now)
			return err
		})
		wantCounts := map[string]int{}
		if len(want) > 0 {
			wantCounts[per.ID] = len(want)
		}
		if otherPost.PublicAt(now) {
			wantCounts[other.ID] = 1
		}
		if !maps.Equal(counts, wantCounts) {
			t.Errorf("at %v: CountPublic = %v; want %v (what the public listing lists, by persona)", now, counts, wantCounts)
		}
		var got []*murlog.Post
		view(t, s, func(tx store.Tx) error {
			var err error
			got, err = tx.Posts().List(store.PostQuery{PersonaID: per.ID, Audience: murlog.AudiencePublic, Now: now, Limit: 100})
			return err
		})
		if len(got) != len(want) {
			t.Errorf("at %v: public listing has %d posts; PublicAt admits %d", now, len(got), len(want))
		}
		for _, p := range got {
			if !want[p.ID] {
				t.Errorf("at %v: public listing includes %s (published_at %v, %s), which PublicAt refuses", now, p.ID, p.PublishedAt, p.Visibility)
			}
		}
		var owner []*murlog.Post
		view(t, s, func(tx store.Tx) error {
			var err error
			owner, err = tx.Posts().List(store.PostQuery{Audience: murlog.AudienceOwner, Now: now, Limit: 100})
			return err
		})
		if len(owner) != len(all)+2 { // and the page and the other persona's post
			t.Errorf("owner listing has %d posts; want all %d", len(owner), len(all)+2)
		}
	}
	check(c.t)                      // exact boundary: published_at == now is public
	check(c.t.Add(2 * time.Minute)) // the scheduled post has come out
	check(c.t.Add(-72 * time.Hour)) // before anything was published
}

func testPagination(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	per := seedPersona(t, s, c.t)
	// Published times deliberately out of creation order, with ties.
	var ids []string
	for i := 0; i < 25; i++ {
		pub := c.t.Add(-time.Duration(i%7) * time.Hour)
		p := NewPost(per.ID, &pub, murlog.VisibilityPublic, c.t)
		ids = append(ids, p.ID)
		update(t, s, func(tx store.Tx) error { return tx.Posts().Create(p) })
	}
	draft := NewPost(per.ID, nil, murlog.VisibilityPublic, c.t)
	update(t, s, func(tx store.Tx) error { return tx.Posts().Create(draft) })
	for _, a := range []murlog.Audience{murlog.AudiencePublic, murlog.AudienceOwner} {
		var pages [][]*murlog.Post
		cursor := ""
		for i := 0; i < 10; i++ {
			var got []*murlog.Post
			view(t, s, func(tx store.Tx) error {
				var err error
				got, err = tx.Posts().List(store.PostQuery{PersonaID: per.ID, Audience: a, Now: c.t, Before: cursor, Limit: 10})
				return err
			})
			if len(got) == 0 {
				break
			}
			pages = append(pages, got)
			cursor = got[len(got)-1].ID
		}
		seen := map[string]bool{}
		var prev *murlog.Post
		n := 0
		for _, pg := range pages {
			for _, p := range pg {
				if seen[p.ID] {
					t.Errorf("audience %d: %s appears twice across pages", a, p.ID)
				}
				seen[p.ID] = true
				if prev != nil && !before(a, p, prev) {
					t.Errorf("audience %d: %s does not sort after %s", a, p.ID, prev.ID)
				}
				prev = p
				n++
			}
		}
		want := 25
		if a == murlog.AudienceOwner {
			want = 26
		}
		if n != want {
			t.Errorf("audience %d: paged through %d posts; want %d", a, n, want)
		}
	}
	err := s.View(ctx, func(tx store.Tx) error {
		_, err := tx.Posts().List(store.PostQuery{Audience: murlog.AudiencePublic, Now: c.t, Before: draft.ID, Limit: 10})
		return err
	})
	if code(err) != murlog.EInvalid {
		t.Errorf("public listing with a draft as cursor err = %v; want invalid (a cursor must not reveal drafts)", err)
	}
}

// before reports whether p sorts strictly after prev in the audience's order.
func before(a murlog.Audience, p, prev *murlog.Post) bool {
	if a == murlog.AudienceOwner {
		return p.ID < prev.ID
	}
	if !p.PublishedAt.Equal(*prev.PublishedAt) {
		return p.PublishedAt.Before(*prev.PublishedAt)
	}
	return p.ID < prev.ID
}

func testSessions(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	mk := func(h string, exp time.Duration) *murlog.Session {
		return &murlog.Session{TokenHash: h, CreatedAt: c.t, LastSeenAt: c.t, ExpiresAt: c.t.Add(exp), UserAgent: "ua"}
	}
	update(t, s, func(tx store.Tx) error {
		for _, x := range []*murlog.Session{mk("a", time.Hour), mk("b", -time.Second), mk("c", time.Hour)} {
			if err := tx.Sessions().Create(x); err != nil {
				return err
			}
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		n, err := tx.Sessions().DeleteExpired(c.t)
		if n != 1 {
			t.Errorf("DeleteExpired = %d; want 1", n)
		}
		if err != nil {
			return err
		}
		return tx.Sessions().Touch("a", c.t.Add(time.Minute), c.t.Add(48*time.Hour))
	})
	view(t, s, func(tx store.Tx) error {
		a, err := tx.Sessions().Get("a")
		if err != nil || !a.ExpiresAt.Equal(c.t.Add(48*time.Hour)) || !a.LastSeenAt.Equal(c.t.Add(time.Minute)) {
			t.Errorf("after Touch: %+v, %v", a, err)
		}
		if _, err := tx.Sessions().Get("b"); code(err) != murlog.ENotFound {
			t.Errorf("expired session err = %v; want not_found", err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		n, err := tx.Sessions().DeleteAllExcept("c")
		if n != 1 {
			t.Errorf("DeleteAllExcept(c) = %d; want 1 (a)", n)
		}
		return err
	})
	view(t, s, func(tx store.Tx) error {
		if _, err := tx.Sessions().Get("a"); code(err) != murlog.ENotFound {
			t.Errorf("DeleteAllExcept(c) kept a")
		}
		if _, err := tx.Sessions().Get("c"); err != nil {
			t.Errorf("DeleteAllExcept(c) removed c: %v", err)
		}
		return nil
	})
}

func testTokens(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	k := &murlog.APIToken{ID: murlog.NewID(), Name: "ci", TokenHash: "h1", Prefix: "mlg_ab", CreatedAt: c.t}
	update(t, s, func(tx store.Tx) error { return tx.Tokens().Create(k) })
	dup := &murlog.APIToken{ID: murlog.NewID(), Name: "x", TokenHash: "h1", Prefix: "p", CreatedAt: c.t}
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.Tokens().Create(dup) }); code(err) != murlog.EConflict {
		t.Errorf("duplicate hash err = %v; want conflict", err)
	}
	update(t, s, func(tx store.Tx) error { return tx.Tokens().Touch(k.ID, c.t.Add(time.Hour)) })
	view(t, s, func(tx store.Tx) error {
		got, err := tx.Tokens().GetByHash("h1")
		if err != nil || got.ID != k.ID || got.LastUsedAt == nil || !got.LastUsedAt.Equal(c.t.Add(time.Hour)) {
			t.Errorf("GetByHash = %+v, %v", got, err)
		}
		l, err := tx.Tokens().List()
		if err != nil || len(l) != 1 {
			t.Errorf("List = %d, %v; want 1", len(l), err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error { return tx.Tokens().Delete(k.ID) })
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.Tokens().Delete(k.ID) }); code(err) != murlog.ENotFound {
		t.Errorf("Delete twice err = %v; want not_found", err)
	}
}

func testLoginAttempts(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	view(t, s, func(tx store.Tx) error {
		a, err := tx.LoginAttempts().Get("1.2.3.4")
		if err != nil || a.Key != "1.2.3.4" || a.Failures != 0 {
			t.Errorf("Get(unknown) = %+v, %v; want zero attempts", a, err)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		return tx.LoginAttempts().Put(&murlog.LoginAttempts{Key: "1.2.3.4", Failures: 3, LastFailure: c.t, LockedUntil: c.t.Add(time.Minute)})
	})
	view(t, s, func(tx store.Tx) error {
		a, _ := tx.LoginAttempts().Get("1.2.3.4")
		if a.Failures != 3 || !a.LockedUntil.Equal(c.t.Add(time.Minute)) {
			t.Errorf("Get = %+v", a)
		}
		return nil
	})
	update(t, s, func(tx store.Tx) error {
		n, err := tx.LoginAttempts().DeleteBefore(c.t.Add(2 * time.Minute))
		if n != 1 {
			t.Errorf("DeleteBefore = %d; want 1", n)
		}
		return err
	})
}

func testRollback(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx store.Tx) error {
		if err := tx.Settings().Set("half", "made"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Update err = %v; want the function's error", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a panic inside Update was swallowed")
			}
		}()
		s.Update(ctx, func(tx store.Tx) error {
			tx.Settings().Set("panic", "made")
			panic(fmt.Sprint("kaboom"))
		})
	}()
	view(t, s, func(tx store.Tx) error {
		m, err := tx.Settings().GetMany("half", "panic")
		if len(m) != 0 {
			t.Errorf("after failed transactions settings = %v; want nothing written", m)
		}
		return err
	})
	// The store still works after a panic (the connection was released).
	update(t, s, func(tx store.Tx) error { return tx.Settings().Set("after", "ok") })
}

func testFixedNow(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	update(t, s, func(tx store.Tx) error {
		a := tx.Now()
		c.t = c.t.Add(time.Hour)
		if !tx.Now().Equal(a) {
			t.Errorf("Now changed inside one transaction: %v then %v", a, tx.Now())
		}
		return nil
	})
}
