package api_test

import (
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/social"
)

func TestFollowsLifecycle(t *testing.T) {
	t.Parallel()
	e := newSocialEnv(t)
	bob := e.actor("bob", "remote.example")
	check := func(want string) {
		t.Helper()
		var got map[string]string
		e.call("follows.check", map[string]any{"actor_id": bob.ID}, &got)
		if got["state"] != want {
			t.Errorf("follows.check = %v; want %s", got, want)
		}
	}
	check("none")
	var f any
	e.call("follows.create", map[string]any{"actor_id": bob.ID}, &f)
	if field(f, "state") != "pending" || field(f, "actor", "id") != bob.ID || field(f, "actor", "relationship", "following") != "pending" {
		t.Fatalf("follows.create = %v; want pending", f)
	}
	sent := jobs[delivery.ActivityPayload](e, delivery.TopicSendFollow)
	if len(sent) != 1 || sent[0].Actor != bob.URI {
		t.Fatalf("send_follow = %+v", sent)
	}
	check("pending")
	rpcErr(t, "second follow", e.owner.Call(ctx, "follows.create", map[string]any{"actor_id": bob.ID}, nil), -32002, "conflict", 409)

	if err := e.svc.Accepted(ctx, bob.ID, social.FollowRef{ActivityURI: sent[0].ActivityID}); err != nil {
		t.Fatal(err)
	}
	check("accepted")
	var pg any
	e.call("follows.list", map[string]any{"state": "accepted"}, &pg)
	if field(pg, "items", 0, "actor", "acct") != "bob@remote.example" || field(pg, "items", 0, "accepted_at") == nil {
		t.Errorf("follows.list accepted = %v", pg)
	}
	e.call("follows.list", map[string]any{"state": "pending"}, &pg)
	if n := len(field(pg, "items").([]any)); n != 0 {
		t.Errorf("follows.list pending has %d items; want 0", n)
	}

	e.call("follows.delete", map[string]any{"actor_id": bob.ID}, nil)
	undo := jobs[delivery.ActivityPayload](e, delivery.TopicSendUndoFollow)
	if len(undo) != 1 || undo[0].ActivityID != sent[0].ActivityID {
		t.Errorf("send_undo_follow = %+v; want the Undo of %s", undo, sent[0].ActivityID)
	}
	check("none")
	rpcErr(t, "unfollow again", e.owner.Call(ctx, "follows.delete", map[string]any{"actor_id": bob.ID}, nil), -32001, "not_found", 404)
}

func TestFollowsListPages(t *testing.T) {
	t.Parallel()
	e := newSocialEnv(t)
	for _, u := range []string{"a", "b", "c"} {
		e.call("follows.create", map[string]any{"actor_id": e.actor(u, "remote.example").ID}, nil)
	}
	var seen []string
	cursor := ""
	for range 4 {
		var pg struct {
			Items []struct {
				Actor struct{ Username string }
			}
			NextCursor *string `json:"next_cursor"`
		}
		params := map[string]any{"limit": 2}
		if cursor != "" {
			params["cursor"] = cursor
		}
		e.call("follows.list", params, &pg)
		for _, it := range pg.Items {
			seen = append(seen, it.Actor.Username)
		}
		if pg.NextCursor == nil {
			break
		}
		cursor = *pg.NextCursor
	}
	if len(seen) != 3 || seen[0] != "a" || seen[2] != "c" {
		t.Errorf("pages of 2 gave %v; want a b c", seen)
	}
}

func TestFollowersApproveRejectRemove(t *testing.T) {
	t.Parallel()
	e := newSocialEnv(t)
	var per any
	e.call("personas.update", map[string]any{"id": e.alice.ID, "locked": true}, &per)
	carol, dave := e.actor("carol", "remote.example"), e.actor("dave", "other.example")
	for _, a := range []*murlog.RemoteActor{carol, dave} {
		if _, err := e.svc.Requested(ctx, e.alice.ID, a.ID, a.URI+"/follows/1"); err != nil {
			t.Fatal(err)
		}
	}
	var pg any
	e.call("followers.pending", nil, &pg)
	if n := len(field(pg, "items").([]any)); n != 2 || field(pg, "items", 0, "state") != "pending" {
		t.Fatalf("followers.pending = %v; want 2 pending", pg)
	}
	var f any
	e.call("followers.approve", map[string]any{"actor_id": carol.ID}, &f)
	if field(f, "state") != "accepted" || field(f, "actor", "relationship", "followed_by") != "accepted" {
		t.Errorf("followers.approve = %v", f)
	}
	if acc := jobs[delivery.ActivityPayload](e, delivery.TopicAcceptFollow); len(acc) != 1 || acc[0].ActivityID != carol.URI+"/follows/1" {
		t.Errorf("accept_follow = %+v", acc)
	}
	e.call("followers.list", nil, &pg)
	if field(pg, "items", 0, "actor", "id") != carol.ID || len(field(pg, "items").([]any)) != 1 {
		t.Errorf("followers.list = %v; want carol", pg)
	}
	rpcErr(t, "reject of an accepted follower", e.owner.Call(ctx, "followers.reject", map[string]any{"actor_id": carol.ID}, nil), -32002, "conflict", 409)
	e.call("followers.reject", map[string]any{"actor_id": dave.ID}, nil)
	e.call("followers.delete", map[string]any{"actor_id": carol.ID}, nil)
	if rej := jobs[delivery.ActivityPayload](e, delivery.TopicRejectFollow); len(rej) != 2 {
		t.Errorf("reject_follow jobs = %+v; want 2 (reject, remove)", rej)
	}
	e.call("followers.list", nil, &pg)
	if n := len(field(pg, "items").([]any)); n != 0 {
		t.Errorf("followers after removal: %d; want 0", n)
	}
	rpcErr(t, "approve of nobody", e.owner.Call(ctx, "followers.approve", map[string]any{"actor_id": dave.ID}, nil), -32001, "not_found", 404)
}

func TestBlocksAndDomainBlocks(t *testing.T) {
	t.Parallel()
	e := newSocialEnv(t)
	bob := e.actor("bob", "remote.example")
	eve := e.actor("eve", "spam.example")
	e.call("follows.create", map[string]any{"actor_id": bob.ID}, nil)
	if _, err := e.svc.Requested(ctx, e.alice.ID, bob.ID, bob.URI+"/follows/9"); err != nil {
		t.Fatal(err)
	}
	e.call("blocks.create", map[string]any{"actor_id": bob.ID}, nil)
	var a any
	e.call("actors.get", map[string]any{"id": bob.ID}, &a)
	rel := field(a, "relationship")
	if field(rel, "blocking") != true || field(rel, "following") != "none" || field(rel, "followed_by") != "none" {
		t.Errorf("relationship after block = %v; want blocking, no follows either way", rel)
	}
	if b := jobs[delivery.ActivityPayload](e, delivery.TopicSendBlock); len(b) != 1 || b[0].Actor != bob.URI {
		t.Errorf("send_block = %+v", b)
	}
	e.call("blocks.create", map[string]any{"actor_id": eve.ID}, nil)
	var pg any
	e.call("blocks.list", map[string]any{"limit": 1}, &pg)
	first := field(pg, "items", 0, "id")
	next, _ := field(pg, "next_cursor").(string)
	if next == "" {
		t.Fatalf("blocks.list limit 1 = %v; want a next page", pg)
	}
	e.call("blocks.list", map[string]any{"limit": 1, "cursor": next}, &pg)
	if second := field(pg, "items", 0, "id"); second == first || second == nil || field(pg, "next_cursor") != nil {
		t.Errorf("blocks.list page 2 = %v (page 1 had %v)", pg, first)
	}
	e.call("blocks.delete", map[string]any{"actor_id": bob.ID}, nil)
	if u := jobs[delivery.ActivityPayload](e, delivery.TopicSendUndoBlock); len(u) != 1 {
		t.Errorf("send_undo_block = %+v", u)
	}
	e.call("blocks.delete", map[string]any{"actor_id": bob.ID}, nil) // not blocked: still ok

	var db map[string]any
	e.call("domain_blocks.create", map[string]any{"domain": "Spam.Example", "reason": "spam"}, &db)
	if db["domain"] != "spam.example" || db["reason"] != "spam" || db["created_at"] == nil {
		t.Errorf("domain_blocks.create = %v", db)
	}
	rpcErr(t, "domain blocked twice", e.owner.Call(ctx, "domain_blocks.create", map[string]any{"domain": "spam.example"}, nil), -32002, "conflict", 409)
	e.call("actors.get", map[string]any{"id": eve.ID}, &a)
	if field(a, "relationship", "domain_blocking") != true {
		t.Errorf("eve's relationship = %v; want domain_blocking", field(a, "relationship"))
	}
	e.call("domain_blocks.list", nil, &pg)
	if field(pg, "items", 0, "domain") != "spam.example" {
		t.Errorf("domain_blocks.list = %v", pg)
	}
	rpcErr(t, "follow on a blocked domain", e.owner.Call(ctx, "follows.create", map[string]any{"actor_id": eve.ID}, nil), -32003, "forbidden", 403)
	e.call("domain_blocks.delete", map[string]any{"domain": "spam.example"}, nil)
	rpcErr(t, "unblock of an unblocked domain", e.owner.Call(ctx, "domain_blocks.delete", map[string]any{"domain": "spam.example"}, nil), -32001, "not_found", 404)
}
