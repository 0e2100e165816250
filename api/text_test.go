package api_test

import (
	"strings"
	"testing"

	"github.com/murlog/murlog/internal/testsite"
)

// TestTextIsChecked covers issue 6 point 11: invalid UTF-8 (raw or as an
// unpaired surrogate escape), control characters and, in names, bidi
// controls are refused with a message naming the field, in every method
// that stores text, and nothing is written.
func TestTextIsChecked(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	pid := primary(t, s).ID
	call := func(method, params string) string {
		return `{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `,"id":1}`
	}
	upd := func(params string) string { return call("personas.update", `{"id":"`+pid+`",`+params+`}`) }
	for _, tc := range []struct {
		name, body, field, msg string
	}{
		{"raw invalid UTF-8", call("posts.create", "{\"content\":\"caf\xe9\"}"), "content", "not valid UTF-8 (byte"},
		{"invalid UTF-8 in a nested value", upd("\"fields\":[{\"name\":\"a\",\"value\":\"\xff\"}]"), "fields[0].value", "not valid UTF-8"},
		{"unpaired high surrogate", call("posts.create", `{"content":"x\ud800y"}`), "content", `unpaired surrogate escape \uD800`},
		{"unpaired low surrogate", call("posts.create", `{"content":"\udc00"}`), "content", "unpaired surrogate"},
		{"control character in content", call("posts.create", `{"content":"ring\u0007"}`), "content", "U+0007"},
		{"escape sequence in a title", call("posts.create", `{"kind":"article","title":"\u001b[2J","content":"x"}`), "title", "U+001B"},
		{"C1 control in a summary", call("posts.create", `{"content":"x","summary":"a\u0085b"}`), "summary", "U+0085"},
		{"NUL in a language", call("posts.create", `{"content":"x","language":"ja\u0000"}`), "language", "U+0000"},
		{"bidi override in a display name", upd(`"display_name":"\u202eecila"`), "display_name", "U+202E"},
		{"bidi isolate in a field name", upd(`"fields":[{"name":"a\u2067b","value":"c"}]`), "fields", "U+2067"},
		{"control character in a field value", upd(`"fields":[{"name":"a","value":"\u0008"}]`), "fields", "U+0008"},
		{"control character in a bio", upd(`"summary":"\u0000"`), "summary", "U+0000"},
		{"line break in a display name", upd(`"display_name":"two\nlines"`), "display_name", "one line"},
		{"control character in the site name", call("site.update_settings", `{"publication":{"site_name":"\u0007"}}`), "publication.site_name", "U+0007"},
		{"control character in a token name", call("tokens.create", `{"name":"ci\u001b[8m"}`), "name", "U+001B"},
		{"bidi override in a token name", call("tokens.create", `{"name":"\u202eyolped"}`), "name", "U+202E"},
		{"control character in the site introduction", call("site.update_settings", `{"publication":{"introduction":"\u009b"}}`), "publication.introduction", "U+009B"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := count(t, s.Client)
			status, _, v := raw(t, s, s.Client, "application/json", tc.body)
			msg, _ := field(v, "error", "message").(string)
			if status != 400 || field(v, "error", "code") != float64(-32602) || field(v, "error", "data", "field") != tc.field || !strings.Contains(msg, tc.msg) {
				t.Errorf("HTTP %d %v; want 400 -32602 on field %q mentioning %q", status, field(v, "error"), tc.field, tc.msg)
			}
			if after := count(t, s.Client); after != before {
				t.Errorf("posts: %d before, %d after; want nothing written", before, after)
			}
		})
	}
	var toks struct{ Items []any }
	if err := s.Client.Call(ctx, "tokens.list", nil, &toks); err != nil || len(toks.Items) != 0 {
		t.Errorf("tokens after refused creations = %v, %v; want none", toks.Items, err)
	}
	if p := primary(t, s); strings.ContainsAny(p.DisplayName+p.Summary, "\u202e\x00") || len(p.Fields) != 0 {
		t.Errorf("persona after refused updates = %+v; want it unchanged", p)
	}

	// What textareas send is accepted, with line breaks normalised, and
	// bidi controls are fine in prose.
	got := create(t, s.Client, map[string]any{"content": "one\r\ntwo\rthree\t\u202eright-to-left"})
	if got.Source == nil || *got.Source != "one\ntwo\nthree\t\u202eright-to-left" {
		t.Errorf("source = %v; want CRLF and CR stored as LF", got.Source)
	}
}
