package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// publicFixture is a small blog: two personas, listed posts (two sharing a
// published_at, so the id breaks the tie) and one post of every kind a
// reader must not get from a list: a draft, scheduled posts, a
// followers-only, a direct and an unlisted post. Every hidden post carries
// the words and the tag the listed ones are searched and listed by, so a
// leak shows.
type publicFixture struct {
	s          store.Store
	now        time.Time
	alice, bob *murlog.Persona
	listed     []*murlog.Post // alice's listed posts, newest first
	bobPost    *murlog.Post
	unlisted   *murlog.Post
	hidden     map[string]*murlog.Post // never public at now, by name
	schedAt    time.Time               // the earliest scheduled public/unlisted post
}

func newPublicFixture(t *testing.T, open func(t *testing.T) store.Store) *publicFixture {
	t.Helper()
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	f := &publicFixture{s: open(t), now: now, hidden: map[string]*murlog.Post{}}
	f.alice, f.bob = NewPersona("alice", true, now), NewPersona("bob", false, now)
	update(t, f.s, func(tx store.Tx) error {
		if err := tx.Personas().Create(f.alice); err != nil {
			return err
		}
		return tx.Personas().Create(f.bob)
	})
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	post := func(per *murlog.Persona, pub *time.Time, vis murlog.Visibility, title, source string, tags ...string) *murlog.Post {
		p := NewPost(per.ID, pub, vis, now)
		p.Title, p.Source, p.Content, p.Tags = title, source, "<p>"+source+"</p>", tags
		if title != "" {
			p.Kind = murlog.KindArticle
		}
		update(t, f.s, func(tx store.Tx) error { return tx.Posts().Create(p) })
		return p
	}
	pub := murlog.VisibilityPublic
	tie := at(-3 * time.Hour)
	// Created oldest first; L2 and L3 share published_at.
	l0 := post(f.alice, at(-6*time.Hour), pub, "", "今日は東京で美味しいラーメンを食べた", "Go", "food")
	l1 := post(f.alice, at(-5*time.Hour), pub, "Hello Murlog", "Mixed CASE words here")
	l2 := post(f.alice, tie, pub, "", `syntax: "quoted" NEAR(a b) * AND OR NOT (paren) col:umn`, "go")
	l3 := post(f.alice, tie, pub, "", "go is short; ab cd", "food")
	f.unlisted = post(f.alice, at(-150*time.Minute), murlog.VisibilityUnlisted, "", "unlisted ラーメン Hello ab", "go")
	l4 := post(f.alice, at(-2*time.Hour), pub, "Trip Notes", "ramen again ラーメン and 東京", "GO")
	l5 := post(f.alice, at(-time.Hour), pub, "", "plain last post")
	f.listed = []*murlog.Post{l5, l4, l3, l2, l1, l0}
	f.bobPost = post(f.bob, at(-90*time.Minute), pub, "", "bob says Hello ラーメン", "go")
	secret := "secret ラーメン Hello 東京 ab go Murlog"
	f.hidden["draft"] = post(f.alice, nil, pub, "", secret, "go")
	f.hidden["scheduled"] = post(f.alice, at(time.Hour), pub, "", secret, "go")
	f.hidden["scheduled unlisted"] = post(f.alice, at(2*time.Hour), murlog.VisibilityUnlisted, "", secret, "go")
	f.hidden["scheduled followers"] = post(f.alice, at(30*time.Minute), murlog.VisibilityFollowers, "", secret, "go")
	f.hidden["followers"] = post(f.alice, at(-4*time.Hour), murlog.VisibilityFollowers, "", secret, "go")
	f.hidden["direct"] = post(f.alice, at(-4*time.Hour), murlog.VisibilityDirect, "", secret, "go")
	f.schedAt = now.Add(time.Hour)
	return f
}

func (f *publicFixture) view(t *testing.T, fn func(store.PublicPosts)) {
	t.Helper()
	view(t, f.s, func(tx store.Tx) error { fn(tx.PublicPosts()); return nil })
}

func postIDs(ps []*murlog.Post) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

// PublicPosts is the contract of store.PublicPosts, above all the
// publication predicate on every method. open returns a new empty store.
func PublicPosts(t *testing.T, open func(t *testing.T) store.Store) {
	f := newPublicFixture(t, open)
	t.Run("Get", func(t *testing.T) { testPublicGet(t, f) })
	t.Run("List", func(t *testing.T) { testPublicList(t, f) })
	t.Run("ListTag", func(t *testing.T) { testPublicTag(t, f) })
	t.Run("Neighbours", func(t *testing.T) { testPublicNeighbours(t, f) })
	t.Run("Position", func(t *testing.T) { testPublicPosition(t, f) })
	t.Run("ByIDs", func(t *testing.T) { testPublicByIDs(t, f) })
	t.Run("Search", func(t *testing.T) { testPublicSearch(t, f) })
	t.Run("Sitemap", func(t *testing.T) { testPublicSitemap(t, f) })
	t.Run("NextPublication", func(t *testing.T) { testNextPublication(t, f) })
	t.Run("Excerpts", func(t *testing.T) { testPublicExcerpts(t, open) })
}

// testPublicExcerpts: a list read for excerpts (and ByIDs) leaves out the
// content of a post that has its excerpt stored, and reads it for an older
// post without one; a list read otherwise has every content.
func testPublicExcerpts(t *testing.T, open func(t *testing.T) store.Store) {
	s, now := open(t), time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	alice := NewPersona("alice", true, now)
	pub := now.Add(-time.Hour)
	withExcerpt, older := NewPost(alice.ID, &pub, murlog.VisibilityPublic, now), NewPost(alice.ID, &pub, murlog.VisibilityPublic, now)
	withExcerpt.Content, withExcerpt.Excerpt = "<p>"+strings.Repeat("long ", 1000)+"</p>", "long long"
	update(t, s, func(tx store.Tx) error {
		if err := tx.Personas().Create(alice); err != nil {
			return err
		}
		if err := tx.Posts().Create(withExcerpt); err != nil {
			return err
		}
		return tx.Posts().Create(older)
	})
	contents := func(ps []*murlog.Post) map[string]string {
		m := map[string]string{}
		for _, p := range ps {
			m[p.ID] = p.Content
		}
		return m
	}
	view(t, s, func(tx store.Tx) error {
		pp := tx.PublicPosts()
		for _, tc := range []struct {
			name     string
			excerpts bool
			tag      string
		}{{"list", false, ""}, {"list of excerpts", true, ""}, {"tag list of excerpts", true, "a"}} {
			got, err := pp.List(store.PublicQuery{PersonaID: alice.ID, Tag: tc.tag, Now: now, Limit: 10, Excerpts: tc.excerpts})
			c := contents(got)
			wantLong := withExcerpt.Content
			if tc.excerpts {
				wantLong = ""
			}
			if err != nil || len(got) != 2 || c[withExcerpt.ID] != wantLong || c[older.ID] != older.Content {
				t.Errorf("%s: %d posts, %v; want the excerpted post's content %.20q, the older one's %q", tc.name, len(got), err, wantLong, older.Content)
			}
		}
		got, err := pp.ByIDs([]string{withExcerpt.ID, older.ID}, now)
		if c := contents(got); err != nil || len(got) != 2 || c[withExcerpt.ID] != "" || c[older.ID] != older.Content ||
			got[0].Excerpt != withExcerpt.Excerpt {
			t.Errorf("ByIDs: %d posts, %v; want them read for excerpts", len(got), err)
		}
		return nil
	})
}

func testPublicGet(t *testing.T, f *publicFixture) {
	f.view(t, func(pp store.PublicPosts) {
		for _, p := range append(slices.Clone(f.listed), f.unlisted, f.bobPost) {
			got, err := pp.Get(p.ID, f.now)
			if err != nil || got.ID != p.ID || got.Content != p.Content || got.Source != "" || !got.PublishedAt.Equal(*p.PublishedAt) {
				t.Errorf("Get(%s) = %+v, %v; want the post, without its source", p.Source, got, err)
			}
		}
		for name, p := range f.hidden {
			if got, err := pp.Get(p.ID, f.now); code(err) != murlog.ENotFound {
				t.Errorf("Get(%s) = %v, %v; want not_found", name, got, err)
			}
		}
		if _, err := pp.Get(murlog.NewID(), f.now); code(err) != murlog.ENotFound {
			t.Errorf("Get(unknown) err = %v; want not_found", err)
		}
		// A scheduled post appears once its time comes, without any write.
		if _, err := pp.Get(f.hidden["scheduled"].ID, f.schedAt); err != nil {
			t.Errorf("Get(scheduled) at its publication time: %v; want the post", err)
		}
	})
}

func testPublicList(t *testing.T, f *publicFixture) {
	want := postIDs(f.listed)
	oldest := slices.Clone(want)
	slices.Reverse(oldest)
	f.view(t, func(pp store.PublicPosts) {
		got, err := pp.List(store.PublicQuery{PersonaID: f.alice.ID, Now: f.now, Limit: 50})
		if err != nil || !slices.Equal(postIDs(got), want) {
			t.Errorf("List newest = %v, %v; want %v (listed only, (published_at, id) descending)", postIDs(got), err, want)
		}
		got, err = pp.List(store.PublicQuery{PersonaID: f.alice.ID, Now: f.now, Oldest: true, Limit: 50})
		if err != nil || !slices.Equal(postIDs(got), oldest) {
			t.Errorf("List oldest = %v, %v; want %v", postIDs(got), err, oldest)
		}
		for _, o := range []bool{false, true} {
			w := want
			if o {
				w = oldest
			}
			if got := walk(t, pp, store.PublicQuery{PersonaID: f.alice.ID, Now: f.now, Oldest: o, Limit: 2}); !slices.Equal(got, w) {
				t.Errorf("pages of 2 (oldest %v) = %v; want %v", o, got, w)
			}
		}
		all, err := pp.List(store.PublicQuery{Now: f.now, Limit: 50})
		if err != nil || len(all) != len(want)+1 || all[1].ID != f.bobPost.ID {
			t.Errorf("List of every persona = %v, %v; want alice's listed posts and bob's second", postIDs(all), err)
		}
		bad := map[string]string{"unknown": murlog.NewID(), "unlisted": f.unlisted.ID}
		for name, p := range f.hidden {
			bad[name] = p.ID
		}
		for name, id := range bad {
			if _, err := pp.List(store.PublicQuery{PersonaID: f.alice.ID, Now: f.now, After: id, Limit: 2}); code(err) != murlog.EInvalid {
				t.Errorf("List after a %s cursor err = %v; want invalid", name, err)
			}
		}
		if _, err := pp.List(store.PublicQuery{Now: f.now}); code(err) != murlog.EInvalid {
			t.Errorf("List with limit 0 err = %v; want invalid", err)
		}
		// Later, the scheduled post heads the list.
		got, err = pp.List(store.PublicQuery{PersonaID: f.alice.ID, Now: f.schedAt, Limit: 1})
		if err != nil || len(got) != 1 || got[0].ID != f.hidden["scheduled"].ID {
			t.Errorf("List at the scheduled time = %v, %v; want the scheduled post first", postIDs(got), err)
		}
	})
}

// testPublicPosition: how deep a cursor stands in a list, bounded, and
// whether it is one of the list's posts — what tells a list page that the
// blog's own links lead to from any other cursor.
func testPublicPosition(t *testing.T, f *publicFixture) {
	l := f.listed // l5 l4 l3 l2 l1 l0
	f.view(t, func(pp store.PublicPosts) {
		for _, tc := range []struct {
			name string
			q    store.PublicQuery
			max  int
			n    int
			in   bool
		}{
			{"the newest", store.PublicQuery{PersonaID: f.alice.ID, After: l[0].ID}, 10, 1, true},
			{"the tie's second", store.PublicQuery{PersonaID: f.alice.ID, After: l[3].ID}, 10, 4, true},
			{"the oldest", store.PublicQuery{PersonaID: f.alice.ID, After: l[5].ID}, 10, 6, true},
			{"beyond the bound", store.PublicQuery{PersonaID: f.alice.ID, After: l[5].ID}, 2, 3, true},
			{"another persona's post", store.PublicQuery{PersonaID: f.alice.ID, After: f.bobPost.ID}, 10, 1, false},
			{"every persona", store.PublicQuery{After: l[5].ID}, 10, 7, true},
			{"in the tag", store.PublicQuery{PersonaID: f.alice.ID, Tag: "GO", After: l[3].ID}, 10, 2, true},
			{"not in the tag", store.PublicQuery{PersonaID: f.alice.ID, Tag: "go", After: l[2].ID}, 10, 1, false},
		} {
			tc.q.Now = f.now
			n, in, err := pp.Position(tc.q, tc.max)
			if err != nil || n != tc.n || in != tc.in {
				t.Errorf("Position(%s) = %d, %v, %v; want %d, %v", tc.name, n, in, err, tc.n, tc.in)
			}
		}
		for name, id := range map[string]string{"unknown": murlog.NewID(), "unlisted": f.unlisted.ID, "draft": f.hidden["draft"].ID,
			"scheduled": f.hidden["scheduled"].ID, "none": ""} {
			if _, _, err := pp.Position(store.PublicQuery{PersonaID: f.alice.ID, Now: f.now, After: id}, 10); code(err) != murlog.EInvalid {
				t.Errorf("Position after a %s cursor err = %v; want invalid", name, err)
			}
		}
		if _, _, err := pp.Position(store.PublicQuery{PersonaID: f.alice.ID, Now: f.now, After: l[0].ID, Oldest: true}, 10); code(err) != murlog.EInvalid {
			t.Errorf("Position oldest first err = %v; want invalid", err)
		}
	})
}

// walk follows After cursors to the end and returns every id seen.
func walk(t *testing.T, pp store.PublicPosts, q store.PublicQuery) []string {
	t.Helper()
	var ids []string
	for range 100 {
		ps, err := pp.List(q)
		if err != nil {
			t.Fatalf("List(%+v): %v", q, err)
		}
		if len(ps) > q.Limit {
			t.Fatalf("List returned %d posts; limit %d", len(ps), q.Limit)
		}
		ids = append(ids, postIDs(ps)...)
		if len(ps) < q.Limit {
			return ids
		}
		q.After = ps[len(ps)-1].ID
	}
	t.Fatal("pagination did not end")
	return nil
}

func testPublicTag(t *testing.T, f *publicFixture) {
	l := f.listed // l5 l4 l3 l2 l1 l0
	f.view(t, func(pp store.PublicPosts) {
		for _, tag := range []string{"go", "GO", "gO"} {
			got, err := pp.List(store.PublicQuery{PersonaID: f.alice.ID, Tag: tag, Now: f.now, Limit: 50})
			if w := postIDs([]*murlog.Post{l[1], l[3], l[5]}); err != nil || !slices.Equal(postIDs(got), w) {
				t.Errorf("tag %q = %v, %v; want %v (listed only, any case)", tag, postIDs(got), err, w)
			}
		}
		got, err := pp.List(store.PublicQuery{Tag: "go", Now: f.now, Limit: 50})
		if w := postIDs([]*murlog.Post{f.bobPost, l[1], l[3], l[5]}); err != nil || !slices.Equal(postIDs(got), w) {
			t.Errorf("tag go of every persona = %v, %v; want %v", postIDs(got), err, w)
		}
		if got := walk(t, pp, store.PublicQuery{Tag: "Go", Now: f.now, Oldest: true, Limit: 1}); !slices.Equal(got,
			postIDs([]*murlog.Post{l[5], l[3], l[1], f.bobPost})) {
			t.Errorf("tag go oldest first, pages of 1 = %v", got)
		}
		got, err = pp.List(store.PublicQuery{Tag: "food", Now: f.now, After: l[2].ID, Limit: 50})
		if err != nil || !slices.Equal(postIDs(got), []string{l[5].ID}) {
			t.Errorf("tag food after its first post = %v, %v; want the older one", postIDs(got), err)
		}
		if got, err := pp.List(store.PublicQuery{Tag: "none", Now: f.now, Limit: 5}); err != nil || len(got) != 0 {
			t.Errorf("unknown tag = %v, %v; want nothing", postIDs(got), err)
		}
	})
}

func testPublicNeighbours(t *testing.T, f *publicFixture) {
	l := f.listed // l5 l4 l3 l2 l1 l0, newest first
	id := func(p *murlog.Post) string {
		if p == nil {
			return "nil"
		}
		return p.ID
	}
	f.view(t, func(pp store.PublicPosts) {
		for _, tc := range []struct {
			name         string
			p            *murlog.Post
			older, newer *murlog.Post
		}{
			{"newest", l[0], l[1], nil},
			{"oldest", l[5], nil, l[4]},
			{"tie, larger id", l[2], l[3], l[1]},
			{"tie, smaller id", l[3], l[4], l[2]},
			{"unlisted between", f.unlisted, l[2], l[1]},
			{"after the followers-only and direct posts", l[4], l[5], l[3]},
		} {
			older, newer, err := pp.Neighbours(tc.p, f.now)
			if err != nil || id(older) != id(tc.older) || id(newer) != id(tc.newer) {
				t.Errorf("Neighbours(%s) = %s, %s, %v; want %s, %s", tc.name, id(older), id(newer), err, id(tc.older), id(tc.newer))
			}
		}
		if _, newer, err := pp.Neighbours(f.bobPost, f.now); err != nil || newer != nil {
			t.Errorf("bob's newer neighbour = %s, %v; want none (alice's posts are another persona's)", id(newer), err)
		}
		// Once the scheduled post is out, it is the newest post's newer neighbour.
		if _, newer, err := pp.Neighbours(l[0], f.schedAt); err != nil || id(newer) != f.hidden["scheduled"].ID {
			t.Errorf("Neighbours(newest) later = %s, %v; want the scheduled post", id(newer), err)
		}
	})
}

func testPublicByIDs(t *testing.T, f *publicFixture) {
	l := f.listed
	f.view(t, func(pp store.PublicPosts) {
		ids := []string{l[3].ID, f.hidden["draft"].ID, l[0].ID, murlog.NewID(), f.unlisted.ID, l[3].ID,
			f.hidden["scheduled"].ID, f.bobPost.ID, f.hidden["followers"].ID, f.hidden["direct"].ID, l[5].ID}
		got, err := pp.ByIDs(ids, f.now)
		if w := []string{l[3].ID, l[0].ID, f.bobPost.ID, l[5].ID}; err != nil || !slices.Equal(postIDs(got), w) {
			t.Errorf("ByIDs = %v, %v; want %v (input order, listed only, once each)", postIDs(got), err, w)
		}
		if got, err := pp.ByIDs(nil, f.now); err != nil || len(got) != 0 {
			t.Errorf("ByIDs(nil) = %v, %v; want nothing", got, err)
		}
		max := make([]string, store.MaxByIDs)
		for i := range max {
			max[i] = l[i%len(l)].ID
		}
		if got, err := pp.ByIDs(max, f.now); err != nil || len(got) != len(l) {
			t.Errorf("ByIDs(%d ids) = %d posts, %v; want %d", len(max), len(got), err, len(l))
		}
		if _, err := pp.ByIDs(append(max, l[0].ID), f.now); code(err) != murlog.EInvalid {
			t.Errorf("ByIDs(%d ids) err = %v; want invalid", store.MaxByIDs+1, err)
		}
	})
}

func testPublicSearch(t *testing.T, f *publicFixture) {
	l := f.listed // l5 l4 l3 l2 l1 l0
	ids := func(ps ...*murlog.Post) []string { return postIDs(ps) }
	f.view(t, func(pp store.PublicPosts) {
		for _, tc := range []struct {
			persona string
			terms   []string
			want    []string
		}{
			{f.alice.ID, []string{"ラーメン"}, ids(l[1], l[5])},
			{"", []string{"ラーメン"}, ids(f.bobPost, l[1], l[5])},
			{f.alice.ID, []string{"東京"}, ids(l[1], l[5])},
			{f.alice.ID, []string{"食べた"}, ids(l[5])},
			{f.alice.ID, []string{"京"}, ids(l[1], l[5])},
			{f.alice.ID, []string{"東京", "ラーメン", "美味"}, ids(l[5])},
			{f.alice.ID, []string{"hello murlog"}, ids(l[4])},
			{f.alice.ID, []string{"mixed", "CaSe"}, ids(l[4])},
			{f.alice.ID, []string{"trip"}, ids(l[1])},
			{f.alice.ID, []string{"GO"}, ids(l[2])},
			{f.alice.ID, []string{"ab", "Cd"}, ids(l[2])},
			{f.alice.ID, []string{"ab", "zz"}, nil},
			{f.alice.ID, []string{"ラーメン", "ab"}, nil},
			{f.alice.ID, []string{`"quoted"`}, ids(l[3])},
			{f.alice.ID, []string{`"`}, ids(l[3])},
			{f.alice.ID, []string{"NEAR(a b)"}, ids(l[3])},
			{f.alice.ID, []string{"*"}, ids(l[3])},
			{f.alice.ID, []string{"AND OR NOT"}, ids(l[3])},
			{f.alice.ID, []string{"(paren)", "col:umn"}, ids(l[3])},
			{f.alice.ID, []string{"AND"}, ids(l[1], l[3])},      // "and" of l[1] too
			{f.alice.ID, []string{"OR"}, ids(l[2], l[3], l[4])}, // "short" and "words" too
			{f.alice.ID, []string{"secret"}, nil},
			{f.alice.ID, []string{strings.Repeat("ラ", 10000)}, nil},
			{f.alice.ID, []string{strings.Repeat("a", 10000)}, nil},
		} {
			got, err := pp.Search(store.SearchQuery{PersonaID: tc.persona, Terms: tc.terms, Now: f.now, Limit: 50})
			if err != nil || !slices.Equal(postIDs(got), tc.want) {
				t.Errorf("Search(%.40q) = %v, %v; want %v", tc.terms, postIDs(got), err, tc.want)
			}
		}
		got, err := pp.Search(store.SearchQuery{PersonaID: f.alice.ID, Terms: []string{"ラーメン"}, Now: f.now, After: l[1].ID, Limit: 50})
		if err != nil || !slices.Equal(postIDs(got), ids(l[5])) {
			t.Errorf("Search after the first hit = %v, %v; want the second", postIDs(got), err)
		}
		got, err = pp.Search(store.SearchQuery{PersonaID: f.alice.ID, Terms: []string{"京"}, Now: f.now, Limit: 1})
		if err != nil || !slices.Equal(postIDs(got), ids(l[1])) {
			t.Errorf("Search with limit 1 = %v, %v; want the newest hit", postIDs(got), err)
		}
		for name, q := range map[string]store.SearchQuery{
			"no terms":        {Now: f.now, Limit: 5},
			"empty term":      {Terms: []string{""}, Now: f.now, Limit: 5},
			"limit 0":         {Terms: []string{"ラーメン"}, Now: f.now},
			"unlisted cursor": {Terms: []string{"ラーメン"}, Now: f.now, After: f.unlisted.ID, Limit: 5},
			"draft cursor":    {Terms: []string{"ラーメン"}, Now: f.now, After: f.hidden["draft"].ID, Limit: 5},
		} {
			if _, err := pp.Search(q); code(err) != murlog.EInvalid {
				t.Errorf("Search with %s err = %v; want invalid", name, err)
			}
		}
	})
}

func testPublicSitemap(t *testing.T, f *publicFixture) {
	f.view(t, func(pp store.PublicPosts) {
		es, err := pp.Sitemap(f.now, 100)
		if err != nil || len(es) != len(f.listed)+1 {
			t.Fatalf("Sitemap = %d entries, %v; want %d (listed only)", len(es), err, len(f.listed)+1)
		}
		want := append([]*murlog.Post{f.listed[0], f.bobPost}, f.listed[1:]...)
		for i, e := range es {
			p := want[i]
			user := "alice"
			if p == f.bobPost {
				user = "bob"
			}
			if e.ID != p.ID || e.Username != user || !e.PublishedAt.Equal(*p.PublishedAt) || !e.UpdatedAt.Equal(p.UpdatedAt) {
				t.Errorf("Sitemap[%d] = %+v; want %s by %s", i, e, p.ID, user)
			}
		}
		if es, err := pp.Sitemap(f.now, 2); err != nil || len(es) != 2 || es[0].ID != f.listed[0].ID {
			t.Errorf("Sitemap limit 2 = %+v, %v; want the two newest", es, err)
		}
		if _, err := pp.Sitemap(f.now, 0); code(err) != murlog.EInvalid {
			t.Errorf("Sitemap limit 0 err = %v; want invalid", err)
		}
	})
}

func testNextPublication(t *testing.T, f *publicFixture) {
	f.view(t, func(pp store.PublicPosts) {
		next, err := pp.NextPublication(f.now)
		if err != nil || next == nil || !next.Equal(f.schedAt) {
			t.Errorf("NextPublication = %v, %v; want %v (the scheduled public post, not the followers-only one)", next, err, f.schedAt)
		}
		next, err = pp.NextPublication(f.schedAt)
		if want := f.now.Add(2 * time.Hour); err != nil || next == nil || !next.Equal(want) {
			t.Errorf("NextPublication at the first = %v, %v; want the scheduled unlisted post at %v", next, err, want)
		}
		if next, err := pp.NextPublication(f.now.Add(3 * time.Hour)); err != nil || next != nil {
			t.Errorf("NextPublication with nothing scheduled = %v, %v; want nil", next, err)
		}
	})
}
