package api_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/store/sqlite"
)

// TestAppWiresTheSocialAPI runs the social methods through the whole app:
// its social service, store and resolver (loopback allowed for the test's
// remote server).
func TestAppWiresTheSocialAPI(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Env: map[string]string{"MURLOG_ALLOW_PRIVATE_NETWORK": "true"}})
	fedi := newFediServer(t)
	var a any
	if err := s.Client.Call(ctx, "actors.lookup", map[string]any{"q": "@bob@" + fedi.host}, &a); err != nil {
		t.Fatalf("actors.lookup through the app: %v\n%s", err, s.Logs)
	}
	if field(a, "uri") != fedi.bob() || field(a, "relationship", "following") != "none" {
		t.Fatalf("actors.lookup = %v", a)
	}
	var f any
	if err := s.Client.Call(ctx, "follows.create", map[string]any{"actor_id": field(a, "id")}, &f); err != nil {
		t.Fatal(err)
	}
	var pg any
	if err := s.Client.Call(ctx, "follows.list", nil, &pg); err != nil {
		t.Fatal(err)
	}
	if field(pg, "items", 0, "actor", "uri") != fedi.bob() || field(pg, "items", 0, "state") != "pending" {
		t.Errorf("follows.list = %v; want bob, pending", pg)
	}
	var n map[string]int
	if err := s.Client.Call(ctx, "notifications.count_unread", nil, &n); err != nil || n["count"] != 0 {
		t.Errorf("notifications.count_unread = %v, %v; want 0", n, err)
	}
}

// TestPostsDeliveriesThroughTheApp follows a post out of the whole app: a
// follower on the loopback server, the post's fan-out and delivery by the
// worker, and posts.deliveries saying where it went.
func TestPostsDeliveriesThroughTheApp(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Env: map[string]string{"MURLOG_ALLOW_PRIVATE_NETWORK": "true"}})
	fedi := newFediServer(t)
	var a, per any
	if err := s.Client.Call(ctx, "actors.lookup", map[string]any{"q": "bob@" + fedi.host}, &a); err != nil {
		t.Fatal(err)
	}
	if err := s.Client.Call(ctx, "personas.get", nil, &per); err != nil {
		t.Fatal(err)
	}
	// bob follows alice, as the inbox would record his Follow.
	db, err := sqlite.Open(ctx, filepath.Join(s.Dir, "data", sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := social.New(db, murlog.Site{Scheme: "http", Domain: s.Domain()})
	if _, err := svc.Requested(ctx, field(per, "id").(string), field(a, "id").(string), fedi.bob()+"/follows/1"); err != nil {
		t.Fatal(err)
	}
	p := create(t, s.Client, map[string]any{"content": "out it goes"})
	w := s.App.NewWorker("test")
	for range 5 {
		if n, err := w.RunBatch(ctx, 20, 5*time.Second); err != nil || n == 0 {
			break
		}
	}
	var dv any
	if err := s.Client.Call(ctx, "posts.deliveries", map[string]any{"id": p.ID}, &dv); err != nil {
		t.Fatal(err)
	}
	if field(dv, "delivered") != float64(1) || field(dv, "pending") != float64(0) || field(dv, "inboxes", 0, "inbox") != fedi.URL+"/inbox" ||
		field(dv, "inboxes", 0, "state") != "delivered" {
		t.Errorf("posts.deliveries = %v; want one delivery to the shared inbox\n%s", dv, s.Logs)
	}
	if fedi.posts.Load() == 0 {
		t.Errorf("the remote inbox received nothing")
	}
}
