package e2e

import (
	"strings"
	"testing"

	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/internal/fedtest"
)

// A real `murlog serve` process (MURLOG_ALLOW_PRIVATE_NETWORK=1,
// MURLOG_SCHEME=http) federates with an in-process instance by host:port:
// the process resolves names with the system resolver, and tests must not
// edit /etc/hosts, so both sites are named 127.0.0.1:PORT. Lookup both
// ways, a follow, a post delivered each way, a like.
func TestFederationWithAProcess(t *testing.T) {
	t.Parallel()
	names := fedtest.NewNames()
	a := fedtest.Start(t, names, fedtest.Options{Name: "127.0.0.1", Username: "alice"})
	p := fedtest.StartProcess(t, names, apachetest.Murlog(t), fedtest.Options{Username: "carol"})
	w := &walk{a: a, b: p, tag: "process"}
	eventually := func(what string, check func() (bool, string)) {
		t.Helper()
		fedtest.Eventually(t, what, check, a, p)
	}

	// Lookup both ways.
	a.Call(t, "actors.lookup", map[string]any{"q": p.Acct()}, &w.bobOnA)
	p.Call(t, "actors.lookup", map[string]any{"q": a.Acct()}, &w.aliceOnB)
	if w.bobOnA.URI != p.ActorURL() || w.aliceOnB.URI != a.ActorURL() {
		t.Fatalf("lookups gave %s and %s; want %s and %s", w.bobOnA.URI, w.aliceOnB.URI, p.ActorURL(), a.ActorURL())
	}

	// Follows both ways, accepted.
	a.Call(t, "follows.create", map[string]any{"actor_id": w.bobOnA.ID}, nil)
	p.Call(t, "follows.create", map[string]any{"actor_id": w.aliceOnB.ID}, nil)
	eventually("alice following carol", func() (bool, string) {
		return hasFollow(t, p, "followers.list", a.ActorURL(), "")
	})
	eventually("carol following alice", func() (bool, string) {
		return hasFollow(t, a, "followers.list", p.ActorURL(), "")
	})

	// A post each way.
	p.Call(t, "posts.create", map[string]any{"content": "from the process"}, &w.bobPost)
	eventually("the process's post on alpha", func() (bool, string) {
		post, ok, got := inTimeline(t, a, w.bobPost)
		w.bobPostOnA = post
		return ok, got
	})
	var mine localPost
	a.Call(t, "posts.create", map[string]any{"content": "to the process"}, &mine)
	eventually("alpha's post in the process's timeline", func() (bool, string) {
		_, ok, got := inTimeline(t, p, mine)
		return ok, got
	})

	// A like, notified in the process.
	a.Call(t, "favourites.create", map[string]any{"post_id": w.bobPostOnA.ID}, nil)
	eventually("the process notified of the like", func() (bool, string) {
		return notified(t, p, "favourite", a.ActorURL(), func(n notification) bool {
			return n.Post != nil && n.Post.ID == w.bobPost.ID
		})
	})
	if !strings.Contains(w.bobPostOnA.Content, "from the process") {
		t.Errorf("alpha: the process's post reads %q", w.bobPostOnA.Content)
	}
}
