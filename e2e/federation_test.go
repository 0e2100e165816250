package e2e

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/fedtest"
)

// Two murlog instances federate in this process (issue 7 point 7): alpha
// (alice) and beta (bob), each on its own loopback listener under its own
// name, walk the life cycle through their JSON-RPC APIs — lookup, follow
// (automatic and locked), a post, an article, reply, mention, like, boost,
// edit, delete, unfollow, block — and every step is checked on both sides. The
// walk runs twice: with default signing (RFC 9421 first), and with beta
// as a peer that speaks only draft-cavage, where alpha must fall back to
// cavage once and remember it for beta's domain.
func TestFederationWalk(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name       string
		cavageOnly bool
	}{{"rfc9421", false}, {"cavage-peer", true}} {
		t.Run(mode.name, func(t *testing.T) {
			names := fedtest.NewNames()
			a := fedtest.Start(t, names, fedtest.Options{Name: "alpha.test", Username: "alice"})
			b := fedtest.Start(t, names, fedtest.Options{Name: "beta.test", Username: "bob", CavageOnly: mode.cavageOnly})
			w := &walk{a: a, b: b, tag: mode.name}
			w.run(t)
			// Every delivery alpha made reached beta's inbox: RFC 9421 is
			// refused by the cavage-only peer exactly once (the first
			// knock), never by a peer that speaks it.
			refused := b.Requests(func(method, path string, status int) bool {
				return method == http.MethodPost && strings.HasSuffix(path, "/inbox") && status == http.StatusUnauthorized
			})
			want := 0
			if mode.cavageOnly {
				want = 1
			}
			if len(refused) != want {
				t.Errorf("beta refused %d inbox POSTs with 401 %v; want %d (double-knock once, then the remembered scheme)\n%s",
					len(refused), refused, want, fedtest.Diagnose(a, b))
			}
			// alpha speaks both: whatever beta signed with was accepted.
			if refused := a.Requests(func(method, path string, status int) bool {
				return method == http.MethodPost && strings.HasSuffix(path, "/inbox") && status >= 400
			}); len(refused) > 0 {
				t.Errorf("alpha refused inbox POSTs %v; want none\n%s", refused, fedtest.Diagnose(a, b))
			}
		})
	}
}

// The views of the social API (docs/api.md, issue 7 point 5), as far as
// the walk reads them.
type actor struct {
	ID           string `json:"id"`
	URI          string `json:"uri"`
	Acct         string `json:"acct"`
	Username     string `json:"username"`
	Locked       bool   `json:"locked"`
	Relationship struct {
		Following  string `json:"following"`
		FollowedBy string `json:"followed_by"`
		Blocking   bool   `json:"blocking"`
	} `json:"relationship"`
}

type follow struct {
	ID    string `json:"id"`
	Actor actor  `json:"actor"`
	State string `json:"state"`
}

type localPost struct {
	ID      string `json:"id"`
	URL     string `json:"url"`
	Content string `json:"content"`
}

type remotePost struct {
	ID        string `json:"id"`
	URI       string `json:"uri"`
	Type      string `json:"type"`
	Name      string `json:"name"`
	External  bool   `json:"external"`
	Content   string `json:"content"`
	InReplyTo string `json:"in_reply_to"`
	UpdatedAt string `json:"updated_at"`
	Actor     actor  `json:"actor"`
}

type timelineItem struct {
	Kind      string     `json:"kind"`
	Post      remotePost `json:"post"` // a local post decodes into the shared fields
	BoostedBy *actor     `json:"boosted_by"`
}

type notification struct {
	Kind       string      `json:"kind"`
	Actor      actor       `json:"actor"`
	Post       *localPost  `json:"post"`
	RemotePost *remotePost `json:"remote_post"`
}

type thread struct {
	Ancestors   []remotePost `json:"ancestors"`
	Post        remotePost   `json:"post"`
	Descendants []remotePost `json:"descendants"`
}

type deliveries struct {
	Delivered, Pending, Failed, Skipped int
	Inboxes                             []struct {
		Inbox     string `json:"inbox"`
		State     string `json:"state"`
		LastError string `json:"last_error"`
	} `json:"inboxes"`
}

type page[T any] struct {
	Items []T `json:"items"`
}

// list calls a paged method (limit 100) and returns its items.
func list[T any](t *testing.T, in *fedtest.Instance, method string, params map[string]any) []T {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["limit"] = 100
	var p page[T]
	in.Call(t, method, params, &p)
	return p.Items
}

// walk is one run of the life cycle; each step records what the next ones
// need.
type walk struct {
	a, b *fedtest.Instance
	tag  string // in post texts, to tell the runs apart in logs

	bobOnA, aliceOnB actor      // each owner as the other instance caches it
	bobPost          localPost  // bob's note, on beta
	bobPostOnA       remotePost // the same note as alpha received it
	aliceReply       localPost

	poll time.Duration // how often eventually checks; 100 ms when zero
	took []stepTime    // each step's wall time, in walk order
}

// stepTime is how long one step of the walk took: its action and the wait
// until the other side (and, where checked, both) showed its effect.
type stepTime struct {
	name    string
	d       time.Duration
	skipped bool
}

func (w *walk) run(t *testing.T) {
	steps := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"lookup", w.lookup},
		{"follow", w.follow},
		{"follow-locked", w.followLocked},
		{"post", w.post},
		{"article", w.article},
		{"reply", w.reply},
		{"mention", w.mention},
		{"like", w.like},
		{"boost", w.boost},
		{"edit", w.edit},
		{"delete", w.delete},
		{"unfollow", w.unfollow},
		{"block", w.block},
	}
	for _, s := range steps {
		// A failed step stops the walk: the later steps build on it, and
		// their failures would only repeat the first one.
		start, skipped := time.Now(), false
		ok := t.Run(s.name, func(t *testing.T) {
			defer func() { skipped = t.Skipped() }()
			s.fn(t)
		})
		w.took = append(w.took, stepTime{s.name, time.Since(start), skipped})
		if !ok {
			t.Fatalf("step %s failed; the walk stops there", s.name)
		}
	}
}

func (w *walk) eventually(t *testing.T, what string, check func() (bool, string)) {
	t.Helper()
	fedtest.EventuallyEvery(t, w.every(), what, check, w.a, w.b)
}

// every is how often the walk polls.
func (w *walk) every() time.Duration {
	if w.poll == 0 {
		return 100 * time.Millisecond
	}
	return w.poll
}

// lookup: each finds the other by @user@host (WebFinger, then a signed
// fetch of the actor).
func (w *walk) lookup(t *testing.T) {
	w.a.Call(t, "actors.lookup", map[string]any{"q": w.b.Acct()}, &w.bobOnA)
	if w.bobOnA.URI != w.b.ActorURL() || w.bobOnA.Acct != "bob@"+w.b.Domain || w.bobOnA.ID == "" {
		t.Fatalf("alpha: actors.lookup(%s) = %+v; want uri %s, acct bob@%s", w.b.Acct(), w.bobOnA, w.b.ActorURL(), w.b.Domain)
	}
	w.b.Call(t, "actors.lookup", map[string]any{"q": w.a.Acct()}, &w.aliceOnB)
	if w.aliceOnB.URI != w.a.ActorURL() || w.aliceOnB.ID == "" {
		t.Fatalf("beta: actors.lookup(%s) = %+v; want uri %s", w.a.Acct(), w.aliceOnB, w.a.ActorURL())
	}
	// By actor URL too, answered from the cache.
	var again actor
	w.a.Call(t, "actors.lookup", map[string]any{"q": w.b.ActorURL()}, &again)
	if again.ID != w.bobOnA.ID {
		t.Errorf("alpha: lookup by URL gave id %s; by acct %s", again.ID, w.bobOnA.ID)
	}
}

// follow: alice follows bob, who is not locked: accepted at once.
func (w *walk) follow(t *testing.T) {
	var f follow
	w.a.Call(t, "follows.create", map[string]any{"actor_id": w.bobOnA.ID}, &f)
	if f.State != "pending" && f.State != "accepted" {
		t.Errorf("alpha: follows.create state %q; want pending or accepted", f.State)
	}
	w.eventually(t, "alpha's follow of bob accepted", func() (bool, string) {
		return hasFollow(t, w.a, "follows.list", w.b.ActorURL(), "accepted")
	})
	w.eventually(t, "alice among beta's followers", func() (bool, string) {
		return hasFollow(t, w.b, "followers.list", w.a.ActorURL(), "")
	})
	w.eventually(t, "beta notified of alice's follow", func() (bool, string) {
		return notified(t, w.b, "follow", w.a.ActorURL(), nil)
	})
}

// follow-locked: alice locks her persona; bob's follow waits until she
// approves it.
func (w *walk) followLocked(t *testing.T) {
	var alice struct {
		ID string `json:"id"`
	}
	w.a.Call(t, "personas.get", map[string]any{}, &alice) // the primary persona
	w.a.Call(t, "personas.update", map[string]any{"id": alice.ID, "locked": true}, nil)
	var f follow
	w.b.Call(t, "follows.create", map[string]any{"actor_id": w.aliceOnB.ID}, &f)
	w.eventually(t, "bob's request pending on alpha", func() (bool, string) {
		return hasFollow(t, w.a, "followers.pending", w.b.ActorURL(), "")
	})
	w.eventually(t, "alpha notified of bob's follow request", func() (bool, string) {
		return notified(t, w.a, "follow_request", w.b.ActorURL(), nil)
	})
	if ok, got := hasFollow(t, w.b, "follows.list", w.a.ActorURL(), "pending"); !ok {
		t.Fatalf("beta: bob's follow of alice is not pending before approval: %s", got)
	}
	if ok, got := hasFollow(t, w.a, "followers.list", w.b.ActorURL(), ""); ok {
		t.Fatalf("alpha: bob is a follower before approval: %s", got)
	}
	w.a.Call(t, "followers.approve", map[string]any{"actor_id": w.bobOnA.ID}, nil)
	w.eventually(t, "bob's follow of alice accepted on beta", func() (bool, string) {
		return hasFollow(t, w.b, "follows.list", w.a.ActorURL(), "accepted")
	})
	w.eventually(t, "bob among alpha's followers", func() (bool, string) {
		return hasFollow(t, w.a, "followers.list", w.b.ActorURL(), "")
	})
}

// post: bob's public note reaches alice's home timeline.
func (w *walk) post(t *testing.T) {
	w.b.Call(t, "posts.create", map[string]any{"content": "hello from bob (" + w.tag + ")"}, &w.bobPost)
	w.eventually(t, "bob's note in alice's home timeline", func() (bool, string) {
		p, ok, got := inTimeline(t, w.a, w.bobPost)
		w.bobPostOnA = p
		return ok, got
	})
	if !strings.Contains(w.bobPostOnA.Content, "hello from bob") {
		t.Errorf("alpha: the note's content is %q", w.bobPostOnA.Content)
	}
	if w.bobPostOnA.Actor.URI != w.b.ActorURL() {
		t.Errorf("alpha: the note's actor is %q; want %s", w.bobPostOnA.Actor.URI, w.b.ActorURL())
	}
	// Bob sees where it went: one inbox on alpha (its shared inbox), delivered.
	w.eventually(t, "beta's posts.deliveries showing alpha's inbox delivered", func() (bool, string) {
		var d deliveries
		w.b.Call(t, "posts.deliveries", map[string]any{"id": w.bobPost.ID}, &d)
		alpha := 0
		for _, in := range d.Inboxes {
			if strings.HasPrefix(in.Inbox, w.a.Base+"/") && in.State == "delivered" {
				alpha++
			}
		}
		return alpha == 1 && d.Failed == 0, fmt.Sprintf("%+v", d)
	})
}

// article: bob's article reaches alpha as an Article, shown as its title
// linking to the original (as Mastodon shows one); the same with
// federate_as "note" arrives as a Note, in full, the title first.
func (w *walk) article(t *testing.T) {
	for _, c := range []struct{ as, typ string }{{"article", "Article"}, {"note", "Note"}} {
		var p localPost
		w.b.Call(t, "posts.create", map[string]any{"kind": "article", "title": "Title as " + c.as,
			"content": "The body of the " + c.as + ".", "federate_as": c.as}, &p)
		var got remotePost
		w.eventually(t, "bob's article (as "+c.as+") in alice's home timeline", func() (bool, string) {
			var ok bool
			var seen string
			got, ok, seen = inTimeline(t, w.a, p)
			return ok, seen
		})
		if got.Type != c.typ {
			t.Errorf("alpha: an article federated as %s arrived as %q; want %s", c.as, got.Type, c.typ)
		}
		switch c.typ {
		case "Article":
			if !got.External || !strings.Contains(got.Content, p.URL) || !strings.Contains(got.Content, "Title as article") {
				t.Errorf("alpha: the Article is not shown as its title linking to %s: external=%v %q", p.URL, got.External, got.Content)
			}
		case "Note":
			if got.External || !strings.Contains(got.Content, "Title as note") || !strings.Contains(got.Content, "The body of the note") {
				t.Errorf("alpha: the article federated as a Note is not shown in full with its title: external=%v %q", got.External, got.Content)
			}
		}
	}
}

// reply: alice replies to bob's note; bob is notified and both threads
// hold the pair.
func (w *walk) reply(t *testing.T) {
	w.a.Call(t, "posts.create", map[string]any{"content": "a reply from alice (" + w.tag + ")",
		"in_reply_to": w.bobPostOnA.URI}, &w.aliceReply)
	w.eventually(t, "beta notified of alice's reply", func() (bool, string) {
		return notified(t, w.b, "reply", w.a.ActorURL(), func(n notification) bool {
			return n.RemotePost != nil && strings.Contains(n.RemotePost.Content, "a reply from alice")
		})
	})
	w.eventually(t, "alice's reply below bob's note on beta", func() (bool, string) {
		var th thread
		if err := w.b.Try("posts.get_thread", map[string]any{"id": w.bobPost.ID}, &th); err != nil {
			return false, err.Error()
		}
		for _, d := range th.Descendants {
			if strings.Contains(d.Content, "a reply from alice") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("descendants %+v", th.Descendants)
	})
	var th thread
	w.a.Call(t, "posts.get_thread", map[string]any{"id": w.aliceReply.ID}, &th)
	if len(th.Ancestors) != 1 || th.Ancestors[0].URI != w.bobPostOnA.URI {
		t.Errorf("alpha: the reply's ancestors are %+v; want bob's note %s", th.Ancestors, w.bobPostOnA.URI)
	}
}

// mention: alice mentions bob in a post that is not a reply.
func (w *walk) mention(t *testing.T) {
	if strings.Contains(w.b.Domain, ":") {
		// Off port 80 (no permission to bind it) the domain has a port, and
		// "@bob@host:port" is not mention syntax, as in Mastodon's.
		t.Skipf("beta's domain %s carries a port: no mention syntax for it", w.b.Domain)
	}
	if _, err := netip.ParseAddr(w.b.Domain); err == nil {
		// An address is not a host of mention syntax either; a real
		// process (murlog.cgi) reaches no test name but an address.
		t.Skipf("beta's domain %s is an IP address: no mention syntax for it", w.b.Domain)
	}
	var p localPost
	w.a.Call(t, "posts.create", map[string]any{"content": "ping " + w.b.Acct() + " (" + w.tag + ")"}, &p)
	if !strings.Contains(p.Content, w.b.ActorURL()) {
		t.Errorf("alpha: the mention does not link to bob's actor %s: %s", w.b.ActorURL(), p.Content)
	}
	w.eventually(t, "beta notified of alice's mention", func() (bool, string) {
		return notified(t, w.b, "mention", w.a.ActorURL(), func(n notification) bool {
			return n.RemotePost != nil && strings.Contains(n.RemotePost.Content, "ping")
		})
	})
}

// like: alice favourites bob's note.
func (w *walk) like(t *testing.T) {
	w.a.Call(t, "favourites.create", map[string]any{"post_id": w.bobPostOnA.ID}, nil)
	w.eventually(t, "beta notified of alice's like", func() (bool, string) {
		return notified(t, w.b, "favourite", w.a.ActorURL(), func(n notification) bool {
			return n.Post != nil && n.Post.ID == w.bobPost.ID
		})
	})
}

// boost: alice boosts bob's note.
func (w *walk) boost(t *testing.T) {
	w.a.Call(t, "reblogs.create", map[string]any{"post_id": w.bobPostOnA.ID}, nil)
	w.eventually(t, "beta notified of alice's boost", func() (bool, string) {
		return notified(t, w.b, "reblog", w.a.ActorURL(), func(n notification) bool {
			return n.Post != nil && n.Post.ID == w.bobPost.ID
		})
	})
}

// edit: bob edits his note; alpha's cached copy follows.
func (w *walk) edit(t *testing.T) {
	w.b.Call(t, "posts.update", map[string]any{"id": w.bobPost.ID, "content": "edited by bob (" + w.tag + ")"}, nil)
	w.eventually(t, "alpha's copy of bob's note edited", func() (bool, string) {
		var th thread
		if err := w.a.Try("posts.get_thread", map[string]any{"uri": w.bobPostOnA.URI}, &th); err != nil {
			return false, err.Error()
		}
		return strings.Contains(th.Post.Content, "edited by bob") && th.Post.UpdatedAt != "", fmt.Sprintf("%+v", th.Post)
	})
}

// delete: bob deletes his note; it leaves alpha, and its URL answers 410.
func (w *walk) delete(t *testing.T) {
	w.b.Call(t, "posts.delete", map[string]any{"id": w.bobPost.ID}, nil)
	w.eventually(t, "bob's note gone from alice's home timeline", func() (bool, string) {
		_, in, got := inTimeline(t, w.a, w.bobPost)
		return !in, got
	})
	if err := w.a.Try("posts.get_thread", map[string]any{"uri": w.bobPostOnA.URI}, nil); err == nil {
		t.Errorf("alpha: posts.get_thread of the deleted note still answers")
	}
	// Bob's request renders the deletion before it answers, within its
	// budget; on a loaded machine what it leaves is the job's, which
	// renders a deletion first (prerender/TestADeletionIsWithdrawnFirst).
	path := strings.TrimPrefix(w.bobPostOnA.URI, w.b.Base)
	w.eventually(t, "beta: GET "+path+" (activity+json) answering 410 Gone", func() (bool, string) {
		status, body := w.b.Get(t, path, "application/activity+json")
		return status == http.StatusGone, fmt.Sprintf("%d %.300s", status, body)
	})
}

// unfollow: alice stops following bob.
func (w *walk) unfollow(t *testing.T) {
	w.a.Call(t, "follows.delete", map[string]any{"actor_id": w.bobOnA.ID}, nil)
	if ok, got := hasFollow(t, w.a, "follows.list", w.b.ActorURL(), ""); ok {
		t.Errorf("alpha: still follows bob after follows.delete: %s", got)
	}
	w.eventually(t, "alice gone from beta's followers", func() (bool, string) {
		ok, got := hasFollow(t, w.b, "followers.list", w.a.ActorURL(), "")
		return !ok, got
	})
}

// block: alice follows bob again, then bob blocks her: the follows both
// ways end on both sides, and bob's next post is not delivered to alpha.
func (w *walk) block(t *testing.T) {
	w.a.Call(t, "follows.create", map[string]any{"actor_id": w.bobOnA.ID}, nil)
	w.eventually(t, "alice following bob again", func() (bool, string) {
		return hasFollow(t, w.b, "followers.list", w.a.ActorURL(), "")
	})
	w.b.Call(t, "blocks.create", map[string]any{"actor_id": w.aliceOnB.ID}, nil)
	blocked := list[actor](t, w.b, "blocks.list", nil)
	if len(blocked) != 1 || blocked[0].URI != w.a.ActorURL() {
		t.Errorf("beta: blocks.list = %+v; want alice", blocked)
	}
	for _, c := range []struct {
		in     *fedtest.Instance
		method string
		who    string
	}{
		{w.b, "followers.list", w.a.ActorURL()}, // alice no longer follows bob …
		{w.a, "follows.list", w.b.ActorURL()},
		{w.b, "follows.list", w.a.ActorURL()}, // … nor bob alice
		{w.a, "followers.list", w.b.ActorURL()},
	} {
		w.eventually(t, fmt.Sprintf("%s: %s without %s", c.in.Name, c.method, c.who), func() (bool, string) {
			ok, got := hasFollow(t, c.in, c.method, c.who, "")
			return !ok, got
		})
	}
	var p localPost
	w.b.Call(t, "posts.create", map[string]any{"content": "after the block (" + w.tag + ")"}, &p)
	fedtest.SettleEvery(t, w.every(), w.a, w.b)
	var d deliveries
	w.b.Call(t, "posts.deliveries", map[string]any{"id": p.ID}, &d)
	for _, in := range d.Inboxes {
		if strings.HasPrefix(in.Inbox, w.a.Base) {
			t.Errorf("beta: the post after the block went to alpha's inbox %s (%s)", in.Inbox, in.State)
		}
	}
	if _, in, got := inTimeline(t, w.a, p); in {
		t.Errorf("alpha: bob's post after the block is in alice's timeline: %s", got)
	}
}

// hasFollow reports whether a follows/followers page lists the actor uri
// (in state, when state is not empty).
func hasFollow(t *testing.T, in *fedtest.Instance, method, uri, state string) (bool, string) {
	t.Helper()
	items := list[follow](t, in, method, nil)
	var seen []string
	for _, f := range items {
		if f.Actor.URI == uri && (state == "" || f.State == state) {
			return true, ""
		}
		seen = append(seen, f.Actor.URI+" "+f.State)
	}
	return false, fmt.Sprintf("%s %s: %v", in.Name, method, seen)
}

// notified reports whether in has a notification of kind from the actor
// uri that satisfies match (any, when match is nil).
func notified(t *testing.T, in *fedtest.Instance, kind, uri string, match func(notification) bool) (bool, string) {
	t.Helper()
	items := list[notification](t, in, "notifications.list", map[string]any{"kinds": []string{kind}})
	var seen []string
	for _, n := range items {
		if n.Kind == kind && n.Actor.URI == uri && (match == nil || match(n)) {
			return true, ""
		}
		seen = append(seen, fmt.Sprintf("%s from %s", n.Kind, n.Actor.URI))
	}
	return false, fmt.Sprintf("%s notifications: %v", in.Name, seen)
}

// inTimeline looks for a post of the other instance (by its id at the end
// of the uri) among in's home timeline's remote items.
func inTimeline(t *testing.T, in *fedtest.Instance, p localPost) (remotePost, bool, string) {
	t.Helper()
	items := list[timelineItem](t, in, "timeline.home", nil)
	var seen []string
	for _, it := range items {
		if it.Kind == "remote" && (it.Post.URI == p.URL || strings.HasSuffix(it.Post.URI, "/"+p.ID)) {
			return it.Post, true, ""
		}
		seen = append(seen, it.Kind+" "+it.Post.URI)
	}
	return remotePost{}, false, fmt.Sprintf("%s timeline: %v", in.Name, seen)
}
