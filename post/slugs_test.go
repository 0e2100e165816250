package post_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

func article(title string) post.CreateInput {
	return post.CreateInput{Kind: murlog.KindArticle, Title: title, Content: "text"}
}

func (e *env) get(id string) *murlog.Post {
	e.t.Helper()
	p, err := e.posts.Get(ctx, id, murlog.AudienceOwner)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// owner is the post a slug leads to: its own (old false) or an old one.
func (e *env) owner(slug string) (id string, old bool) {
	e.t.Helper()
	err := e.db.View(ctx, func(tx store.Tx) error {
		var err error
		id, old, err = tx.Posts().SlugOwner(e.persona, slug)
		if murlog.ErrorCode(err) == murlog.ENotFound {
			return nil
		}
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return id, old
}

func str(s string) *string { return &s }

// TestSlugsAreMadeOnPublishAndUnique: a published article gets the slug
// of its title, a second one of the same title base-2; a draft has none
// until it is published; the slug stays when the title changes; a title
// with nothing to make one of leaves the id address.
func TestSlugsAreMadeOnPublishAndUnique(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i, want := range []string{"hello", "hello-2", "hello-3"} {
		if p := e.create(article("Hello!")); p.Slug != want {
			t.Errorf("article %d titled Hello!: slug %q; want %q", i+1, p.Slug, want)
		}
	}
	if p := e.create(article("はじめての ActivityPub")); p.Slug != "はじめての-activitypub" {
		t.Errorf("Japanese title: slug %q", p.Slug)
	}
	if p := e.create(article("🎉🎉")); p.Slug != "" {
		t.Errorf("emoji title: slug %q; want none (the id address)", p.Slug)
	}
	if p := e.create(article("Search")); p.Slug != "search-2" {
		t.Errorf("a title giving a reserved word: slug %q; want search-2", p.Slug)
	}
	if p := e.create(post.CreateInput{Content: "a note"}); p.Slug != "" {
		t.Errorf("note: slug %q; want none", p.Slug)
	}

	draft := article("Draft first")
	draft.PublishedAt = post.Schedule{Mode: post.PublishDraft}
	d := e.create(draft)
	if d.Slug != "" {
		t.Errorf("draft: slug %q; want none before publication", d.Slug)
	}
	e.update(post.UpdateInput{ID: d.ID, Title: str("Draft renamed")})
	if got := e.get(d.ID).Slug; got != "" {
		t.Errorf("edited draft: slug %q; want none", got)
	}
	e.update(post.UpdateInput{ID: d.ID, PublishedAt: &post.Schedule{Mode: post.PublishNow}})
	if got := e.get(d.ID).Slug; got != "draft-renamed" {
		t.Errorf("published draft: slug %q; want draft-renamed, from the title it has then", got)
	}
	e.update(post.UpdateInput{ID: d.ID, Title: str("A new title")})
	if got := e.get(d.ID).Slug; got != "draft-renamed" {
		t.Errorf("retitled after publication: slug %q; want it kept (the address stays)", got)
	}
	sched := article("Later")
	sched.PublishedAt = at(e.clock.Now().Add(time.Hour))
	if p := e.create(sched); p.Slug != "later" {
		t.Errorf("scheduled: slug %q; want later (its address is known before it is out)", p.Slug)
	}
}

// TestSlugRenameKeepsRedirect: a renamed slug stays as an old slug of the
// post (the blog answers it with a 301), renaming back takes it out of the
// old ones, and a slug another post had before may be taken, moving it.
func TestSlugRenameKeepsRedirect(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(article("Hello"))
	e.update(post.UpdateInput{ID: a.ID, Slug: str("hello-world")})
	if got := e.get(a.ID).Slug; got != "hello-world" {
		t.Fatalf("slug after rename %q; want hello-world", got)
	}
	if id, old := e.owner("hello"); id != a.ID || !old {
		t.Errorf("the old slug hello leads to %q (old %v); want the article, as an old slug", id, old)
	}
	// A new article titled Hello does not take the old slug's redirect.
	if b := e.create(article("Hello")); b.Slug != "hello-2" {
		t.Errorf("new Hello while hello is an old slug: %q; want hello-2", b.Slug)
	}
	e.update(post.UpdateInput{ID: a.ID, Slug: str("hello")})
	if id, old := e.owner("hello"); id != a.ID || old {
		t.Errorf("renamed back: hello is %q (old %v); want the article's own", id, old)
	}
	if id, old := e.owner("hello-world"); id != a.ID || !old {
		t.Errorf("renamed back: hello-world leads to %q (old %v); want an old slug of the article", id, old)
	}
	// Another post may take an old slug: it is its own from then on.
	c := e.create(article("Other"))
	e.update(post.UpdateInput{ID: c.ID, Slug: str("hello-world")})
	if id, old := e.owner("hello-world"); id != c.ID || old {
		t.Errorf("hello-world taken: %q (old %v); want the other post's own", id, old)
	}
	// "" asks for a new slug from the title.
	e.update(post.UpdateInput{ID: c.ID, Slug: str("")})
	if got := e.get(c.ID).Slug; got != "other" {
		t.Errorf("slug \"\" on update: %q; want other, from the title", got)
	}

	for _, tc := range []struct {
		slug string
		code murlog.Code
	}{
		{"hello", murlog.EConflict},
		{"Hello", murlog.EInvalid},
		{"a/b", murlog.EInvalid},
		{"feed", murlog.EInvalid},
		{a.ID, murlog.EInvalid},
	} {
		_, err := e.posts.Update(ctx, post.UpdateInput{ID: c.ID, Slug: str(tc.slug)})
		if murlog.ErrorCode(err) != tc.code || err.(*murlog.Error).Field != "slug" {
			t.Errorf("slug %q: %v; want %s on field slug", tc.slug, err, tc.code)
		}
		in := article("Fresh")
		in.Slug = tc.slug
		if _, err := e.posts.Create(ctx, in); murlog.ErrorCode(err) != tc.code {
			t.Errorf("create with slug %q: %v; want %s", tc.slug, err, tc.code)
		}
	}
	for _, in := range []post.CreateInput{
		{Content: "note", Slug: "a-note"},
		{Content: "note", Page: true},
		{Kind: murlog.KindArticle, Title: "Secret page", Content: "x", Page: true, Visibility: murlog.VisibilityFollowers},
	} {
		if _, err := e.posts.Create(ctx, in); murlog.ErrorCode(err) != murlog.EInvalid {
			t.Errorf("Create(%+v): %v; want invalid", in, err)
		}
	}
}

// deliveryJobs returns the payloads of the jobs of topic ever enqueued
// (the worker of env has no delivery handlers: those that ran are dead).
func (e *env) deliveryJobs(topic string) []string {
	e.t.Helper()
	var out []string
	for _, st := range []queue.State{queue.StatePending, queue.StateScheduled, queue.StateRunning, queue.StateDone, queue.StateDead} {
		infos, err := e.db.Queue().List(ctx, queue.ListQuery{State: st, Topic: topic, Limit: 100})
		if err != nil {
			e.t.Fatal(err)
		}
		for _, in := range infos {
			out = append(out, string(in.Payload))
		}
	}
	return out
}

// TestPagesAreNotFederated: a page enqueues no delivery, at its
// publication or at its scheduled time; a post made a page is Deleted
// where it went, and made a post again is Created anew.
func TestPagesAreNotFederated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	page := article("About")
	page.Page = true
	p := e.create(page)
	if !p.Page || p.Slug != "about" {
		t.Errorf("page: %+v; want a page with slug about", p)
	}
	e.update(post.UpdateInput{ID: p.ID, Content: str("more about me")})
	later := article("Contact")
	later.Page, later.PublishedAt = true, at(e.clock.Now().Add(time.Minute))
	e.create(later)
	e.clock.Advance(2 * time.Minute)
	if n := e.run(); n != 1 {
		t.Fatalf("publish jobs run: %d; want the scheduled page's", n)
	}
	if jobs := e.deliveryJobs(delivery.TopicDeliverPost); len(jobs) != 0 {
		t.Errorf("deliver_post jobs for pages: %v; want none", jobs)
	}

	a := e.create(article("A post"))
	if jobs := e.deliveryJobs(delivery.TopicDeliverPost); len(jobs) != 1 {
		t.Fatalf("deliver_post jobs after an article: %v; want its Create", jobs)
	}
	e.update(post.UpdateInput{ID: a.ID, Page: ptr(true)})
	del := e.deliveryJobs(delivery.TopicDeliverDelete)
	var pl delivery.DeletePayload
	if len(del) != 1 || json.Unmarshal([]byte(del[0]), &pl) != nil || pl.PostID != a.ID {
		t.Errorf("deliver_delete jobs after the article became a page: %v; want its Delete", del)
	}
	if jobs := e.deliveryJobs(delivery.TopicDeliverPost); len(jobs) != 1 {
		t.Errorf("deliver_post jobs after it became a page: %v; want still only the first Create", jobs)
	}
	e.clock.Advance(time.Second)
	e.update(post.UpdateInput{ID: a.ID, Page: ptr(false)})
	jobs := e.deliveryJobs(delivery.TopicDeliverPost)
	if len(jobs) != 2 {
		t.Fatalf("deliver_post jobs after it became a post again: %v; want a second Create", jobs)
	}
	for _, j := range jobs {
		var pp delivery.PostPayload
		json.Unmarshal([]byte(j), &pp)
		if pp.PostID != a.ID || pp.Activity != delivery.ActivityCreate {
			t.Errorf("deliver_post %s; want Creates of the article", j)
		}
	}
}

func ptr[T any](v T) *T { return &v }
