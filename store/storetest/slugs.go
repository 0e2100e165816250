package storetest

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// article returns a published public article of persona with slug,
// ready to insert.
func article(personaID, slug string, pub time.Time) *murlog.Post {
	p := NewPost(personaID, &pub, murlog.VisibilityPublic, pub)
	p.Kind, p.Title, p.Slug = murlog.KindArticle, "Title of "+slug, slug
	return p
}

// testSlugs: slugs are unique per persona and only there; SlugOwner and
// BySlug find current and old slugs; TakenSlugs reads exactly base and
// base-…; KeepOldSlug moves an old slug between posts and keeps at most
// keep per post; a deleted post takes its old slugs with it.
func testSlugs(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	alice, bob := NewPersona("alice", true, c.t), NewPersona("bob", false, c.t)
	hello, helloBob := article(alice.ID, "hello", c.t.Add(-time.Hour)), article(bob.ID, "hello", c.t.Add(-time.Hour))
	update(t, s, func(tx store.Tx) error {
		for _, p := range []*murlog.Persona{alice, bob} {
			if err := tx.Personas().Create(p); err != nil {
				return err
			}
		}
		for _, p := range []*murlog.Post{hello, helloBob} {
			if err := tx.Posts().Create(p); err != nil {
				return err
			}
		}
		// Posts without a slug are many; notes never have one.
		for range 2 {
			if err := tx.Posts().Create(NewPost(alice.ID, nil, murlog.VisibilityPublic, c.t)); err != nil {
				return err
			}
		}
		return nil
	})
	err := s.Update(ctx, func(tx store.Tx) error { return tx.Posts().Create(article(alice.ID, "hello", c.t)) })
	if code(err) != murlog.EConflict {
		t.Errorf("Create of a second %q of alice: %v; want conflict", "hello", err)
	}
	other := article(alice.ID, "other", c.t.Add(-time.Minute))
	update(t, s, func(tx store.Tx) error { return tx.Posts().Create(other) })
	other.Slug = "hello"
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.Posts().Update(other) }); code(err) != murlog.EConflict {
		t.Errorf("Update to a slug alice already uses: %v; want conflict", err)
	}
	other.Slug = "other"

	// hello is renamed hello-world: "hello" is now its old slug.
	update(t, s, func(tx store.Tx) error {
		hello.Slug = "hello-world"
		if err := tx.Posts().Update(hello); err != nil {
			return err
		}
		return tx.Posts().KeepOldSlug(alice.ID, "hello", hello.ID, tx.Now(), 10)
	})
	view(t, s, func(tx store.Tx) error {
		for _, tc := range []struct {
			persona, slug, id string
			old               bool
		}{
			{alice.ID, "hello-world", hello.ID, false},
			{alice.ID, "hello", hello.ID, true},
			{bob.ID, "hello", helloBob.ID, false},
			{alice.ID, "other", other.ID, false},
		} {
			id, old, err := tx.Posts().SlugOwner(tc.persona, tc.slug)
			if err != nil || id != tc.id || old != tc.old {
				t.Errorf("SlugOwner(%s) = %q %v %v; want %q old %v", tc.slug, id, old, err, tc.id, tc.old)
			}
			p, err := tx.PublicPosts().BySlug(tc.persona, tc.slug, c.t)
			if err != nil || p.ID != tc.id || p.Source != "" {
				t.Errorf("BySlug(%s) = %+v, %v; want post %s without its source", tc.slug, p, err, tc.id)
			}
		}
		for _, slug := range []string{"", "nope", "hello-wor"} {
			if _, _, err := tx.Posts().SlugOwner(alice.ID, slug); code(err) != murlog.ENotFound {
				t.Errorf("SlugOwner(%q) err = %v; want not_found", slug, err)
			}
			if _, err := tx.PublicPosts().BySlug(alice.ID, slug, c.t); code(err) != murlog.ENotFound {
				t.Errorf("BySlug(%q) err = %v; want not_found", slug, err)
			}
		}
		if _, _, err := tx.Posts().SlugOwner(bob.ID, "hello-world"); code(err) != murlog.ENotFound {
			t.Errorf("SlugOwner of another persona's slug: %v; want not_found", err)
		}
		return nil
	})

	// TakenSlugs: base and base-…, current and old, this persona only.
	update(t, s, func(tx store.Tx) error {
		for _, slug := range []string{"hello-2", "hellox", "hello2", "hell", "hello-"} {
			if err := tx.Posts().Create(article(alice.ID, slug, c.t)); err != nil {
				return err
			}
		}
		return tx.Posts().Create(article(bob.ID, "hello-3", c.t))
	})
	view(t, s, func(tx store.Tx) error {
		got, err := tx.Posts().TakenSlugs(alice.ID, "hello")
		want := []string{"hello", "hello-", "hello-2", "hello-world"}
		if keys := slices.Sorted(maps.Keys(got)); err != nil || !slices.Equal(keys, want) {
			t.Errorf("TakenSlugs(hello) = %v, %v; want %v", keys, err, want)
		}
		return nil
	})

	// An old slug taken by another post moves to it; DropOldSlug forgets
	// it; keep bounds a post's old slugs, the oldest going first.
	update(t, s, func(tx store.Tx) error { return tx.Posts().KeepOldSlug(alice.ID, "hello", other.ID, tx.Now(), 10) })
	wantOwner := func(slug, id string, old bool) {
		t.Helper()
		view(t, s, func(tx store.Tx) error {
			got, gotOld, err := tx.Posts().SlugOwner(alice.ID, slug)
			if id == "" {
				if code(err) != murlog.ENotFound {
					t.Errorf("SlugOwner(%s) = %q, %v; want not_found", slug, got, err)
				}
				return nil
			}
			if err != nil || got != id || gotOld != old {
				t.Errorf("SlugOwner(%s) = %q %v %v; want %q old %v", slug, got, gotOld, err, id, old)
			}
			return nil
		})
	}
	wantOwner("hello", other.ID, true)
	update(t, s, func(tx store.Tx) error { return tx.Posts().DropOldSlug(alice.ID, "hello") })
	wantOwner("hello", "", false)
	update(t, s, func(tx store.Tx) error { return tx.Posts().DropOldSlug(alice.ID, "never") })
	for _, slug := range []string{"h1", "h2", "h3", "h4"} {
		c.t = c.t.Add(time.Second)
		update(t, s, func(tx store.Tx) error { return tx.Posts().KeepOldSlug(alice.ID, slug, hello.ID, tx.Now(), 3) })
	}
	wantOwner("h1", "", false)
	for _, slug := range []string{"h2", "h3", "h4"} {
		wantOwner(slug, hello.ID, true)
	}

	// Deleting the post deletes its old slugs.
	update(t, s, func(tx store.Tx) error { return tx.Posts().Delete(hello.ID) })
	wantOwner("h4", "", false)
	wantOwner("hello-world", "", false)
}

// testPages: a page is reachable by id and slug and in the sitemap and
// the menu, and in no list, tag, neighbour, search or by-ids answer, nor
// in the public Posts().List (the outbox and the counts).
func testPages(t *testing.T, open Opener) {
	c := newClock()
	s := open(t, c.now)
	alice := NewPersona("alice", true, c.t)
	mk := func(slug string, d time.Duration, page bool, vis murlog.Visibility) *murlog.Post {
		p := article(alice.ID, slug, c.t.Add(d))
		p.Page, p.Visibility, p.Tags, p.Source = page, vis, []string{"t"}, "words to find"
		return p
	}
	before := mk("before", -3*time.Hour, false, murlog.VisibilityPublic)
	about := mk("about", -2*time.Hour, true, murlog.VisibilityPublic)
	contact := mk("contact", -90*time.Minute, true, murlog.VisibilityPublic)
	after := mk("after", -time.Hour, false, murlog.VisibilityPublic)
	hiddenPage := mk("unlisted-page", -time.Hour, true, murlog.VisibilityUnlisted)
	draftPage := mk("draft-page", 0, true, murlog.VisibilityPublic)
	draftPage.PublishedAt = nil
	laterPage := mk("later-page", time.Hour, true, murlog.VisibilityPublic)
	update(t, s, func(tx store.Tx) error {
		if err := tx.Personas().Create(alice); err != nil {
			return err
		}
		for _, p := range []*murlog.Post{before, about, contact, after, hiddenPage, draftPage, laterPage} {
			if err := tx.Posts().Create(p); err != nil {
				return err
			}
		}
		return nil
	})
	view(t, s, func(tx store.Tx) error {
		pp := tx.PublicPosts()
		menu, err := pp.Pages(alice.ID, c.t, 10)
		want := []store.MenuEntry{{about.ID, about.Title, "about"}, {contact.ID, contact.Title, "contact"}}
		if err != nil || !slices.Equal(menu, want) {
			t.Errorf("Pages = %+v, %v; want about then contact (published public pages, oldest first)", menu, err)
		}
		if menu, _ := pp.Pages(alice.ID, c.t, 1); len(menu) != 1 {
			t.Errorf("Pages limit 1 = %+v; want one", menu)
		}
		if menu, _ := pp.Pages(alice.ID, c.t.Add(time.Hour), 10); len(menu) != 3 {
			t.Errorf("Pages at the scheduled page's time = %+v; want it too", menu)
		}
		for _, p := range []*murlog.Post{about, hiddenPage} {
			if got, err := pp.Get(p.ID, c.t); err != nil || !got.Page || got.Slug != p.Slug {
				t.Errorf("Get(page %s) = %+v, %v; want it, marked a page", p.Slug, got, err)
			}
			if got, err := pp.BySlug(alice.ID, p.Slug, c.t); err != nil || got.ID != p.ID {
				t.Errorf("BySlug(page %s) = %+v, %v; want it", p.Slug, got, err)
			}
		}
		listed := []string{after.ID, before.ID}
		for name, q := range map[string]store.PublicQuery{
			"persona": {PersonaID: alice.ID, Now: c.t, Limit: 10},
			"all":     {Now: c.t, Limit: 10},
			"tag":     {Tag: "t", Now: c.t, Limit: 10},
		} {
			if got, err := pp.List(q); err != nil || !slices.Equal(postIDs(got), listed) {
				t.Errorf("List(%s) = %v, %v; want the two articles, no page", name, postIDs(got), err)
			}
		}
		if got, err := pp.Search(store.SearchQuery{Terms: []string{"words"}, Now: c.t, Limit: 10}); err != nil || !slices.Equal(postIDs(got), listed) {
			t.Errorf("Search = %v, %v; want the two articles, no page", postIDs(got), err)
		}
		if got, err := pp.ByIDs([]string{about.ID, after.ID, contact.ID}, c.t); err != nil || !slices.Equal(postIDs(got), []string{after.ID}) {
			t.Errorf("ByIDs = %v, %v; want the article only", postIDs(got), err)
		}
		older, newer, err := pp.Neighbours(after, c.t)
		if err != nil || older == nil || older.ID != before.ID || newer != nil {
			t.Errorf("Neighbours(after) = %v, %v, %v; want before (the pages between skipped), no newer", older, newer, err)
		}
		older, newer, err = pp.Neighbours(before, c.t)
		if err != nil || older != nil || newer == nil || newer.ID != after.ID {
			t.Errorf("Neighbours(before) = %v, %v, %v; want after as newer", older, newer, err)
		}
		es, err := pp.Sitemap(c.t, 10)
		var got []string
		for _, e := range es {
			got = append(got, e.Slug)
		}
		if err != nil || !slices.Equal(got, []string{"after", "contact", "about", "before"}) {
			t.Errorf("Sitemap slugs = %v, %v; want the articles and the public pages, newest first", got, err)
		}
		ps, err := tx.Posts().List(store.PostQuery{PersonaID: alice.ID, Audience: murlog.AudiencePublic, Now: c.t, Limit: 10})
		if err != nil || !slices.Equal(postIDs(ps), listed) {
			t.Errorf("Posts().List public = %v, %v; want the articles, no page", postIDs(ps), err)
		}
		ps, err = tx.Posts().List(store.PostQuery{PersonaID: alice.ID, Audience: murlog.AudienceOwner, Now: c.t, Limit: 10})
		if err != nil || len(ps) != 7 {
			t.Errorf("Posts().List owner = %d posts, %v; want all 7, pages included", len(ps), err)
		}
		return nil
	})
}
