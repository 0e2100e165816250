package inbox_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

const wpActor = `{"id":"https://wp.example/?author=1","type":"Person","preferredUsername":"editor",
	"inbox":"https://wp.example/wp-json/activitypub/1.0/users/1/inbox","followers":"https://wp.example/wp-json/activitypub/1.0/users/1/followers"}`

func TestProcessCreate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, actor, create, uri string
		typ                      string
		vis                      murlog.Visibility
		contains                 []string // in the stored content
		notified                 []murlog.NotificationKind
		title                    string
		alts                     []string // the stored attachments' alt texts
	}{
		{name: "mastodon note", actor: "mastodon/actor.json", create: "mastodon/create_note.json",
			uri: "https://mastodon.example/users/alice/statuses/111", typ: "Note", vis: murlog.VisibilityPublic,
			alts: []string{"A cat asleep on a keyboard"}},
		{name: "gotosocial mention", actor: "gotosocial/actor.json", create: "gotosocial/create_note.json",
			uri: "https://gts.example/users/carol/statuses/01HGTSNOTE", typ: "Note", vis: murlog.VisibilityFollowers,
			contains: []string{`class="h-card"`, `class="u-url mention"`}, notified: kinds(murlog.NotifyMention),
			alts: []string{"a tree in the snow"}},
		{name: "misskey note", actor: "misskey/actor.json", create: "misskey/create_note.json",
			uri: "https://misskey.example/notes/9xyz0001", typ: "Note", alts: []string{"", "キーボードの上で眠る猫"}},
		{name: "mastodon question", actor: "mastodon/actor.json", create: "mastodon/question.json",
			uri: "https://mastodon.example/users/alice/statuses/113", typ: "Question", vis: murlog.VisibilityPublic,
			contains: []string{"Tabs or spaces?", `href="https://mastodon.example/users/alice/statuses/113"`}},
		{name: "misskey question", actor: "misskey/actor.json", create: "misskey/question.json",
			uri: "https://misskey.example/notes/9poll001", typ: "Question"},
		{name: "wordpress article", create: "wordpress/article.json", uri: "https://wp.example/?p=42", typ: "Article",
			vis: murlog.VisibilityPublic, alts: []string{"rack"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newPenv(t)
			var a *murlog.RemoteActor
			if tc.actor == "" {
				a = e.actor(wpActor)
			} else {
				a = e.fixtureActor(tc.actor)
			}
			body := fixture(t, tc.create)
			e.ok(a.URI, body)
			e.ok(a.URI, body)
			p := e.remotePost(tc.uri)
			if p == nil {
				t.Fatalf("%s not stored", tc.uri)
			}
			if p.Type != tc.typ || p.ActorID != a.ID || (tc.vis != "" && p.Visibility != tc.vis) {
				t.Errorf("stored %s %s by %s; want %s %s by %s", p.Visibility, p.Type, p.ActorID, tc.vis, tc.typ, a.ID)
			}
			for _, s := range tc.contains {
				if !strings.Contains(p.Content, s) {
					t.Errorf("content %q lacks %q", p.Content, s)
				}
			}
			var alts []string
			for _, at := range p.Attachments {
				alts = append(alts, at.Name)
			}
			if !slices.Equal(alts, tc.alts) {
				t.Errorf("stored alt texts %q; want %q", alts, tc.alts)
			}
			if got := e.notifications(); !slices.Equal(got, tc.notified) {
				t.Errorf("notifications = %v; want %v", got, tc.notified)
			}
			if tc.typ == "Article" {
				if p.Name == "" || p.URL == "" || !strings.Contains(p.Content, `href="`+p.URL+`"`) || !strings.Contains(p.Content, p.Name) {
					t.Errorf("article stored as name %q url %q content %q; want a link to the original", p.Name, p.URL, p.Content)
				}
				if !strings.HasSuffix(p.Content, "<p>A short post about running my own server.</p>") {
					t.Errorf("the article's description is not shown under its title: %q", p.Content)
				}
				if p.Summary != "" {
					t.Errorf("an article's summary became a content warning: %q", p.Summary)
				}
			}
		})
	}
}

func TestProcessCreateAudience(t *testing.T) {
	t.Parallel()
	e := newPenv(t)
	alice := e.fixtureActor("mastodon/actor.json")
	local, localURI := e.post(murlog.VisibilityPublic)
	note := func(id, extra string) string {
		return `{"id":"` + alice.URI + `/statuses/` + id + `/activity","type":"Create","actor":"` + alice.URI + `",
			"object":{"id":"` + alice.URI + `/statuses/` + id + `","type":"Note","attributedTo":"` + alice.URI + `",
			"content":"<p>hi</p>",` + extra + `}}`
	}
	t.Run("reply to a local post", func(t *testing.T) {
		e.ok(alice.URI, note("r1", `"to":["https://www.w3.org/ns/activitystreams#Public"],"inReplyTo":"`+localURI+`"`))
		if p := e.remotePost(alice.URI + "/statuses/r1"); p == nil || p.InReplyTo != localURI {
			t.Fatalf("reply stored as %+v", p)
		}
		if got := e.notifications(); !slices.Equal(got, kinds(murlog.NotifyReply)) {
			t.Errorf("notifications = %v; want a reply", got)
		}
	})
	t.Run("direct message", func(t *testing.T) {
		e.ok(alice.URI, note("dm1", `"to":["https://blog.example/@owner"]`))
		p := e.remotePost(alice.URI + "/statuses/dm1")
		if p == nil || p.Visibility != murlog.VisibilityDirect {
			t.Fatalf("direct message stored as %+v", p)
		}
		if got := e.notifications(); got[0] != murlog.NotifyMention {
			t.Errorf("notifications = %v; want a mention first", got)
		}
		tl := e.timeline()
		if len(tl) == 0 || tl[0].RemotePost.URI != p.URI {
			t.Errorf("the direct message is not in the timeline")
		}
	})
	t.Run("followed author's post in the timeline", func(t *testing.T) {
		e.follow(alice)
		e.ok(alice.URI, note("f1", `"to":["`+alice.URI+`/followers"]`))
		if tl := e.timeline(); tl[0].RemotePost.URI != alice.URI+"/statuses/f1" {
			t.Errorf("timeline starts with %s", tl[0].RemotePost.URI)
		}
	})
	_ = local
}

func TestProcessQuotes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, actor, create, uri string }{
		{"mastodon", "mastodon/actor.json", "mastodon/quote.json", "https://mastodon.example/users/alice/statuses/114"},
		{"misskey", "misskey/actor.json", "misskey/quote.json", "https://misskey.example/notes/9xyz0002"},
	} {
		t.Run(tc.name+" quotes a local post", func(t *testing.T) {
			e := newPenv(t)
			a := e.fixtureActor(tc.actor)
			_, uri := e.post(murlog.VisibilityPublic)
			e.ok(a.URI, fixture(t, tc.create, "https://blog.example/@owner/01HPOST", uri))
			p := e.remotePost(tc.uri)
			if p == nil || p.QuoteOf != uri {
				t.Fatalf("quote stored as %+v; want QuoteOf %s", p, uri)
			}
			if got := e.notifications(); !slices.Contains(got, murlog.NotifyQuote) {
				t.Errorf("notifications = %v; want a quote", got)
			}
		})
	}
	t.Run("quote of a remote post fetches it", func(t *testing.T) {
		e := newPenv(t)
		alice := e.fixtureActor("mastodon/actor.json")
		e.remote.put("/users/erin", `{"id":"{base}/users/erin","type":"Person","preferredUsername":"erin","inbox":"{base}/users/erin/inbox"}`)
		quoted := e.remote.put("/notes/1", `{"id":"{base}/notes/1","type":"Note","attributedTo":"{base}/users/erin",
			"to":["https://www.w3.org/ns/activitystreams#Public"],"content":"<p>original</p>"}`)
		e.ok(alice.URI, fixture(t, "mastodon/quote.json", "https://blog.example/@owner/01HPOST", quoted))
		if p := e.remotePost(quoted); p == nil || p.Content != "<p>original</p>" {
			t.Fatalf("quoted post cached as %+v", p)
		}
		if p := e.remotePost("https://mastodon.example/users/alice/statuses/114"); p == nil || p.QuoteOf != quoted {
			t.Errorf("quote stored as %+v", p)
		}
	})
}

func TestProcessSanitizes(t *testing.T) {
	t.Parallel()
	e := newPenv(t)
	alice := e.fixtureActor("mastodon/actor.json")
	evil := `<p>hi<script>alert(1)</script><a href=\"javascript:alert(2)\">x</a><img src=x onerror=\"alert(3)\"><span onclick=\"alert(4)\" class=\"mention\">y</span></p>`
	e.ok(alice.URI, `{"id":"`+alice.URI+`/statuses/e1/activity","type":"Create","actor":"`+alice.URI+`",
		"object":{"id":"`+alice.URI+`/statuses/e1","type":"Note","attributedTo":"`+alice.URI+`","to":["https://www.w3.org/ns/activitystreams#Public"],
		"content":"`+evil+`","summary":"<b onmouseover=\"alert(5)\">cw</b>"}}`)
	p := e.remotePost(alice.URI + "/statuses/e1")
	if p == nil {
		t.Fatal("not stored")
	}
	for _, bad := range []string{"<script", "javascript:", "onerror", "onclick", "onmouseover", "alert(1)", "<img"} {
		if strings.Contains(p.Content, bad) || strings.Contains(p.Summary, bad) {
			t.Errorf("stored HTML keeps %q: content %q summary %q", bad, p.Content, p.Summary)
		}
	}
	if !strings.Contains(p.Content, `class="mention"`) {
		t.Errorf("the mention class was dropped: %q", p.Content)
	}
	t.Run("actor fields", func(t *testing.T) {
		e.ok(alice.URI, `{"id":"`+alice.URI+`#updates/evil","type":"Update","actor":"`+alice.URI+`","object":{"id":"`+alice.URI+`",
			"type":"Person","preferredUsername":"alice","inbox":"`+alice.URI+`/inbox","name":"<b>Alice</b><script>x</script>",
			"summary":"<p onclick=\"x()\">bio<script>alert(1)</script></p>",
			"attachment":[{"type":"PropertyValue","name":"<i>web</i>","value":"<a href=\"javascript:alert(1)\">site</a>"}]}}`)
		var a *murlog.RemoteActor
		e.view(func(tx store.Tx) (err error) { a, err = tx.RemoteActors().Get(alice.ID); return err })
		all := a.DisplayName + a.Summary + a.Fields[0].Name + a.Fields[0].Value
		for _, bad := range []string{"<script", "javascript:", "onclick", "<b>", "<i>"} {
			if strings.Contains(all, bad) {
				t.Errorf("actor keeps %q: %+v", bad, a)
			}
		}
		if a.Summary != "<p>bio</p>" || a.PublicKeyPEM == "" {
			t.Errorf("summary %q, key kept %v", a.Summary, a.PublicKeyPEM != "")
		}
	})
}

func TestProcessUpdate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, actor, create, update, uri string }{
		{"mastodon", "mastodon/actor.json", "mastodon/create_note.json", "mastodon/update_note.json", "https://mastodon.example/users/alice/statuses/111"},
		{"gotosocial", "gotosocial/actor.json", "gotosocial/create_note.json", "gotosocial/update_note.json", "https://gts.example/users/carol/statuses/01HGTSNOTE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newPenv(t)
			a := e.fixtureActor(tc.actor)
			e.ok(a.URI, fixture(t, tc.create))
			before := e.remotePost(tc.uri)
			e.ok(a.URI, fixture(t, tc.update))
			after := e.remotePost(tc.uri)
			if after.UpdatedAt == nil || after.Content == before.Content {
				t.Errorf("not updated: before %q, after %q (updated %v)", before.Content, after.Content, after.UpdatedAt)
			}
		})
	}
	t.Run("by another actor refused", func(t *testing.T) {
		e := newPenv(t)
		alice := e.fixtureActor("mastodon/actor.json")
		carol := e.fixtureActor("gotosocial/actor.json")
		e.ok(alice.URI, fixture(t, "mastodon/create_note.json"))
		before := e.remotePost("https://mastodon.example/users/alice/statuses/111")
		update := fixture(t, "mastodon/update_note.json")
		// Carol sends Alice's update as her own activity: attributedTo is
		// Alice, the actor Carol.
		e.refused(carol.URI, strings.Replace(update, `"actor": "https://mastodon.example/users/alice"`, `"actor": "`+carol.URI+`"`, 1))
		// Carol claims the post as hers: the stored owner is Alice.
		e.refused(carol.URI, strings.ReplaceAll(update, "https://mastodon.example/users/alice\"", carol.URI+"\""))
		after := e.remotePost("https://mastodon.example/users/alice/statuses/111")
		if after.Content != before.Content || after.UpdatedAt != nil {
			t.Errorf("an Update by another actor wrote: %q", after.Content)
		}
		if n := strings.Count(e.logs.String(), "inbox activity refused"); n != 2 {
			t.Errorf("%d refusal lines; want 2:\n%s", n, e.logs)
		}
		e.refused(carol.URI, fixture(t, "mastodon/update_person.json", `"actor": "https://mastodon.example/users/alice"`, `"actor": "`+carol.URI+`"`))
	})
	t.Run("person", func(t *testing.T) {
		e := newPenv(t)
		alice := e.fixtureActor("mastodon/actor.json")
		e.ok(alice.URI, fixture(t, "mastodon/update_person.json"))
		var a *murlog.RemoteActor
		e.view(func(tx store.Tx) (err error) { a, err = tx.RemoteActors().Get(alice.ID); return err })
		if a.ID != alice.ID || a.UpdatedAt.Equal(alice.UpdatedAt) {
			t.Errorf("actor not refreshed: %+v", a)
		}
	})
}

func TestProcessDelete(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, actor, create, del, uri string }{
		{"mastodon", "mastodon/actor.json", "mastodon/create_note.json", "mastodon/delete_note.json", "https://mastodon.example/users/alice/statuses/111"},
		{"misskey", "misskey/actor.json", "misskey/create_note.json", "misskey/delete_note.json", "https://misskey.example/notes/9xyz0001"},
		{"gotosocial", "gotosocial/actor.json", "gotosocial/create_note.json", "gotosocial/delete_note.json", "https://gts.example/users/carol/statuses/01HGTSNOTE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newPenv(t)
			a := e.fixtureActor(tc.actor)
			e.ok(a.URI, fixture(t, tc.create))
			carol := e.actor(`{"id":"https://other.example/users/mallory","type":"Person","preferredUsername":"mallory","inbox":"https://other.example/users/mallory/inbox"}`)
			del := fixture(t, tc.del)
			e.refused(carol.URI, strings.Replace(del, `"actor": "`+a.URI+`"`, `"actor": "`+carol.URI+`"`, 1))
			if e.remotePost(tc.uri) == nil {
				t.Fatal("deleted by another actor")
			}
			e.ok(a.URI, del)
			e.ok(a.URI, del)
			if p := e.remotePost(tc.uri); p != nil {
				t.Errorf("still stored after Delete: %+v", p)
			}
		})
	}
	t.Run("actor", func(t *testing.T) {
		e := newPenv(t)
		alice := e.fixtureActor("mastodon/actor.json")
		carol := e.fixtureActor("gotosocial/actor.json")
		del := fixture(t, "mastodon/delete_actor.json")
		e.refused(carol.URI, strings.Replace(del, `"actor": "`+alice.URI+`"`, `"actor": "`+carol.URI+`"`, 1))
		e.follow(alice)
		e.ok(alice.URI, del)
		var err error
		e.db.View(ctx, func(tx store.Tx) error { _, err = tx.RemoteActors().Get(alice.ID); return nil })
		if murlog.ErrorCode(err) != murlog.ENotFound {
			t.Errorf("actor still cached after its Delete (%v)", err)
		}
	})
}

func TestProcessAnnounce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, actor, announce string }{
		{"mastodon", "mastodon/actor.json", "mastodon/announce.json"},
		{"misskey", "misskey/actor.json", "misskey/announce.json"},
		{"gotosocial", "gotosocial/actor.json", "gotosocial/announce.json"},
	} {
		t.Run(tc.name+" of a local post", func(t *testing.T) {
			e, a, body := aboutPost(t, tc.actor, tc.announce)
			if got := e.notifications(); !slices.Equal(got, kinds(murlog.NotifyReblog)) {
				t.Errorf("notifications = %v; want one reblog", got)
			}
			id := jsonOf(t, []byte(body))["id"].(string)
			if i := e.interaction(id); i == nil || i.Kind != murlog.InteractionAnnounce {
				t.Fatalf("boost = %+v", i)
			}
			e.ok(a.URI, `{"id":"`+a.URI+`#undo-boost","type":"Undo","actor":"`+a.URI+`","object":`+body+`}`)
			if i := e.interaction(id); i != nil {
				t.Errorf("boost after Undo = %+v", i)
			}
		})
	}
	t.Run("of a remote post", func(t *testing.T) {
		e := newPenv(t)
		alice := e.fixtureActor("mastodon/actor.json")
		e.remote.put("/users/erin", `{"id":"{base}/users/erin","type":"Person","preferredUsername":"erin","inbox":"{base}/users/erin/inbox",
			"followers":"{base}/users/erin/followers"}`)
		public := e.remote.put("/notes/pub", `{"id":"{base}/notes/pub","type":"Note","attributedTo":"{base}/users/erin",
			"to":["https://www.w3.org/ns/activitystreams#Public"],"content":"<p>boost me</p>"}`)
		private := e.remote.put("/notes/priv", `{"id":"{base}/notes/priv","type":"Note","attributedTo":"{base}/users/erin",
			"to":["{base}/users/erin/followers"],"content":"<p>secret</p>"}`)
		announce := func(n, object string) string {
			return `{"id":"` + alice.URI + `/statuses/` + n + `/activity","type":"Announce","actor":"` + alice.URI + `",
				"to":["https://www.w3.org/ns/activitystreams#Public"],"object":"` + object + `"}`
		}
		e.ok(alice.URI, announce("b0", public))
		if e.remote.fetches() != 0 || e.remotePost(public) != nil {
			t.Errorf("a boost by an actor nobody follows was fetched (%d) or stored", e.remote.fetches())
		}
		e.follow(alice)
		e.ok(alice.URI, announce("b1", public))
		e.ok(alice.URI, announce("b1", public))
		tl := e.timeline()
		if len(tl) != 1 || tl[0].RemotePost.URI != public || tl[0].Entry.BoostedBy != alice.ID {
			t.Fatalf("timeline = %+v; want the boost of %s", tl, public)
		}
		err := e.refused(alice.URI, announce("b2", private))
		if e.remotePost(private) != nil {
			t.Error("a private object boosted was stored")
		}
		if !strings.Contains(err.Error(), "not public") || !strings.Contains(e.logs.String(), "not public") {
			t.Errorf("refusal %v not logged with its reason:\n%s", err, e.logs)
		}
		// A server that is down is retried: not refused, the item kept.
		id := e.item(alice.URI, announce("b3", e.remote.srv.URL+"/down/1"))
		if err := e.proc.Process(ctx, id); err == nil || queue.IsPermanent(err) {
			t.Errorf("fetch from a server answering 503: err = %v; want a retry", err)
		}
		if it := e.stored(id); it.Done || len(it.Body) == 0 {
			t.Error("an item to retry was marked done")
		}
		e.ok(alice.URI, `{"id":"`+alice.URI+`#undo-b1","type":"Undo","actor":"`+alice.URI+`","object":`+announce("b1", public)+`}`)
		if tl := e.timeline(); len(tl) != 0 {
			t.Errorf("timeline after Undo Announce = %d entries", len(tl))
		}
	})
}

// BenchmarkProcessCreate is the inbox job on a Create of a public Note
// by a followed actor: decode, sanitize, store, one timeline entry.
func BenchmarkProcessCreate(b *testing.B) {
	e := newPenv(b)
	a := e.fixtureActor("mastodon/actor.json")
	e.follow(a)
	body := fixture(b, "mastodon/create_note.json")
	b.ResetTimer()
	for i := range b.N {
		n := strconv.Itoa(i)
		if err := e.deliver(a.URI, strings.ReplaceAll(body, "statuses/111", "statuses/b"+n)); err != nil {
			b.Fatal(err)
		}
	}
}
