package inbox_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/store"
)

// servers are the fixture sets: each server's actor and its activities.
var servers = []struct{ name, actor string }{
	{"mastodon", "mastodon/actor.json"},
	{"misskey", "misskey/actor.json"},
	{"gotosocial", "gotosocial/actor.json"},
}

func (e *penv) follower(a *murlog.RemoteActor) *murlog.Follower {
	e.t.Helper()
	return find(e, func(tx store.Tx) (*murlog.Follower, error) { return tx.Followers().GetByActor(e.owner.ID, a.ID) })
}

func TestProcessFollowAndUndo(t *testing.T) {
	t.Parallel()
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			e := newPenv(t)
			a := e.fixtureActor(s.actor)
			follow := fixture(t, s.name+"/follow.json")
			e.ok(a.URI, follow)
			e.ok(a.URI, follow) // delivered twice
			f := e.follower(a)
			if f == nil || f.State != murlog.FollowAccepted {
				t.Fatalf("follower = %+v; want accepted", f)
			}
			if got := e.notifications(); !slices.Equal(got, kinds(murlog.NotifyFollow)) {
				t.Errorf("notifications = %v; want one follow", got)
			}
			e.ok(a.URI, fixture(t, s.name+"/undo_follow.json"))
			e.ok(a.URI, fixture(t, s.name+"/undo_follow.json"))
			if f := e.follower(a); f != nil {
				t.Errorf("follower after Undo = %+v; want none", f)
			}
		})
	}
	t.Run("unknown persona ignored", func(t *testing.T) {
		e := newPenv(t)
		a := e.fixtureActor("mastodon/actor.json")
		e.ok(a.URI, fixture(t, "mastodon/follow.json", "https://blog.example/@owner", "https://blog.example/@nobody"))
		if f := e.follower(a); f != nil {
			t.Errorf("follower of nobody = %+v", f)
		}
		if !strings.Contains(e.logs.String(), "the followed persona does not exist") {
			t.Errorf("no debug line for the ignored follow:\n%s", e.logs)
		}
	})
	t.Run("locked persona, undo by the persona when the id is unknown", func(t *testing.T) {
		e := newPenv(t)
		e.owner.Locked = true
		e.update(func(tx store.Tx) error { return tx.Personas().Update(e.owner) })
		a := e.fixtureActor("misskey/actor.json")
		e.ok(a.URI, fixture(t, "misskey/follow.json"))
		if f := e.follower(a); f == nil || f.State != murlog.FollowPending {
			t.Fatalf("follower = %+v; want pending", f)
		}
		if got := e.notifications(); !slices.Equal(got, kinds(murlog.NotifyFollowRequest)) {
			t.Errorf("notifications = %v", got)
		}
		e.ok(a.URI, fixture(t, "misskey/undo_follow.json", "https://misskey.example/follows/9abcdefg/9owner00", "https://misskey.example/follows/lost"))
		if f := e.follower(a); f != nil {
			t.Errorf("follower after Undo = %+v; want none", f)
		}
	})
}

func (e *penv) pendingFollow(a *murlog.RemoteActor, activityURI string) *murlog.Follow {
	e.t.Helper()
	f := &murlog.Follow{ID: murlog.NewID(), PersonaID: e.owner.ID, ActorID: a.ID, ActivityURI: activityURI,
		State: murlog.FollowPending, CreatedAt: time.Now()}
	e.update(func(tx store.Tx) error { return tx.Follows().Create(f) })
	return f
}

func (e *penv) followState(a *murlog.RemoteActor) murlog.FollowState {
	e.t.Helper()
	if f := find(e, func(tx store.Tx) (*murlog.Follow, error) { return tx.Follows().GetByActor(e.owner.ID, a.ID) }); f != nil {
		return f.State
	}
	return ""
}

func TestProcessAcceptReject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, actor, answer, follow string
		replace                     []string
	}{
		{"mastodon embedded", "mastodon/actor.json", "mastodon/accept_embedded.json", "https://blog.example/@owner/activities/follow-1", nil},
		{"mastodon iri", "mastodon/actor.json", "mastodon/accept_iri.json", "https://blog.example/@owner/activities/follow-2", nil},
		{"misskey", "misskey/actor.json", "misskey/accept.json", "https://blog.example/@owner/activities/follow-3", nil},
		{"gotosocial", "gotosocial/actor.json", "gotosocial/accept.json", "https://blog.example/@owner/activities/follow-4", nil},
		// A server that lost our Follow's id: matched by persona and actor.
		{"embedded, unknown id", "mastodon/actor.json", "mastodon/accept_embedded.json", "https://blog.example/@owner/activities/other",
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newPenv(t)
			a := e.fixtureActor(tc.actor)
			e.pendingFollow(a, tc.follow)
			accept := fixture(t, tc.answer)
			e.ok(a.URI, accept)
			e.ok(a.URI, accept)
			if got := e.followState(a); got != murlog.FollowAccepted {
				t.Errorf("after Accept: follow %q; want accepted", got)
			}
			e.ok(a.URI, strings.Replace(accept, `"Accept"`, `"Reject"`, 1))
			if got := e.followState(a); got != "" {
				t.Errorf("after Reject: follow %q; want removed", got)
			}
		})
	}
	t.Run("an unknown id alone accepts nothing", func(t *testing.T) {
		e := newPenv(t)
		a := e.fixtureActor("mastodon/actor.json")
		e.pendingFollow(a, "https://blog.example/@owner/activities/other")
		e.ok(a.URI, fixture(t, "mastodon/accept_iri.json"))
		if got := e.followState(a); got != murlog.FollowPending {
			t.Errorf("follow %q after an Accept of something else; want pending", got)
		}
	})
	t.Run("accept by another actor", func(t *testing.T) {
		e := newPenv(t)
		alice := e.fixtureActor("mastodon/actor.json")
		carol := e.fixtureActor("gotosocial/actor.json")
		e.pendingFollow(alice, "https://blog.example/@owner/activities/follow-2")
		err := e.refused(carol.URI, fixture(t, "mastodon/accept_iri.json", "https://mastodon.example/users/alice", carol.URI))
		if got := e.followState(alice); got != murlog.FollowPending {
			t.Errorf("follow %q after a forged accept (%v); want pending", got, err)
		}
		if !strings.Contains(e.logs.String(), "inbox activity refused") {
			t.Errorf("no log line for the refusal:\n%s", e.logs)
		}
	})
}

func (e *penv) interaction(uri string) *murlog.Interaction {
	e.t.Helper()
	return find(e, func(tx store.Tx) (*murlog.Interaction, error) { return tx.Interactions().GetByActivity(uri) })
}

func TestProcessLikeAndUndo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, actor, like, reaction string
	}{
		{"mastodon", "mastodon/actor.json", "mastodon/like.json", ""},
		{"misskey custom emoji", "misskey/actor.json", "misskey/like.json", ":blobcat:"},
		{"misskey unicode", "misskey/actor.json", "misskey/like_unicode.json", "👍"},
		{"gotosocial", "gotosocial/actor.json", "gotosocial/like.json", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, a, body := aboutPost(t, tc.actor, tc.like)
			id := jsonOf(t, []byte(body))["id"].(string)
			i := e.interaction(id)
			if i == nil || i.Kind != murlog.InteractionLike || i.ActorID != a.ID {
				t.Fatalf("like = %+v", i)
			}
			if tc.reaction != "" && i.Content != tc.reaction {
				t.Errorf("reaction = %q; want %q", i.Content, tc.reaction)
			}
			if got := e.notifications(); !slices.Equal(got, kinds(murlog.NotifyFavourite)) {
				t.Errorf("notifications = %v; want one favourite", got)
			}
			undo := `{"id":"` + a.URI + `#undo-like","type":"Undo","actor":"` + a.URI + `","object":` + body + `}`
			e.ok(a.URI, undo)
			if i := e.interaction(id); i != nil {
				t.Errorf("like after Undo = %+v", i)
			}
		})
	}
	t.Run("like of a remote post ignored", func(t *testing.T) {
		e := newPenv(t)
		a := e.fixtureActor("mastodon/actor.json")
		e.ok(a.URI, fixture(t, "mastodon/like.json", "https://blog.example/@owner/01HPOST", "https://elsewhere.example/notes/1"))
		if i := e.interaction("https://mastodon.example/users/alice#likes/12"); i != nil {
			t.Errorf("stored %+v", i)
		}
	})
}

func (e *penv) blockedBy(a *murlog.RemoteActor) bool {
	e.t.Helper()
	var by bool
	e.view(func(tx store.Tx) (err error) { by, err = tx.Blocks().IsBlockedBy(e.owner.ID, a.ID); return err })
	return by
}

func TestProcessBlockAndUndo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, actor, block string }{
		{"mastodon", "mastodon/actor.json", "mastodon/block.json"},
		{"gotosocial", "gotosocial/actor.json", "gotosocial/block.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newPenv(t)
			a := e.fixtureActor(tc.actor)
			e.follow(a)
			body := fixture(t, tc.block)
			e.ok(a.URI, body)
			e.ok(a.URI, body)
			if !e.blockedBy(a) {
				t.Fatal("not recorded as blocked by the actor")
			}
			if got := e.followState(a); got != "" {
				t.Errorf("follow %q after Block; want dropped", got)
			}
			e.ok(a.URI, `{"id":"`+a.URI+`#undo-block","type":"Undo","actor":"`+a.URI+`","object":`+body+`}`)
			if e.blockedBy(a) {
				t.Error("still blocked after Undo Block")
			}
		})
	}
}

func TestProcessMove(t *testing.T) {
	t.Parallel()
	e := newPenv(t)
	alice := e.fixtureActor("mastodon/actor.json")
	e.follow(alice)
	newActor := func(aka string) string {
		return `{"id":"{base}/users/alice2","type":"Person","preferredUsername":"alice2","inbox":"{base}/users/alice2/inbox",
			"alsoKnownAs":["` + aka + `"]}`
	}
	target := e.remote.put("/users/alice2", newActor("https://mastodon.example/users/someone-else"))
	move := fixture(t, "mastodon/move.json", "https://new.example/users/alice", target)
	e.refused(alice.URI, move)
	if got := e.notifications(); len(got) != 0 {
		t.Errorf("notifications after an unproven Move = %v", got)
	}
	e.remote.put("/users/alice2", newActor(alice.URI))
	e.ok(alice.URI, move)
	e.ok(alice.URI, move)
	var a *murlog.RemoteActor
	e.view(func(tx store.Tx) (err error) { a, err = tx.RemoteActors().Get(alice.ID); return err })
	if a.MovedTo != target {
		t.Errorf("movedTo = %q; want %q", a.MovedTo, target)
	}
	if got := e.notifications(); !slices.Equal(got, kinds(murlog.NotifyMove)) {
		t.Errorf("notifications = %v; want one move", got)
	}
	if got := e.followState(alice); got != murlog.FollowAccepted {
		t.Errorf("follow %q; a Move must not migrate it", got)
	}
}

func TestProcessQuoteRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		vis      murlog.Visibility
		noQuotes bool
		want     string
	}{
		{"public post accepted", murlog.VisibilityPublic, false, "Accept"},
		{"unlisted post accepted", murlog.VisibilityUnlisted, false, "Accept"},
		{"followers-only post rejected", murlog.VisibilityFollowers, false, "Reject"},
		{"quotes not allowed", murlog.VisibilityPublic, true, "Reject"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newPenv(t)
			if tc.noQuotes {
				no := false
				if _, err := settings.New(e.db).Update(ctx, settings.Update{AllowQuotes: &no}); err != nil {
					t.Fatal(err)
				}
			}
			dave := e.actor(strings.ReplaceAll(`{"id":"{base}/users/dave","type":"Person","preferredUsername":"dave",
				"inbox":"{base}/users/dave/inbox","followers":"{base}/users/dave/followers"}`, "{base}", e.remote.srv.URL))
			_, uri := e.post(tc.vis)
			req := `{"id":"` + dave.URI + `/quote-requests/1","type":"QuoteRequest","actor":"` + dave.URI + `",
				"object":"` + uri + `","instrument":{"id":"` + dave.URI + `/statuses/9","type":"Note","attributedTo":"` + dave.URI + `"}}`
			e.ok(dave.URI, req)
			e.ok(dave.URI, req) // one answer for two deliveries
			e.runJobs()
			got := e.remote.posts()
			if len(got) != 1 {
				t.Fatalf("%d answers sent; want 1", len(got))
			}
			m := jsonOf(t, got[0])
			if m["type"] != tc.want || m["actor"] != procSite.ActorURL("owner") {
				t.Fatalf("answer = %s", got[0])
			}
			obj, _ := m["object"].(map[string]any)
			if obj["id"] != dave.URI+"/quote-requests/1" || obj["object"] != uri || obj["instrument"] != dave.URI+"/statuses/9" {
				t.Errorf("answer's object = %v", obj)
			}
			res, _ := m["result"].(map[string]any)
			if tc.want == "Accept" {
				if res["type"] != "QuoteAuthorization" || res["interactingObject"] != dave.URI+"/statuses/9" ||
					res["interactionTarget"] != uri || !strings.HasPrefix(res["id"].(string), procSite.Base()) {
					t.Errorf("result = %v", res)
				}
				// The consent's id answers, which is how a server checks it,
				// until the owner stops allowing quotes.
				h := federation.New(federation.Deps{Site: procSite, Store: e.db})
				authz := func() *httptest.ResponseRecorder {
					u, _ := url.Parse(res["id"].(string))
					req := httptest.NewRequest("GET", u.Path, nil)
					req.Header.Set("Accept", "application/activity+json")
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					return w
				}
				if w := authz(); w.Code != 200 || !strings.Contains(w.Body.String(), `"type":"QuoteAuthorization"`) ||
					!strings.Contains(w.Body.String(), `"interactingObject":"`+dave.URI+`/statuses/9"`) {
					t.Errorf("GET the QuoteAuthorization: %d %s; want 200 with the authorization", w.Code, w.Body)
				}
				no := false
				if _, err := settings.New(e.db).Update(ctx, settings.Update{AllowQuotes: &no}); err != nil {
					t.Fatal(err)
				}
				h.Invalidate()
				if w := authz(); w.Code != 404 {
					t.Errorf("GET the QuoteAuthorization after allow_quotes off: %d; want 404 (withdrawn)", w.Code)
				}
			} else if res != nil {
				t.Errorf("a Reject with a result: %v", res)
			}
		})
	}
}

func TestProcessBadInput(t *testing.T) {
	t.Parallel()
	e := newPenv(t)
	alice := e.fixtureActor("mastodon/actor.json")
	carol := e.fixtureActor("gotosocial/actor.json")
	for _, tc := range []struct{ name, actor, body, reason string }{
		{"malformed JSON", alice.URI, `{"id":"https://mastodon.example/x","type":"Follow",`, "malformed JSON"},
		{"actor is not the signer", carol.URI, fixture(t, "mastodon/follow.json"), "is not its signer"},
		{"deep nesting", alice.URI, `{"id":"https://mastodon.example/x","type":"Note","a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, "MaxDepth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(e.notifications())
			err := e.refused(tc.actor, tc.body)
			if !strings.Contains(err.Error(), tc.reason) || !strings.Contains(e.logs.String(), tc.reason) {
				t.Errorf("err = %v; want it and a log line naming %q\n%s", err, tc.reason, e.logs)
			}
			if f := e.follower(alice); f != nil || len(e.notifications()) != before {
				t.Errorf("a refused activity wrote: follower %+v", f)
			}
		})
	}
	t.Run("other types acknowledged", func(t *testing.T) {
		e.ok(alice.URI, `{"id":"https://mastodon.example/flag/1","type":"Flag","actor":"`+alice.URI+`","object":"https://blog.example/@owner"}`)
		if !strings.Contains(e.logs.String(), "type not handled") {
			t.Errorf("no debug line for an ignored type:\n%s", e.logs)
		}
	})
}

func TestProcessJobRegistered(t *testing.T) {
	t.Parallel()
	e := newPenv(t)
	a := e.fixtureActor("mastodon/actor.json")
	id := e.item(a.URI, fixture(t, "mastodon/follow.json"))
	e.update(func(tx store.Tx) error {
		return tx.Jobs().Enqueue(queueJob(t, inbox.TopicProcess, `{"item":"`+id+`"}`))
	})
	e.runJobs()
	if f := e.follower(a); f == nil {
		t.Fatal("the inbox.process job did not process its item")
	}
	if it := e.stored(id); !it.Done || it.Body != nil {
		t.Errorf("item not done after processing: %+v", it)
	}
}

// TestProcessThroughTheApp follows a signed Follow from the inbox
// endpoint through the app's worker: the inbox.process job registered by
// the app processes the stored item.
func TestProcessThroughTheApp(t *testing.T) {
	t.Parallel()
	s, c := inboxSite(t)
	rm := newRemote(t)
	ann := rm.add(&remoteActor{name: "ann", key: readKey(t, "rsa-a")})
	uri := rm.actorURI(ann)
	body := []byte(`{"@context":"https://www.w3.org/ns/activitystreams","id":"` + uri + `/follows/1","type":"Follow",
		"actor":"` + uri + `","object":"` + s.Server.URL + `/@alice"}`)
	wantStatus(t, send(t, rm.signed(t, s.Server.URL, "/@alice/inbox", ann, body, httpsig.Cavage, c.now())), http.StatusAccepted, "follow")
	if _, err := s.App.NewWorker("test").RunOnce(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	a := storedActor(t, s, uri)
	var f *murlog.Follower
	err := s.App.Store().View(ctx, func(tx store.Tx) error {
		p, err := tx.Personas().Primary()
		if err != nil {
			return err
		}
		f, err = tx.Followers().GetByActor(p.ID, a.ID)
		return err
	})
	if err != nil || f.State != murlog.FollowAccepted {
		t.Fatalf("follower = %+v, %v; want accepted\n%s", f, err, s.Logs)
	}
}
