package activitypub

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nested is a Create whose object nests depth arrays and objects deep in
// all, counting the outer object.
func nested(depth int) []byte {
	inner := `"https://a.example/x"`
	for i := 0; i < depth-1; i++ {
		inner = `{"type":"Note","id":"https://a.example/n","object":` + inner + `}`
	}
	return []byte(`{"type":"Create","id":"https://a.example/c","actor":"https://a.example/u","object":` + inner + `}`)
}

// The nesting cap is 10, as docs/federation.md says: a document 10 deep
// decodes, 11 is refused, and the deepest real shape — an outbox page
// embedding a Create of a Note with an emoji tag's icon and an embedded
// replies page — fits with room to spare.
func TestNestingCap(t *testing.T) {
	t.Parallel()
	if _, err := Decode(nested(10)); err != nil {
		t.Errorf("a document 10 deep: %v; want it decoded", err)
	}
	if _, err := Decode(nested(11)); err == nil || !strings.Contains(err.Error(), "MaxDepth") {
		t.Errorf("a document 11 deep: %v; want refused naming MaxDepth", err)
	}
	page := `{"@context":["https://www.w3.org/ns/activitystreams",{"toot":"http://joinmastodon.org/ns#","Emoji":"toot:Emoji"}],
	"id":"https://m.example/users/a/outbox?page=true","type":"OrderedCollectionPage","orderedItems":[
	{"id":"https://m.example/users/a/statuses/1/activity","type":"Create","actor":"https://m.example/users/a",
	 "object":{"id":"https://m.example/users/a/statuses/1","type":"Note","attributedTo":"https://m.example/users/a",
	  "content":"<p>:blob:</p>","tag":[{"type":"Emoji","name":":blob:","icon":{"type":"Image","url":"https://m.example/e.png"}}],
	  "attachment":[{"type":"Document","url":"https://m.example/f.png","focalPoint":[0.1,0.2]}],
	  "interactionPolicy":{"canQuote":{"automaticApproval":["https://www.w3.org/ns/activitystreams#Public"]}},
	  "replies":{"id":"https://m.example/users/a/statuses/1/replies","type":"Collection",
	   "first":{"type":"CollectionPage","items":["https://m.example/users/a/statuses/2"]}}}}]}`
	if err := checkDepth([]byte(page)); err != nil {
		t.Errorf("a Mastodon outbox page: %v", err)
	}
	files, _ := filepath.Glob("testdata/*/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkDepth(b); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	doc, err := os.ReadFile("../docs/federation.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "| nesting depth | 10 |") || MaxDepth != 10 {
		t.Errorf("MaxDepth = %d; docs/federation.md and this test say 10", MaxDepth)
	}
}
