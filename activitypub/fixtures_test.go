package activitypub

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murlog/murlog"
)

// want is what a fixture must decode to; empty fields are not checked.
type want struct {
	typ, actor, objectID, objectType string
	visibility                       murlog.Visibility // of the embedded object, else of the activity
	followers                        string            // the sender's followers collection for VisibilityOf
	inReplyTo, quote, reaction       string
	tags                             []string // Type:Name of each tag of the post
	attachments                      int
	keyID, keyPrefix                 string // KeyByID(keyID) must find material starting with keyPrefix
	check                            func(t *testing.T, o *Object)
}

const (
	mAlice = "https://mastodon.example/users/alice"
	kBob   = "https://misskey.example/users/9abcdefg"
	gCarol = "https://gts.example/users/carol"
	owner  = "https://blog.example/@owner"
	post   = "https://blog.example/@owner/01HPOST"
	pem    = "-----BEGIN PUBLIC KEY-----"
)

var fixtures = map[string]want{
	"mastodon/actor.json": {typ: "Person", keyID: mAlice + "#main-key", keyPrefix: pem, check: func(t *testing.T, o *Object) {
		eq(t, "featured", o.Featured, mAlice+"/collections/featured")
		eq(t, "sharedInbox", o.Endpoints.SharedInbox, "https://mastodon.example/inbox")
		eq(t, "preferredUsername", o.PreferredUsername, "alice")
		if fs := o.Fields(); len(fs) != 2 || fs[0].Name != "Blog" || !strings.Contains(fs[0].Value, "alice.example") {
			t.Errorf("Fields() = %+v; want Blog and Pronouns", fs)
		}
		if o.Icon == nil || !strings.HasSuffix(o.Icon.URL, "avatar.png") || o.Image == nil {
			t.Errorf("icon, image = %+v, %+v", o.Icon, o.Image)
		}
		if !o.IsActor() || !o.Discoverable || o.ManuallyApprovesFollowers {
			t.Errorf("IsActor, discoverable, locked = %v %v %v", o.IsActor(), o.Discoverable, o.ManuallyApprovesFollowers)
		}
		if _, ok := o.KeyByID(mAlice + "/main-key"); !ok {
			t.Error("KeyByID(/main-key form) found nothing for a #main-key actor")
		}
	}},
	"mastodon/actor_ed25519.json": {typ: "Person", keyID: mAlice + "#ed25519-key", keyPrefix: "z6Mk"},
	"mastodon/create_note.json": {typ: "Create", actor: mAlice, objectID: mAlice + "/statuses/111", objectType: "Note",
		visibility: murlog.VisibilityPublic, followers: mAlice + "/followers",
		inReplyTo: gCarol + "/statuses/01HREPLY", tags: []string{"Mention:@carol@gts.example", "Hashtag:#golang"}, attachments: 1,
		check: func(t *testing.T, o *Object) {
			n := o.Object.First().Object
			eq(t, "url", n.URL, "https://mastodon.example/@alice/111")
			eq(t, "replies", n.Replies.ID, mAlice+"/statuses/111/replies")
			eq(t, "contentMap[en]", n.ContentMap["en"], "<p>see #golang</p>")
			if a := n.Attachment[0]; a.Width != 1200 || a.Blurhash == "" || a.Name == "" {
				t.Errorf("attachment = %+v", a)
			}
			wantAltTexts("A cat asleep on a keyboard")(t, o)
			if n.Published.IsZero() || n.AttributedTo.First().ID != mAlice {
				t.Errorf("published, attributedTo = %v, %v", n.Published, n.AttributedTo)
			}
		}},
	"mastodon/followers.json": {typ: "OrderedCollection", check: func(t *testing.T, o *Object) {
		if o.TotalItems != 1234 || o.First.ID != mAlice+"/followers?page=1" {
			t.Errorf("totalItems, first = %d, %q", o.TotalItems, o.First.ID)
		}
	}},
	"mastodon/follow.json":          {typ: "Follow", actor: mAlice, objectID: owner},
	"mastodon/accept_embedded.json": {typ: "Accept", actor: mAlice, objectID: owner + "/activities/follow-1", objectType: "Follow"},
	"mastodon/accept_iri.json":      {typ: "Accept", actor: mAlice, objectID: owner + "/activities/follow-2"},
	"mastodon/undo_follow.json":     {typ: "Undo", actor: mAlice, objectType: "Follow", objectID: "https://mastodon.example/4b1c0e7e-1f7a-4f3c-9d0c-6a1d2f3e4b5c"},
	"mastodon/like.json":            {typ: "Like", actor: mAlice, objectID: post},
	"mastodon/announce.json":        {typ: "Announce", actor: mAlice, objectID: post, visibility: murlog.VisibilityPublic},
	"mastodon/delete_note.json":     {typ: "Delete", actor: mAlice, objectID: mAlice + "/statuses/111", objectType: "Tombstone"},
	"mastodon/delete_actor.json":    {typ: "Delete", actor: mAlice, objectID: mAlice},
	"mastodon/update_note.json": {typ: "Update", actor: mAlice, objectType: "Note", objectID: mAlice + "/statuses/111", check: func(t *testing.T, o *Object) {
		if n := o.Object.First().Object; n.Updated.IsZero() || n.Content != "<p>edited</p>" {
			t.Errorf("updated, content = %v, %q", n.Updated, n.Content)
		}
	}},
	"mastodon/update_person.json": {typ: "Update", actor: mAlice, objectType: "Person", objectID: mAlice, check: func(t *testing.T, o *Object) {
		if p := o.Object.First().Object; !p.IsActor() || p.Name != "Alice (away)" || len(p.PublicKey) != 1 {
			t.Errorf("embedded person = %+v", p)
		}
	}},
	"mastodon/move.json":  {typ: "Move", actor: mAlice, objectID: mAlice, check: func(t *testing.T, o *Object) { eq(t, "target", o.Target.ID, "https://new.example/users/alice") }},
	"mastodon/block.json": {typ: "Block", actor: mAlice, objectID: owner},
	"mastodon/question.json": {typ: "Create", actor: mAlice, objectType: "Question", visibility: murlog.VisibilityPublic, check: func(t *testing.T, o *Object) {
		eq(t, "content", o.Object.First().Object.Content, "<p>Tabs or spaces?</p>")
	}},
	"mastodon/quote.json": {typ: "Create", actor: mAlice, objectType: "Note", quote: post, visibility: murlog.VisibilityPublic, check: func(t *testing.T, o *Object) {
		p := o.Object.First().Object.InteractionPolicy
		if p == nil || len(p.CanQuote.AutomaticApproval) != 1 || !IsPublic(p.CanQuote.AutomaticApproval[0]) {
			t.Errorf("interactionPolicy = %+v; want canQuote automatic [Public]", p)
		}
	}},

	"misskey/actor.json": {typ: "Person", keyID: kBob + "#main-key", keyPrefix: pem, check: func(t *testing.T, o *Object) {
		eq(t, "summary", o.Summary, "<p><span>猫です</span></p>")
		eq(t, "sharedInbox", o.Endpoints.SharedInbox, "https://misskey.example/inbox")
		if !o.ManuallyApprovesFollowers || o.Image != nil || len(o.Fields()) != 1 {
			t.Errorf("locked, image, fields = %v, %v, %v", o.ManuallyApprovesFollowers, o.Image, o.Fields())
		}
	}},
	"misskey/create_note.json": {typ: "Create", actor: kBob, objectType: "Note", visibility: murlog.VisibilityPublic,
		tags: []string{"Mention:@alice@mastodon.example", "Hashtag:#misskey", "Emoji::blobcat:"}, attachments: 2,
		check: wantAltTexts("", "キーボードの上で眠る猫")},
	"misskey/like.json":         {typ: "Like", actor: kBob, objectID: post, reaction: ":blobcat:"},
	"misskey/like_unicode.json": {typ: "Like", actor: kBob, objectID: post, reaction: "👍"},
	"misskey/quote.json": {typ: "Create", actor: kBob, objectType: "Note", quote: post,
		visibility: murlog.VisibilityFollowers, followers: kBob + "/followers"},
	"misskey/follow.json":      {typ: "Follow", actor: kBob, objectID: owner},
	"misskey/accept.json":      {typ: "Accept", actor: kBob, objectType: "Follow", objectID: owner + "/activities/follow-3"},
	"misskey/undo_follow.json": {typ: "Undo", actor: kBob, objectType: "Follow"},
	"misskey/announce.json":    {typ: "Announce", actor: kBob, objectID: post, visibility: murlog.VisibilityPublic},
	"misskey/delete_note.json": {typ: "Delete", actor: kBob, objectType: "Tombstone", objectID: "https://misskey.example/notes/9xyz0001"},
	"misskey/question.json":    {typ: "Create", actor: kBob, objectType: "Question"},

	"gotosocial/actor.json": {typ: "Person", keyID: gCarol + "#main-key", keyPrefix: pem, check: func(t *testing.T, o *Object) {
		if k, ok := o.KeyByID(gCarol + "/main-key"); !ok || k.Owner != gCarol {
			t.Errorf("KeyByID(/main-key) = %+v, %v", k, ok)
		}
		eq(t, "sharedInbox", o.Endpoints.SharedInbox, "") // GoToSocial has none
		if len(o.AlsoKnownAs) != 1 || o.Discoverable || !o.ManuallyApprovesFollowers {
			t.Errorf("alsoKnownAs, discoverable, locked = %v %v %v", o.AlsoKnownAs, o.Discoverable, o.ManuallyApprovesFollowers)
		}
	}},
	"gotosocial/main_key_stub.json": {typ: "Person", keyID: gCarol + "/main-key", keyPrefix: pem, check: func(t *testing.T, o *Object) {
		// GoToSocial serves a stub at the key's URL: the key, no inbox.
		eq(t, "inbox", o.Inbox, "")
	}},
	"gotosocial/featured.json": {typ: "OrderedCollection", check: func(t *testing.T, o *Object) {
		if o.TotalItems != 1 || len(o.Items) != 1 || o.Items[0].ID != gCarol+"/statuses/01GS7VTYH0S77NNXTP6W4G9EAG" {
			t.Errorf("totalItems, items = %d, %+v; want the one pinned status given as a bare IRI", o.TotalItems, o.Items)
		}
	}},
	"gotosocial/outbox.json": {typ: "OrderedCollection", check: func(t *testing.T, o *Object) {
		eq(t, "first", o.First.ID, gCarol+"/outbox?page=true")
	}},
	"gotosocial/outbox_page.json": {typ: "OrderedCollectionPage", check: func(t *testing.T, o *Object) {
		eq(t, "partOf", o.PartOf, gCarol+"/outbox")
		eq(t, "next", o.Next.ID, gCarol+"/outbox?max_id=01FJC1Q0E3SSQR59TD2M1KP4V8&page=true")
		if len(o.Items) != 1 || o.Items[0].Object == nil || o.Items[0].Object.Type != "Create" || o.Items[0].Object.Object.First().ID == "" {
			t.Errorf("orderedItems = %+v; want one embedded Create", o.Items)
		}
	}},
	"gotosocial/create_note.json": {typ: "Create", actor: gCarol, objectType: "Note",
		visibility: murlog.VisibilityFollowers, followers: gCarol + "/followers",
		tags: []string{"Mention:@owner@blog.example", "Hashtag:#fedi"}, attachments: 1, check: func(t *testing.T, o *Object) {
			wantAltTexts("a tree in the snow")(t, o)
			p := o.Object.First().Object.InteractionPolicy
			if p == nil || len(p.CanQuote.ManualApproval) != 1 || !IsPublic(p.CanQuote.ManualApproval[0]) {
				t.Errorf("interactionPolicy = %+v", p)
			}
		}},
	"gotosocial/follow.json":      {typ: "Follow", actor: gCarol, objectID: owner},
	"gotosocial/accept.json":      {typ: "Accept", actor: gCarol, objectID: owner + "/activities/follow-4"},
	"gotosocial/undo_follow.json": {typ: "Undo", actor: gCarol, objectType: "Follow"},
	"gotosocial/like.json":        {typ: "Like", actor: gCarol, objectID: post, visibility: murlog.VisibilityDirect},
	"gotosocial/announce.json":    {typ: "Announce", actor: gCarol, objectID: post, visibility: murlog.VisibilityUnlisted},
	"gotosocial/delete_note.json": {typ: "Delete", actor: gCarol, objectID: gCarol + "/statuses/01HGTSNOTE"},
	"gotosocial/update_note.json": {typ: "Update", actor: gCarol, objectType: "Note"},
	"gotosocial/block.json":       {typ: "Block", actor: gCarol, objectID: owner},

	"wordpress/article.json": {typ: "Create", actor: "https://wp.example/?author=1", objectType: "Article",
		visibility: murlog.VisibilityPublic, tags: []string{"Hashtag:#selfhosting"}, attachments: 1, check: func(t *testing.T, o *Object) {
			a := o.Object.First().Object
			eq(t, "name", a.Name, "Why I self-host")
			eq(t, "url", a.URL, "https://wp.example/2024/05/01/why-i-self-host/")
		}},
}

func TestFixtures(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		name := strings.TrimPrefix(filepath.ToSlash(f), "testdata/")
		t.Run(name, func(t *testing.T) {
			w, ok := fixtures[name]
			if !ok {
				t.Fatalf("fixture %s has no expectations in the table", name)
			}
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			o, err := Decode(body)
			if err != nil {
				t.Fatalf("Decode(%s) = %v", name, err)
			}
			checkWant(t, o, w)
		})
	}
	if len(files) != len(fixtures) {
		t.Errorf("%d fixture files, %d table entries", len(files), len(fixtures))
	}
}

func checkWant(t *testing.T, o *Object, w want) {
	t.Helper()
	eq(t, "type", o.Type, w.typ)
	if w.actor != "" {
		eq(t, "actor", o.Actor.ID, w.actor)
	}
	obj := o.Object.First()
	if w.objectID != "" {
		eq(t, "object id", obj.ID, w.objectID)
	}
	if w.objectType != "" {
		if obj.Object == nil {
			t.Fatalf("object = IRI %q; want an embedded %s", obj.ID, w.objectType)
		}
		eq(t, "object type", obj.Object.Type, w.objectType)
	}
	p := o // the post: the embedded object if any
	if obj.Object != nil {
		p = obj.Object
	}
	if w.visibility != "" {
		if got := VisibilityOf(p, w.followers); got != w.visibility {
			t.Errorf("VisibilityOf(%v, %v, %q) = %s; want %s", p.To, p.Cc, w.followers, got, w.visibility)
		}
	}
	if w.inReplyTo != "" {
		eq(t, "inReplyTo", p.InReplyTo, w.inReplyTo)
	}
	if w.quote != "" {
		eq(t, "quoteOf", p.QuoteOf, w.quote)
	}
	if w.reaction != "" {
		eq(t, "_misskey_reaction", o.MisskeyReaction, w.reaction)
		eq(t, "content", o.Content, w.reaction)
	}
	if w.tags != nil {
		var got []string
		for _, tg := range p.Tag {
			got = append(got, tg.Type+":"+tg.Name)
		}
		eq(t, "tags", strings.Join(got, " "), strings.Join(w.tags, " "))
	}
	if w.attachments != 0 && len(p.Attachment) != w.attachments {
		t.Errorf("attachments = %d; want %d", len(p.Attachment), w.attachments)
	}
	if w.keyID != "" {
		k, ok := o.KeyByID(w.keyID)
		if !ok || !strings.HasPrefix(k.PEM+k.Multibase, w.keyPrefix) || k.Owner != o.ID {
			t.Errorf("KeyByID(%q) = %+v, %v; want material starting %q owned by %s", w.keyID, k, ok, w.keyPrefix, o.ID)
		}
	}
	if w.check != nil {
		w.check(t, o)
	}
}

func eq(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %q; want %q", what, got, want)
	}
}

// wantAltTexts checks the descriptions of the attachments of the
// activity's object: Mastodon and Misskey send them as name, GoToSocial
// as summary.
func wantAltTexts(want ...string) func(t *testing.T, o *Object) {
	return func(t *testing.T, o *Object) {
		t.Helper()
		var got []string
		for _, a := range o.Object.First().Object.Attachment {
			got = append(got, a.AltText())
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("alt texts = %q; want %q", got, want)
		}
	}
}

func TestAltTextPrefersSummary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a    Attachment
		want string
	}{
		{Attachment{Name: "a cat"}, "a cat"},                          // Mastodon, Misskey
		{Attachment{Summary: "a cat"}, "a cat"},                       // GoToSocial
		{Attachment{Name: "IMG_0001.jpg", Summary: "a cat"}, "a cat"}, // Honk: name is the file
		{Attachment{Name: "a cat", Summary: "  "}, "a cat"},           // a blank summary says nothing
	} {
		if got := tc.a.AltText(); got != tc.want {
			t.Errorf("%+v.AltText() = %q; want %q", tc.a, got, tc.want)
		}
	}
}

// An Article titled in nameMap only (as murlog sends one) is read with
// that title.
func TestNameMapTitle(t *testing.T) {
	t.Parallel()
	o, err := Decode([]byte(`{"id":"https://a.example/p/1","type":"Article","nameMap":{"ja":"題","en":"Title"},"content":"<p>x</p>"}`))
	if err != nil || o.Name != "Title" {
		t.Errorf("Decode = %+v, %v; want the name of the first language, Title", o, err)
	}
	if o, _ = Decode([]byte(`{"id":"https://a.example/p/1","type":"Article","name":"Plain","nameMap":{"en":"Title"}}`)); o.Name != "Plain" {
		t.Errorf("name %q; want the plain name first", o.Name)
	}
}
