package activitypub

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/murlog/murlog"
)

// note returns a Create(Note) document with extra fields merged into the
// Note, for the bad-input table.
func note(t testing.TB, extra map[string]any) []byte {
	t.Helper()
	n := map[string]any{"id": "https://a.example/notes/1", "type": "Note", "attributedTo": "https://a.example/users/x", "content": "<p>hi</p>"}
	for k, v := range extra {
		n[k] = v
	}
	b, err := json.Marshal(map[string]any{"id": "https://a.example/notes/1/activity", "type": "Create", "actor": "https://a.example/users/x", "object": n})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func strs(n int, f string) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf(f, i)
	}
	return out
}

func objs(n int, typ string) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"type": typ, "name": fmt.Sprint("n", i), "href": fmt.Sprintf("https://a.example/%d", i), "url": fmt.Sprintf("https://a.example/m/%d", i), "value": "v"}
	}
	return out
}

func TestDecodeBadInput(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"type":"Note","object":`, MaxDepth) + `"https://a.example/x"` + strings.Repeat("}", MaxDepth)
	deep = `{"id":"https://a.example/a","type":"Create","object":` + deep + "}"
	contentMap := map[string]any{}
	for i := 0; i <= MaxContentMap; i++ {
		contentMap[fmt.Sprint("l", i)] = "x"
	}
	tests := []struct {
		name  string
		body  []byte
		field string // the field the error must name
		cap   string // the cap the message must name
	}{
		{"body over 1 MB", append(note(t, nil), make([]byte, MaxBody)...), "body", "MaxBody"},
		{"malformed JSON", []byte(`{"id":"https://a.example/1","type":"Note",`), "body", "malformed"},
		{"not an object", []byte(`["https://a.example/1"]`), "body", "malformed"},
		{"wrong type for id", []byte(`{"id":42,"type":"Note"}`), "body", "malformed"},
		{"missing id", []byte(`{"type":"Note","content":"x"}`), "id", "missing"},
		{"non-http id", []byte(`{"id":"urn:uuid:1","type":"Note"}`), "id", "absolute"},
		{"relative id", []byte(`{"id":"/notes/1","type":"Note"}`), "id", "absolute"},
		{"javascript actor", []byte(`{"id":"https://a.example/1","type":"Like","actor":"javascript:alert(1)"}`), "actor", "absolute"},
		{"non-http embedded id", note(t, map[string]any{"id": "ftp://a.example/n"}), "object.id", "absolute"},
		{"deep nesting", []byte(deep), "body", "MaxDepth"},
		{"content over 100 KB", note(t, map[string]any{"content": strings.Repeat("a", MaxContent+1)}), "object.content", "MaxContent"},
		{"summary over 100 KB", note(t, map[string]any{"summary": strings.Repeat("é", MaxContent/2+1)}), "object.summary", "MaxContent"},
		{"contentMap over cap", note(t, map[string]any{"contentMap": contentMap}), "object.contentMap", "MaxContentMap"},
		{"contentMap value over 100 KB", note(t, map[string]any{"contentMap": map[string]any{"en": strings.Repeat("a", MaxContent+1)}}), "object.contentMap", "MaxContent"},
		{"to+cc over cap", note(t, map[string]any{"to": strs(MaxAddress/2+1, "https://a.example/u/%d"), "cc": strs(MaxAddress/2, "https://b.example/u/%d")}), "object.to", "MaxAddress"},
		{"tags over cap", note(t, map[string]any{"tag": objs(MaxTags+1, "Hashtag")}), "object.tag", "MaxTags"},
		{"attachments over cap", note(t, map[string]any{"attachment": objs(MaxAttachments+1, "Document")}), "object.attachment", "MaxAttachments"},
		{"fields over cap", note(t, map[string]any{"attachment": objs(MaxFields+1, "PropertyValue")}), "object.attachment", "MaxFields"},
		{"name over cap", note(t, map[string]any{"name": strings.Repeat("n", MaxNameLen+1)}), "object.name", "MaxNameLen"},
		{"long IRI", note(t, map[string]any{"inReplyTo": "https://a.example/" + strings.Repeat("p", MaxIRI)}), "object.inReplyTo", "MaxIRI"},
		{"keys over cap", []byte(`{"id":"https://a.example/u","type":"Person","publicKey":[` + strings.TrimSuffix(strings.Repeat(`{"id":"https://a.example/u#k","owner":"https://a.example/u","publicKeyPem":"x"},`, MaxKeys+1), ",") + `]}`), "publicKey", "MaxKeys"},
		{"items over cap", []byte(`{"id":"https://a.example/c","type":"OrderedCollectionPage","orderedItems":[` + strings.TrimSuffix(strings.Repeat(`"https://a.example/n",`, MaxItems+1), ",") + `]}`), "orderedItems", "MaxItems"},
		{"objects over cap", []byte(`{"id":"https://a.example/a","type":"Delete","object":[` + strings.TrimSuffix(strings.Repeat(`"https://a.example/n",`, MaxRefs+1), ",") + `]}`), "object", "MaxRefs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Decode(tt.body)
			if err == nil {
				t.Fatalf("Decode = %+v, nil; want an EInvalid error", o)
			}
			var e *murlog.Error
			if !asError(err, &e) || e.Code != murlog.EInvalid {
				t.Fatalf("Decode error = %#v; want *murlog.Error EInvalid", err)
			}
			if e.Field != tt.field || !strings.Contains(e.Message, tt.cap) {
				t.Errorf("Decode error = field %q message %q; want field %q, message naming %q", e.Field, e.Message, tt.field, tt.cap)
			}
		})
	}
}

// A remote actor with a 10 MB summary is refused by the body cap before
// any JSON is decoded.
func TestDecodeHugeSummaryActor(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"https://a.example/u","type":"Person","summary":"` + strings.Repeat("A", 10<<20) + `"}`)
	if _, err := Decode(body); murlog.ErrorCode(err) != murlog.EInvalid || !strings.Contains(err.Error(), "MaxBody") {
		t.Fatalf("Decode(10 MB summary) = %v; want EInvalid naming MaxBody", err)
	}
}

// Exactly at every cap is accepted: the caps refuse only what exceeds them.
func TestDecodeAtCaps(t *testing.T) {
	t.Parallel()
	body := note(t, map[string]any{
		"content": strings.Repeat("a", MaxContent), "summary": strings.Repeat("b", MaxContent),
		"tag": objs(MaxTags, "Mention"), "attachment": objs(MaxAttachments, "Document"),
		"to": strs(MaxAddress, "https://a.example/u/%d"),
	})
	o, err := Decode(body)
	if err != nil {
		t.Fatalf("Decode(at caps) = %v", err)
	}
	if n := o.Object.First().Object; len(n.Tag) != MaxTags || len(n.To) != MaxAddress {
		t.Errorf("tags, to = %d, %d; want %d, %d", len(n.Tag), len(n.To), MaxTags, MaxAddress)
	}
}

// The loose shapes remote servers send decode to the same values.
func TestDecodeLooseShapes(t *testing.T) {
	t.Parallel()
	body := `{"@context":"https://www.w3.org/ns/activitystreams","id":"https://a.example/n","type":["Note"],
	  "attributedTo":[{"id":"https://a.example/u","type":"Person"}],
	  "to":"https://www.w3.org/ns/activitystreams#Public","cc":[{"id":"https://a.example/u/followers"}],
	  "inReplyTo":{"id":"https://b.example/p","type":"Note"},
	  "url":[{"type":"Link","mediaType":"video/mp4","href":"https://a.example/v.mp4"},{"type":"Link","mediaType":"text/html","href":"https://a.example/w/1"}],
	  "tag":{"type":"Hashtag","name":"#one","href":"https://a.example/t/one"},
	  "attachment":{"type":"Document","url":{"type":"Link","href":"https://a.example/f.png"},"width":"x"},
	  "sensitive":"true","published":"not a date","icon":[{"url":"https://a.example/i.png"}],
	  "quoteUrl":"https://b.example/q","_misskey_content":"ignored","unknown":{"deep":[1,2]}}`
	o, err := Decode([]byte(body))
	if err != nil {
		t.Fatalf("Decode = %v", err)
	}
	eq(t, "type", o.Type, "Note")
	eq(t, "attributedTo", o.AttributedTo.First().ID, "https://a.example/u")
	eq(t, "inReplyTo", o.InReplyTo, "https://b.example/p")
	eq(t, "url", o.URL, "https://a.example/w/1")
	eq(t, "quote", o.QuoteOf, "https://b.example/q")
	eq(t, "icon", o.Icon.URL, "https://a.example/i.png")
	if len(o.Tag) != 1 || len(o.Attachment) != 1 || o.Attachment[0].URL != "https://a.example/f.png" {
		t.Errorf("tag, attachment = %+v, %+v", o.Tag, o.Attachment)
	}
	if !o.Sensitive || !o.Published.IsZero() || len(o.To) != 1 || o.Cc[0] != "https://a.example/u/followers" {
		t.Errorf("sensitive, published, to, cc = %v, %v, %v, %v", o.Sensitive, o.Published, o.To, o.Cc)
	}
}

func TestKeyByIDForms(t *testing.T) {
	t.Parallel()
	o := &Object{ID: "https://a.example/u", PublicKey: []PublicKey{{ID: "https://a.example/u#main-key", Owner: "https://a.example/u", PublicKeyPem: "PEM"}}}
	for _, tt := range []struct {
		keyID string
		ok    bool
	}{
		{"https://a.example/u#main-key", true},
		{"https://a.example/u/main-key", true},
		{"https://a.example/u", true}, // the actor's only key
		{"https://a.example/u#other-key", false},
		{"https://b.example/u#main-key", false},
		{"", false},
	} {
		if k, ok := o.KeyByID(tt.keyID); ok != tt.ok || (ok && k.PEM != "PEM") {
			t.Errorf("KeyByID(%q) = %+v, %v; want ok %v", tt.keyID, k, ok, tt.ok)
		}
	}
}

func asError(err error, target **murlog.Error) bool {
	e, ok := err.(*murlog.Error)
	*target = e
	return ok
}

func BenchmarkDecodeCreate(b *testing.B) {
	body, err := os.ReadFile("testdata/mastodon/create_note.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeCreateMap decodes the same document into map[string]any
// with no checks: the reference BenchmarkDecodeCreate is read against,
// since absolute figures depend on the machine's load.
func BenchmarkDecodeCreateMap(b *testing.B) {
	body, err := os.ReadFile("testdata/mastodon/create_note.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			b.Fatal(err)
		}
	}
}
