package api_test

import (
	"testing"

	"github.com/murlog/murlog"
)

// socialMethods is every method of the social API.
var socialMethods = []string{
	"actors.lookup", "actors.get", "actors.outbox", "actors.followers", "actors.following", "actors.featured",
	"follows.list", "follows.check", "follows.create", "follows.delete",
	"followers.list", "followers.pending", "followers.approve", "followers.reject", "followers.delete",
	"favourites.create", "favourites.delete", "reblogs.create", "reblogs.delete",
	"blocks.list", "blocks.create", "blocks.delete", "domain_blocks.list", "domain_blocks.create", "domain_blocks.delete",
	"timeline.home", "posts.get_thread", "posts.pin", "posts.unpin", "posts.deliveries",
	"notifications.list", "notifications.count_unread", "notifications.read", "notifications.read_all", "notifications.delete",
}

func TestSocialMethodsAreTheOwners(t *testing.T) {
	t.Parallel()
	e := newSocialEnv(t)
	bob := e.actor("bob", "remote.example")
	params := map[string]any{"id": bob.ID, "actor_id": bob.ID, "q": "bob@remote.example", "domain": "remote.example"}
	for _, m := range socialMethods {
		rpcErr(t, "anonymous "+m, e.anon.Call(ctx, m, params, nil), -32000, "unauthorized", 401)
	}
	// Nothing was done on the anonymous caller's behalf.
	var pg any
	e.call("blocks.list", nil, &pg)
	if n := len(field(pg, "items").([]any)); n != 0 {
		t.Errorf("blocks after anonymous calls: %d; want 0", n)
	}
}

func TestSocialMethodsRefuseBadParams(t *testing.T) {
	t.Parallel()
	e := newSocialEnv(t)
	bob := e.actor("bob", "remote.example")
	for _, tc := range []struct {
		method string
		params map[string]any
		field  string
	}{
		{"actors.lookup", nil, "q"},
		{"actors.lookup", map[string]any{"q": 1}, "q"},
		{"actors.get", map[string]any{"id": "x"}, "id"},
		{"actors.outbox", map[string]any{}, "id"},
		{"actors.followers", map[string]any{"id": bob.ID, "page": 2}, "page"},
		{"follows.list", map[string]any{"state": "maybe"}, "state"},
		{"follows.list", map[string]any{"limit": 101}, "limit"},
		{"follows.list", map[string]any{"cursor": "zz"}, "cursor"},
		{"follows.check", map[string]any{"actor_id": "x"}, "actor_id"},
		{"follows.create", nil, "actor_id"},
		{"follows.create", map[string]any{"actor_id": bob.ID, "persona_id": "x"}, "persona_id"},
		{"follows.delete", map[string]any{"Actor_id": bob.ID}, "Actor_id"},
		{"followers.list", map[string]any{"limit": "ten"}, "limit"},
		{"followers.pending", map[string]any{"limit": 0.5}, "limit"},
		{"followers.approve", map[string]any{"actor_id": 5}, "actor_id"},
		{"followers.reject", nil, "actor_id"},
		{"followers.delete", map[string]any{"actor_id": ""}, "actor_id"},
		{"favourites.create", nil, "post_id"},
		{"favourites.create", map[string]any{"uri": "ftp://x/y"}, "uri"},
		{"favourites.delete", map[string]any{"post_id": "x"}, "post_id"},
		{"reblogs.create", map[string]any{"post_id": true}, "post_id"},
		{"reblogs.delete", nil, "post_id"},
		{"blocks.list", map[string]any{"limit": -1}, "limit"},
		{"blocks.create", map[string]any{"actorid": bob.ID}, "actorid"},
		{"blocks.delete", map[string]any{"actor_id": "x"}, "actor_id"},
		{"domain_blocks.list", map[string]any{"cursor": "x"}, "cursor"},
		{"domain_blocks.create", map[string]any{"domain": "a b"}, "domain"},
		{"domain_blocks.delete", map[string]any{"domain": "x/y"}, "domain"},
		{"timeline.home", map[string]any{"cursor": "x"}, "cursor"},
		{"posts.get_thread", nil, "id"},
		{"posts.get_thread", map[string]any{"id": "x"}, "id"},
		{"posts.pin", map[string]any{"id": "x"}, "id"},
		{"posts.unpin", nil, "id"},
		{"posts.deliveries", map[string]any{"id": murlog.NewID(), "limit": 1000}, "limit"},
		{"notifications.list", map[string]any{"kinds": []string{}}, "kinds"},
		{"notifications.list", map[string]any{"unread": "yes"}, "unread"},
		{"notifications.count_unread", map[string]any{"persona_id": "x"}, "persona_id"},
		{"notifications.read", map[string]any{"ids": []string{}}, "ids"},
		{"notifications.read", map[string]any{"ids": []string{"x"}}, "ids"},
		{"notifications.read_all", map[string]any{"all": true}, "all"},
		{"notifications.delete", map[string]any{"id": "x"}, "id"},
	} {
		ce := rpcErr(t, tc.method+" "+field2(tc.params), e.owner.Call(ctx, tc.method, tc.params, nil), -32602, "invalid", 400)
		if ce != nil && ce.Data.Field != tc.field {
			t.Errorf("%s(%v): field %q (%s); want %q", tc.method, tc.params, ce.Data.Field, ce.Message, tc.field)
		}
	}
}

func TestSocialMethodsNotFound(t *testing.T) {
	t.Parallel()
	e := newSocialEnv(t)
	nobody := murlog.NewID()
	for _, tc := range []struct {
		method string
		params map[string]any
	}{
		{"actors.get", map[string]any{"id": nobody}},
		{"actors.outbox", map[string]any{"id": nobody}},
		{"actors.following", map[string]any{"id": nobody}},
		{"actors.followers", map[string]any{"id": nobody}},
		{"actors.featured", map[string]any{"id": nobody}},
		{"actors.lookup", map[string]any{"q": "bob@127.0.0.1:1", "persona_id": nobody}},
		{"followers.list", map[string]any{"persona_id": nobody}},
		{"favourites.create", map[string]any{"persona_id": nobody, "uri": "http://127.0.0.1:1/notes/1"}},
		{"followers.pending", map[string]any{"persona_id": nobody}},
		{"blocks.list", map[string]any{"persona_id": nobody}},
		{"notifications.list", map[string]any{"persona_id": nobody}},
		{"notifications.read", map[string]any{"persona_id": nobody, "ids": []string{nobody}}},
		{"notifications.read_all", map[string]any{"persona_id": nobody}},
		{"posts.unpin", map[string]any{"persona_id": nobody, "id": nobody}},
		{"follows.list", map[string]any{"persona_id": nobody}},
		{"follows.check", map[string]any{"actor_id": nobody}},
		{"follows.create", map[string]any{"actor_id": nobody}},
		{"follows.delete", map[string]any{"actor_id": nobody}},
		{"followers.approve", map[string]any{"actor_id": nobody}},
		{"followers.reject", map[string]any{"actor_id": nobody}},
		{"followers.delete", map[string]any{"actor_id": nobody}},
		{"favourites.create", map[string]any{"post_id": nobody}},
		{"favourites.delete", map[string]any{"post_id": nobody}},
		{"reblogs.create", map[string]any{"post_id": nobody}},
		{"reblogs.delete", map[string]any{"post_id": nobody}},
		{"blocks.create", map[string]any{"actor_id": nobody}},
		{"blocks.delete", map[string]any{"actor_id": nobody}},
		{"domain_blocks.delete", map[string]any{"domain": "never.example"}},
		{"timeline.home", map[string]any{"persona_id": nobody}},
		{"posts.get_thread", map[string]any{"id": nobody}},
		{"posts.pin", map[string]any{"id": nobody}},
		{"posts.deliveries", map[string]any{"id": nobody}},
		{"notifications.delete", map[string]any{"id": nobody}},
		{"notifications.count_unread", map[string]any{"persona_id": nobody}},
	} {
		rpcErr(t, tc.method+" "+field2(tc.params), e.owner.Call(ctx, tc.method, tc.params, nil), -32001, "not_found", 404)
	}
}

// field2 renders params for a test message.
func field2(params map[string]any) string {
	if params == nil {
		return "{}"
	}
	s := "{"
	for k, v := range params {
		s += k + ":" + stringOf(v) + " "
	}
	return s + "}"
}

func stringOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "null"
	}
	return "…"
}
