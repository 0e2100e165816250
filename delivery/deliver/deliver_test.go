package deliver_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/delivery/deliver"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/worker"
)

const public = "https://www.w3.org/ns/activitystreams#Public"

// TestFanoutOnePerSharedInbox: followers on servers with a shared inbox
// get one delivery per server, followers without one a delivery each;
// every POST is a signed Create, and the Deliveries rows say delivered.
// Enqueueing the same fan-out again adds no job.
func TestFanoutOnePerSharedInbox(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(3, 10, true, "s") // 3 servers × 10 followers, shared inboxes
	e.followers(1, 5, false, "p") // 5 followers on one server without one
	p := e.publish(post.CreateInput{Content: "hello #go"})
	e.run()
	if n := e.jobs(delivery.TopicDeliverNote); n != 8 {
		t.Errorf("deliver_note jobs = %d; want 8 (3 shared inboxes + 5 personal ones)", n)
	}
	gs := e.sink.take()
	verified(t, gs)
	m := byInbox(gs)
	if len(gs) != 8 || len(m) != 8 {
		t.Fatalf("sink got %d POSTs to %d inboxes; want 8 to 8: %v", len(gs), len(m), m)
	}
	for _, want := range []string{"s000.test/inbox", "s001.test/inbox", "s002.test/inbox", "p000.test/users/u0/inbox", "p000.test/users/u4/inbox"} {
		g, ok := m[want]
		if !ok {
			t.Errorf("no POST to %s", want)
			continue
		}
		if g.typ() != "Create" || g.object()["id"] != e.site.PostURL("alice", p.ID) || !has(strs(g.object()["to"]), public) {
			t.Errorf("POST to %s = %v; want the public Create of the post", want, g.Activity)
		}
	}
	if s := e.summary(p.ID); s.Delivered != 8 || s.Pending != 0 || s.Failed != 0 || s.Skipped != 0 {
		t.Errorf("summary = %+v; want 8 delivered", s)
	}

	// The same deliver_post again (a retried transaction, a second
	// publish): one id, so nothing new.
	e.update(func(tx store.Tx) error {
		return tx.Jobs().Enqueue(delivery.PostJob(delivery.PostPayload{PostID: p.ID, Activity: delivery.ActivityCreate}))
	})
	e.run()
	if n, gs := e.jobs(delivery.TopicDeliverNote), e.sink.take(); n != 8 || len(gs) != 0 {
		t.Errorf("after enqueueing the fan-out again: %d deliver_note jobs, %d POSTs; want 8 and none", n, len(gs))
	}
}

// TestFanoutSkipsDeadDomains: a server the breaker holds dead gets no
// job, and its inbox is recorded as skipped.
func TestFanoutSkipsDeadDomains(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hosts := e.followers(3, 2, true, "h")
	dead := hosts[1] + ":" + e.sink.port
	for range domains.DeadThreshold {
		if err := e.domains.Failure(ctx, dead, errors.New("connection refused")); err != nil {
			t.Fatal(err)
		}
	}
	p := e.publish(post.CreateInput{})
	e.run()
	m := byInbox(e.sink.take())
	if _, ok := m[hosts[1]+"/inbox"]; ok || len(m) != 2 {
		t.Errorf("POSTs went to %v; want the two live servers only", m)
	}
	if s := e.summary(p.ID); s.Delivered != 2 || s.Skipped != 1 {
		t.Errorf("summary = %+v; want 2 delivered, 1 skipped", s)
	}
}

// TestDirectPostOnlyMentioned: a direct post goes only to the mentioned
// actor's own inbox — not its server's shared inbox, not the followers —
// addressed to it, and its link is the actor's real profile page.
func TestDirectPostOnlyMentioned(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(2, 2, true, "f")
	bob := e.actor("bob", "m000.test", true)
	e.resolver.add("bob", "m000.test", bob)
	p := e.publish(post.CreateInput{Content: "@bob@m000.test psst", Visibility: murlog.VisibilityDirect})
	if len(p.Mentions) != 1 || p.Mentions[0].URI != bob.URI || !strings.Contains(p.Content, `href="`+bob.URL+`"`) {
		t.Fatalf("post mentions %+v, content %s; want bob resolved and linked to %s", p.Mentions, p.Content, bob.URL)
	}
	e.run()
	gs := e.sink.take()
	verified(t, gs)
	if len(gs) != 1 || gs[0].Path != "/inbox" || !strings.HasPrefix(gs[0].Host, "m000.test") {
		t.Fatalf("POSTs %v; want one, to bob's server's shared inbox", byInbox(gs))
	}
	if to := strs(gs[0].Activity["to"]); len(to) != 1 || to[0] != bob.URI || has(strs(gs[0].Activity["cc"]), public) {
		t.Errorf("direct Create to %v cc %v; want to bob only", to, gs[0].Activity["cc"])
	}
}

// TestOneDeliveryPerServer: whoever the recipients on a server are —
// followers, the boosted post's author, mentioned actors — an activity
// reaches a server with a shared inbox once; an actor without one gets
// its own copy.
func TestOneDeliveryPerServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ann := e.actor("ann", "s000.test", true) // follows
	e.follower(ann)
	bob := e.actor("bob", "s000.test", true) // wrote the boosted post, does not follow
	solo := e.actor("solo", "t000.test", false)
	e.follower(solo)
	rp := &murlog.RemotePost{URI: bob.URI + "/statuses/1", ActorID: bob.ID, Type: "Note", Content: "<p>boost me</p>",
		Visibility: murlog.VisibilityPublic, PublishedAt: e.clock.Now(), ReceivedAt: e.clock.Now()}
	e.update(func(tx store.Tx) error { return tx.RemotePosts().Upsert(rp) })
	if _, err := e.social.Reblog(ctx, e.persona.ID, rp.ID); err != nil {
		t.Fatal(err)
	}
	e.run()
	perServer := func(what string, want map[string]string) {
		t.Helper()
		gs := e.sink.take()
		verified(t, gs)
		got := map[string]string{}
		for _, g := range gs {
			host := strings.Split(g.Host, ":")[0]
			if _, dup := got[host]; dup {
				t.Errorf("%s: %s got it twice (%s and %s)", what, host, got[host], g.Path)
			}
			got[host] = g.Path
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: POSTs by server %v; want %v", what, got, want)
		}
	}
	perServer("boost of bob's post", map[string]string{"s000.test": "/inbox", "t000.test": "/users/solo/inbox"})

	carol := e.actor("carol", "s000.test", true)
	for _, a := range []*murlog.RemoteActor{bob, carol, solo} {
		e.resolver.add(a.Username, strings.Split(a.Domain, ":")[0], a)
	}
	e.publish(post.CreateInput{Content: "hi @bob@s000.test and @carol@s000.test"})
	e.run()
	perServer("post mentioning two non-followers on a follower's server", map[string]string{"s000.test": "/inbox", "t000.test": "/users/solo/inbox"})

	e.publish(post.CreateInput{Content: "@bob@s000.test @carol@s000.test @solo@t000.test psst", Visibility: murlog.VisibilityDirect})
	e.run()
	perServer("direct post to two actors of one server", map[string]string{"s000.test": "/inbox", "t000.test": "/users/solo/inbox"})
}

// TestFollowersOnlyAddressing: a followers-only post goes to the
// followers and the mentioned actor (who does not follow), addressed to
// the followers collection with the mention in cc and Public nowhere.
func TestFollowersOnlyAddressing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(2, 1, true, "f")
	carol := e.actor("carol", "m001.test", true)
	e.resolver.add("carol", "m001.test", carol)
	p := e.publish(post.CreateInput{Content: "hi @carol@m001.test", Visibility: murlog.VisibilityFollowers})
	e.run()
	gs := e.sink.take()
	m := byInbox(gs)
	if len(m) != 3 {
		t.Fatalf("POSTs to %v; want 2 followers' servers and carol's", m)
	}
	g, ok := m["m001.test/inbox"]
	if !ok {
		t.Fatalf("carol's server got nothing: %v", m)
	}
	to, cc := strs(g.Activity["to"]), strs(g.Activity["cc"])
	if len(to) != 1 || to[0] != e.site.FollowersURL("alice") || !has(cc, carol.URI) || has(to, public) || has(cc, public) {
		t.Errorf("followers-only Create to %v cc %v; want to the followers, cc carol, no Public", to, cc)
	}
	if s := e.summary(p.ID); s.Delivered != 3 {
		t.Errorf("summary %+v; want 3 delivered", s)
	}
}

// TestScheduledPostDeliversAfterPublish: a scheduled post is not
// delivered when it is written, only once its post.publish job ran.
func TestScheduledPostDeliversAfterPublish(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(1, 1, true, "f")
	at := e.clock.Now().Add(time.Hour)
	p := e.publish(post.CreateInput{PublishedAt: post.Schedule{Mode: post.PublishAt, At: at}})
	e.run()
	if n, gs := e.jobs(delivery.TopicDeliverPost), e.sink.take(); n != 0 || len(gs) != 0 {
		t.Fatalf("before its time: %d deliver_post jobs, %d POSTs; want none", n, len(gs))
	}
	e.clock.Advance(time.Hour)
	e.run()
	gs := e.sink.take()
	if len(gs) != 1 || gs[0].typ() != "Create" || gs[0].object()["id"] != e.site.PostURL("alice", p.ID) {
		t.Errorf("after post.publish: POSTs %v; want the Create", gs)
	}
}

// TestEditSendsUpdate: an edit of a published post sends an Update whose
// object carries updated (Mastodon ignores one without), with an id of
// its own.
func TestEditSendsUpdate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(2, 1, true, "f")
	p := e.publish(post.CreateInput{})
	e.run()
	create := e.sink.take()
	e.clock.Advance(time.Minute)
	text := "edited"
	if _, err := e.posts.Update(ctx, post.UpdateInput{ID: p.ID, Content: &text}); err != nil {
		t.Fatal(err)
	}
	e.run()
	gs := e.sink.take()
	verified(t, gs)
	if len(gs) != 2 {
		t.Fatalf("after the edit %d POSTs; want 2", len(gs))
	}
	for _, g := range gs {
		o := g.object()
		if g.typ() != "Update" || o["updated"] == nil || o["updated"] == "" || !strings.Contains(o["content"].(string), "edited") {
			t.Errorf("POST %v; want an Update with updated and the new content", g.Activity)
		}
		if g.Activity["id"] == create[0].Activity["id"] {
			t.Errorf("Update id %v is the Create's", g.Activity["id"])
		}
	}
}

// TestDeleteSendsDeleteAndTombstone: deleting a published post leaves a
// Tombstone and sends a Delete to the followers and to the mentioned
// actor the Create reached.
func TestDeleteSendsDeleteAndTombstone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(2, 1, true, "f")
	dan := e.actor("dan", "m002.test", true)
	e.resolver.add("dan", "m002.test", dan)
	p := e.publish(post.CreateInput{Content: "hey @dan@m002.test"})
	e.run()
	if n := len(e.sink.take()); n != 3 {
		t.Fatalf("Create reached %d inboxes; want 3", n)
	}
	e.clock.Advance(time.Minute)
	if err := e.posts.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	var ts *murlog.Tombstone
	e.update(func(tx store.Tx) error {
		var err error
		ts, err = tx.Tombstones().Get(p.ID)
		return err
	})
	if ts.URI != e.site.PostURL("alice", p.ID) || !ts.DeletedAt.Equal(e.clock.Now().Truncate(time.Microsecond)) {
		t.Errorf("tombstone %+v; want the post's URL, deleted now", ts)
	}
	e.run()
	gs := e.sink.take()
	verified(t, gs)
	m := byInbox(gs)
	if len(m) != 3 || m["m002.test/inbox"].typ() != "Delete" {
		t.Fatalf("Delete POSTs %v; want the 2 followers' servers and dan's", m)
	}
	if o := m["f000.test/inbox"].object(); o["id"] != e.site.PostURL("alice", p.ID) || o["type"] != "Tombstone" {
		t.Errorf("Delete object %v; want the post's Tombstone", o)
	}
}

// TestPersonaUpdateSendsUpdatePerson: a profile edit sends Update Person
// to every follower's shared inbox; an edit of nothing federated sends
// nothing.
func TestPersonaUpdateSendsUpdatePerson(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(3, 2, true, "f")
	name := "Alice A."
	if _, err := e.personas.Update(ctx, personaUpdate(e, &name, nil)); err != nil {
		t.Fatal(err)
	}
	e.run()
	gs := e.sink.take()
	verified(t, gs)
	if len(byInbox(gs)) != 3 {
		t.Fatalf("Update Person reached %v; want the 3 shared inboxes", byInbox(gs))
	}
	for _, g := range gs {
		if o := g.object(); g.typ() != "Update" || o["type"] != "Person" || o["name"] != name {
			t.Errorf("POST %v; want Update of the Person named %q", g.Activity, name)
		}
	}
	off := false
	e.clock.Advance(time.Minute)
	if _, err := e.personas.Update(ctx, personaUpdate(e, nil, &off)); err != nil {
		t.Fatal(err)
	}
	e.run()
	if gs := e.sink.take(); len(gs) != 0 {
		t.Errorf("hiding the follow lists sent %d POSTs; want none", len(gs))
	}
}

// TestUndoCarriesOriginalID: the Undo of a follow embeds the Follow with
// the id the Follow went out with.
func TestUndoCarriesOriginalID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	erin := e.actor("erin", "r000.test", true)
	f, err := e.social.Follow(ctx, e.persona.ID, erin.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.run()
	if gs := e.sink.take(); len(gs) != 1 || gs[0].typ() != "Follow" || gs[0].Activity["id"] != f.ActivityURI || gs[0].Path != "/users/erin/inbox" {
		t.Fatalf("follow POSTs %v; want the Follow %s to erin's inbox", gs, f.ActivityURI)
	}
	if err := e.social.Unfollow(ctx, e.persona.ID, erin.ID); err != nil {
		t.Fatal(err)
	}
	e.run()
	gs := e.sink.take()
	verified(t, gs)
	if len(gs) != 1 || gs[0].typ() != "Undo" || gs[0].object()["id"] != f.ActivityURI || gs[0].object()["type"] != "Follow" {
		t.Fatalf("unfollow POSTs %v; want an Undo embedding Follow %s", gs, f.ActivityURI)
	}
}

// TestGoneIsPermanent: an inbox answering 410 ends its job at once (no
// retry), records the failure with its error, and does not count against
// the server in the breaker (it answered).
func TestGoneIsPermanent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.actor("gone", "g000.test", false)
	e.follower(a)
	e.sink.setStatus("/users/gone/inbox", http.StatusGone)
	p := e.publish(post.CreateInput{})
	e.run()
	if st := e.state(delivery.TopicDeliverNote); st != queue.StateDead {
		t.Errorf("deliver_note to a 410 inbox is %s; want dead at once", st)
	}
	s := e.summary(p.ID)
	if s.Failed != 1 || len(s.LastErrors) != 1 || !strings.Contains(s.LastErrors[0].LastError, "410") || s.LastErrors[0].Attempts != 1 {
		t.Errorf("summary %+v; want 1 failed after 1 attempt with the 410", s)
	}
	if ds, _ := e.domains.List(ctx); len(ds) != 0 {
		t.Errorf("breaker records %v; want nothing for a 410", ds[0])
	}
}

// TestBreakerCountsFailures: a 503 is retried later and counts against
// the server; a later success clears it.
func TestBreakerCountsFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(1, 1, true, "b")
	e.sink.setStatus("/inbox", http.StatusServiceUnavailable)
	p := e.publish(post.CreateInput{})
	e.run()
	if st := e.state(delivery.TopicDeliverNote); st != queue.StateScheduled {
		t.Errorf("deliver_note after a 503 is %s; want scheduled for a retry", st)
	}
	ds, err := e.domains.List(ctx)
	if err != nil || len(ds) != 1 || ds[0].FailureCount != 1 {
		t.Fatalf("breaker %v, %v; want one failure of b000.test", ds, err)
	}
	// Still to be retried: pending, with the attempt and its error shown.
	if s := e.summary(p.ID); s.Pending != 1 || s.Failed != 0 {
		t.Errorf("summary %+v; want 1 pending (a retry is due), none failed", s)
	}
	var row *murlog.Delivery
	e.update(func(tx store.Tx) error {
		ds, err := tx.Deliveries().List(p.ID, "", 10)
		if len(ds) == 1 {
			row = ds[0]
		}
		return err
	})
	if row == nil || row.Attempts != 1 || !strings.Contains(row.LastError, "503") {
		t.Errorf("delivery row %+v; want 1 attempt and the 503 as its last error", row)
	}
	e.sink.setStatus("/inbox", http.StatusAccepted)
	e.clock.Advance(time.Minute) // past the first backoff (30 s)
	e.run()
	if ds, _ := e.domains.List(ctx); len(ds) != 0 {
		t.Errorf("after a success the breaker still holds %v", ds)
	}
	if s := e.summary(p.ID); s.Delivered != 1 || s.Failed != 0 {
		t.Errorf("summary %+v; want 1 delivered", s)
	}
}

// TestRetryAfterIsHonoured: a 429 with Retry-After: 600 is retried after
// ten minutes, not after the policy's 30 s.
func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(1, 1, true, "b")
	e.sink.setStatus("/inbox", http.StatusTooManyRequests)
	e.publish(post.CreateInput{})
	e.run()
	if n := len(e.sink.take()); n != 1 {
		t.Fatalf("first delivery: %d POSTs; want 1", n)
	}
	e.sink.setStatus("/inbox", http.StatusAccepted)
	e.clock.Advance(time.Minute) // past the backoff, not the Retry-After
	e.run()
	if n := len(e.sink.take()); n != 0 || e.state(delivery.TopicDeliverNote) != queue.StateScheduled {
		t.Fatalf("a minute later: %d POSTs, job %s; want none, still scheduled (Retry-After: 600)", n, e.state(delivery.TopicDeliverNote))
	}
	e.clock.Advance(10 * time.Minute)
	e.run()
	if n := len(e.sink.take()); n != 1 || e.state(delivery.TopicDeliverNote) != queue.StateDone {
		t.Fatalf("after the Retry-After: %d POSTs, job %s; want it delivered", n, e.state(delivery.TopicDeliverNote))
	}
}

// TestReplyReachesParentAuthor: a reply goes to the parent's author even
// when the author does not follow, and names the parent in inReplyTo.
func TestReplyReachesParentAuthor(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(1, 1, true, "f")
	frank := e.actor("frank", "q000.test", true)
	parent := &murlog.RemotePost{URI: frank.URI + "/statuses/1", ActorID: frank.ID, Type: "Note", Content: "<p>hi</p>",
		Visibility: murlog.VisibilityPublic, PublishedAt: e.clock.Now(), ReceivedAt: e.clock.Now()}
	e.update(func(tx store.Tx) error { return tx.RemotePosts().Upsert(parent) })
	e.publish(post.CreateInput{Content: "indeed", InReplyTo: parent.URI})
	e.run()
	m := byInbox(e.sink.take())
	g, ok := m["q000.test/inbox"]
	if len(m) != 2 || !ok {
		t.Fatalf("reply POSTs to %v; want the follower's server and frank's", m)
	}
	if g.object()["inReplyTo"] != parent.URI {
		t.Errorf("reply object %v; want inReplyTo %s", g.object(), parent.URI)
	}
}

// TestBoostAndUndo: a boost goes to the followers' servers and the
// boosted post's author, cc the author; its Undo goes the same way and
// embeds the Announce with its original id. A like goes to the author
// alone.
func TestBoostAndUndo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(2, 3, true, "f")
	gina := e.actor("gina", "q001.test", false)
	rp := &murlog.RemotePost{URI: gina.URI + "/statuses/7", ActorID: gina.ID, Type: "Note", Content: "<p>good</p>",
		Visibility: murlog.VisibilityPublic, PublishedAt: e.clock.Now(), ReceivedAt: e.clock.Now()}
	e.update(func(tx store.Tx) error { return tx.RemotePosts().Upsert(rp) })
	i, err := e.social.Reblog(ctx, e.persona.ID, rp.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.run()
	gs := e.sink.take()
	verified(t, gs)
	m := byInbox(gs)
	a, ok := m["q001.test/users/gina/inbox"]
	if len(m) != 3 || !ok || a.typ() != "Announce" || a.Activity["id"] != i.ActivityURI || a.Activity["object"] != rp.URI ||
		!has(strs(a.Activity["cc"]), gina.URI) {
		t.Fatalf("boost POSTs %v; want the Announce %s to 2 servers and gina, cc gina", m, i.ActivityURI)
	}
	if err := e.social.Unreblog(ctx, e.persona.ID, rp.ID); err != nil {
		t.Fatal(err)
	}
	e.run()
	m = byInbox(e.sink.take())
	u := m["f001.test/inbox"]
	if len(m) != 3 || u.typ() != "Undo" || u.object()["id"] != i.ActivityURI || u.object()["type"] != "Announce" {
		t.Fatalf("unboost POSTs %v; want an Undo embedding Announce %s to the same 3 inboxes", m, i.ActivityURI)
	}
	like, err := e.social.Favourite(ctx, e.persona.ID, rp.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.run()
	gs = e.sink.take()
	if len(gs) != 1 || gs[0].typ() != "Like" || gs[0].Activity["id"] != like.ActivityURI || gs[0].Path != "/users/gina/inbox" {
		t.Errorf("like POSTs %v; want the Like to gina alone", gs)
	}
}

// TestQuotePolicyFollowsSettings: with allow_quotes off, a delivered
// public post grants nobody automatic quote approval (FEP-044f), as the
// served document does.
func TestQuotePolicyFollowsSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(1, 1, true, "f")
	off := false
	if _, err := settings.New(e.db).Update(ctx, settings.Update{AllowQuotes: &off}); err != nil {
		t.Fatal(err)
	}
	e.publish(post.CreateInput{})
	e.run()
	gs := e.sink.take()
	if len(gs) != 1 {
		t.Fatalf("%d POSTs; want 1", len(gs))
	}
	pol, _ := gs[0].object()["interactionPolicy"].(map[string]any)
	cq, _ := pol["canQuote"].(map[string]any)
	if auto := strs(cq["automaticApproval"]); cq == nil || len(auto) != 0 {
		t.Errorf("interactionPolicy %v; want canQuote with no automatic approval", pol)
	}
}

// TestGoneTargetsSendNothing: a deliver_note whose post was deleted and
// a send_follow whose follow was withdrawn before they ran end without a
// POST and without an error.
func TestGoneTargetsSendNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.actor("hal", "z000.test", true)
	e.update(func(tx store.Tx) error {
		return tx.Jobs().Enqueue(
			delivery.PostJob(delivery.PostPayload{PostID: murlog.NewID(), Activity: delivery.ActivityCreate}),
			delivery.ActivityJob(delivery.TopicSendFollow, delivery.ActivityPayload{PersonaID: e.persona.ID, Actor: a.URI,
				Inbox: a.Inbox, Object: a.URI, ActivityID: e.site.ActivityURL("alice", murlog.NewID())}))
	})
	e.update(func(tx store.Tx) error {
		j := queue.NewJob(delivery.TopicDeliverNote, []byte(`{"post_id":"`+murlog.NewID()+`","activity":"Create","inbox":"`+a.Inbox+`"}`))
		return tx.Jobs().Enqueue(j)
	})
	e.run()
	if gs := e.sink.take(); len(gs) != 0 {
		t.Errorf("POSTs %v; want none", gs)
	}
	for _, topic := range []string{delivery.TopicDeliverPost, delivery.TopicDeliverNote, delivery.TopicSendFollow} {
		if st := e.state(topic); st != queue.StateDone {
			t.Errorf("%s is %s; want done", topic, st)
		}
	}
}

// TestRegisterEveryTopic: every topic of the seed's table is registered,
// the one-recipient ones with DeliveryPolicy (30 s first retry), the
// fan-outs with FanoutPolicy.
func TestRegisterEveryTopic(t *testing.T) {
	t.Parallel()
	r := worker.NewRegistry()
	deliver.Register(r, deliver.Deps{})
	fanouts := map[string]bool{delivery.TopicDeliverPost: true, delivery.TopicDeliverDelete: true, delivery.TopicUpdateActor: true,
		delivery.TopicSendAnnounce: true, delivery.TopicSendUndoAnnounce: true}
	all := []string{delivery.TopicDeliverPost, delivery.TopicDeliverNote, delivery.TopicDeliverUpdate, delivery.TopicDeliverDelete,
		delivery.TopicDeliverDeleteNote, delivery.TopicDeliverAnnounce, delivery.TopicAcceptFollow, delivery.TopicRejectFollow,
		delivery.TopicSendFollow, delivery.TopicSendUndoFollow, delivery.TopicSendLike, delivery.TopicSendUndoLike,
		delivery.TopicSendAnnounce, delivery.TopicSendUndoAnnounce, delivery.TopicSendBlock, delivery.TopicSendUndoBlock,
		delivery.TopicUpdateActor}
	if got := r.Topics(); len(got) != len(all) {
		t.Errorf("registered %v; want the %d topics of the table", got, len(all))
	}
	for _, topic := range all {
		p := r.Policy(topic)
		want := queue.DeliveryPolicy
		if fanouts[topic] {
			want = deliver.FanoutPolicy
		}
		if p.MaxAttempts != want.MaxAttempts || p.Backoff(1) != want.Backoff(1) || p.Backoff(4) != want.Backoff(4) {
			t.Errorf("%s: policy %d attempts, backoff %v, %v; want %d, %v, %v", topic, p.MaxAttempts, p.Backoff(1), p.Backoff(4),
				want.MaxAttempts, want.Backoff(1), want.Backoff(4))
		}
	}
}

// TestUnpublishSendsDelete: a published post made a draft again is
// Deleted on the servers it reached, without a Tombstone (it still
// exists, unpublished).
func TestUnpublishSendsDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.followers(2, 1, true, "f")
	p := e.publish(post.CreateInput{})
	e.run()
	e.sink.take()
	draft := post.Schedule{Mode: post.PublishDraft}
	if _, err := e.posts.Update(ctx, post.UpdateInput{ID: p.ID, PublishedAt: &draft}); err != nil {
		t.Fatal(err)
	}
	e.run()
	gs := e.sink.take()
	if len(gs) != 2 || gs[0].typ() != "Delete" || gs[1].typ() != "Delete" {
		t.Errorf("after unpublishing: POSTs %v; want a Delete to each of 2 servers", gs)
	}
	e.update(func(tx store.Tx) error {
		if _, err := tx.Tombstones().Get(p.ID); murlog.ErrorCode(err) != murlog.ENotFound {
			t.Errorf("tombstone of an unpublished post: %v; want none", err)
		}
		return nil
	})
}
