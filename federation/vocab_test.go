package federation_test

import (
	"slices"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/federation"
)

// TestWhatWeWriteWeRead checks that the documents murlog writes and the
// Object it decodes speak one vocabulary: the shared types (PublicKey,
// Endpoints, Image, Tag, InteractionPolicy) come back from Decode equal to
// what the builders put in.
func TestWhatWeWriteWeRead(t *testing.T) {
	t.Parallel()
	p := bpersona()
	p.AvatarPath = "avatars/a.png"
	actor := federation.ActorObject(bsite, p)
	o := decode(t, actor)
	if len(o.PublicKey) != 1 || o.PublicKey[0] != actor.PublicKey {
		t.Errorf("decoded publicKey = %+v; want %+v", o.PublicKey, actor.PublicKey)
	}
	if o.Endpoints != actor.Endpoints {
		t.Errorf("decoded endpoints = %+v; want %+v", o.Endpoints, actor.Endpoints)
	}
	if o.Icon == nil || o.Icon.URL != actor.Icon.URL || o.Icon.MediaType != actor.Icon.MediaType {
		t.Errorf("decoded icon = %+v; want the URL and media type of %+v", o.Icon, actor.Icon)
	}

	post := bpost(murlog.VisibilityPublic)
	post.Tags = []string{"fedi"}
	opts := federation.PostOptions{Mentions: []federation.Mention{{Href: "https://r.example/users/bob", Name: "@bob@r.example"}}}
	note := federation.PostObject(bsite, p, post, opts)
	n := decode(t, note)
	if !slices.Equal(n.Tag, note.Tag) {
		t.Errorf("decoded tags = %+v; want %+v", n.Tag, note.Tag)
	}
	if n.InteractionPolicy == nil || !slices.Equal(n.InteractionPolicy.CanQuote.AutomaticApproval, note.InteractionPolicy.CanQuote.AutomaticApproval) {
		t.Errorf("decoded interactionPolicy = %+v; want %+v", n.InteractionPolicy, note.InteractionPolicy)
	}
}

func decode(t *testing.T, doc any) *activitypub.Object {
	t.Helper()
	b, err := activitypub.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	o, err := activitypub.Decode(b)
	if err != nil {
		t.Fatalf("Decode(%s): %v", b, err)
	}
	return o
}
