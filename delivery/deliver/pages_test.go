package deliver_test

import (
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/post"
)

// TestPagesAreNeverDelivered: a page sends nothing; an article goes out
// with its slug address as url; made a page it is Deleted where it went;
// one made a page before its Create ran is never sent.
func TestPagesAreNeverDelivered(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(2, 1, true, "f")
	e.publish(post.CreateInput{Kind: murlog.KindArticle, Title: "About", Page: true})
	e.run()
	if gs := e.sink.take(); len(gs) != 0 {
		t.Errorf("a page: POSTs %v; want none", gs)
	}
	a := e.publish(post.CreateInput{Kind: murlog.KindArticle, Title: "Hello World"})
	e.run()
	gs := e.sink.take()
	if len(gs) != 2 || gs[0].typ() != "Create" || gs[0].object()["url"] != e.site.PersonaURL("alice")+"/hello-world" ||
		gs[0].object()["id"] != e.site.PostURL("alice", a.ID) {
		t.Fatalf("an article: POSTs %v; want a Create to each of 2 servers, id the post's, url its slug address", gs)
	}
	page := true
	if _, err := e.posts.Update(ctx, post.UpdateInput{ID: a.ID, Page: &page}); err != nil {
		t.Fatal(err)
	}
	e.run()
	if gs := e.sink.take(); len(gs) != 2 || gs[0].typ() != "Delete" || gs[1].typ() != "Delete" {
		t.Errorf("made a page: POSTs %v; want a Delete to each of 2 servers", gs)
	}

	b := e.publish(post.CreateInput{Kind: murlog.KindArticle, Title: "Second thoughts"})
	if _, err := e.posts.Update(ctx, post.UpdateInput{ID: b.ID, Page: &page}); err != nil {
		t.Fatal(err)
	}
	e.run()
	for _, g := range e.sink.take() {
		if g.typ() == "Create" {
			t.Errorf("a post made a page before its Create ran: sent %v; want no Create", g.Activity)
		}
	}
}
