package api_test

import (
	"testing"

	"github.com/murlog/murlog/internal/testsite"
)

// TestAppWiresTheSocialAPI runs the social methods through the whole app:
// its social service, store and resolver (loopback allowed for the test's
// remote server).
func TestAppWiresTheSocialAPI(t *testing.T) {
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
