package api_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/persona"
	"github.com/murlog/murlog/post"
)

type siteInfo struct {
	Version     string         `json:"version"`
	Domain      string         `json:"domain"`
	Owner       bool           `json:"owner"`
	TOTPEnabled *bool          `json:"totp_enabled"`
	Limits      map[string]int `json:"limits"`
	Themes      []string       `json:"themes"`
}

// TestSiteInfo: anyone may ask what the app starts with; the owner also
// learns whether two-factor login is on. The limits are the validators'
// own: a note of note_chars characters is accepted and one more refused,
// and so for every limit that can be tried through the API.
func TestSiteInfo(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var anon siteInfo
	raw := map[string]any{}
	if err := s.NewClient().Call(ctx, "site.info", nil, &raw); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(raw)
	json.Unmarshal(b, &anon)
	if anon.Owner || anon.Version != murlog.Version || anon.Domain != s.Domain() {
		t.Errorf("anonymous site.info = %+v; want owner false, version %q, domain %q", anon, murlog.Version, s.Domain())
	}
	if _, has := raw["totp_enabled"]; has {
		t.Errorf("anonymous site.info tells whether two-factor login is on: %s", b)
	}
	if !slices.Contains(anon.Themes, "default") || !slices.Contains(anon.Themes, "dark") || !slices.IsSorted(anon.Themes) {
		t.Errorf("themes = %v; want the installed themes, sorted", anon.Themes)
	}
	want := map[string]int{"note_chars": post.MaxNote, "article_chars": post.MaxArticle, "title_chars": post.MaxTitle,
		"summary_chars": post.MaxSummary, "fields": murlog.MaxPersonaFields, "field_name_chars": persona.MaxFieldName,
		"field_value_chars": persona.MaxFieldValue, "display_name_chars": persona.MaxDisplayName, "bio_chars": persona.MaxSummary}
	if fmt.Sprint(anon.Limits) != fmt.Sprint(want) {
		t.Errorf("limits = %v; want %v", anon.Limits, want)
	}

	var own siteInfo
	if err := s.Client.Call(ctx, "site.info", nil, &own); err != nil {
		t.Fatal(err)
	}
	if !own.Owner || own.TOTPEnabled == nil || *own.TOTPEnabled {
		t.Errorf("owner's site.info = owner %v totp_enabled %v; want true and false", own.Owner, own.TOTPEnabled)
	}

	// Each limit, at the limit and one past it, as the services judge.
	l := own.Limits
	kanji := func(n int) string { return strings.Repeat("字", n) }
	for _, c := range []struct {
		what   string
		method string
		params func(n int) map[string]any
		limit  int
	}{
		{"note", "posts.create", func(n int) map[string]any { return map[string]any{"content": kanji(n)} }, l["note_chars"]},
		{"title", "posts.create", func(n int) map[string]any {
			return map[string]any{"kind": "article", "title": kanji(n), "content": "x"}
		}, l["title_chars"]},
		{"summary", "posts.create", func(n int) map[string]any { return map[string]any{"content": "x", "summary": kanji(n)} }, l["summary_chars"]},
		{"display name", "personas.update", func(n int) map[string]any { return map[string]any{"display_name": kanji(n)} }, l["display_name_chars"]},
		{"bio", "personas.update", func(n int) map[string]any { return map[string]any{"summary": kanji(n)} }, l["bio_chars"]},
		{"field value", "personas.update", func(n int) map[string]any {
			return map[string]any{"fields": []map[string]string{{"name": "a", "value": kanji(n)}}}
		}, l["field_value_chars"]},
		{"fields", "personas.update", func(n int) map[string]any {
			fs := make([]map[string]string, n)
			for i := range fs {
				fs[i] = map[string]string{"name": fmt.Sprint("f", i), "value": "v"}
			}
			return map[string]any{"fields": fs}
		}, l["fields"]},
	} {
		at, over := c.params(c.limit), c.params(c.limit+1)
		if c.method == "personas.update" {
			at["id"], over["id"] = primaryID(t, s), primaryID(t, s)
		}
		if err := s.Client.Call(ctx, c.method, at, nil); err != nil {
			t.Errorf("%s of %d (the announced limit): %v; want it accepted", c.what, c.limit, err)
		}
		rpcErr(t, fmt.Sprintf("%s of %d (one past the limit)", c.what, c.limit+1), s.Client.Call(ctx, c.method, over, nil), -32602, "invalid", 400)
	}
	// An article at its limit is 300 kB of kanji: it fits the request limit.
	if err := s.Client.Call(ctx, "posts.create", map[string]any{"kind": "article", "title": "t", "content": kanji(l["article_chars"])}, nil); err != nil {
		t.Errorf("article of article_chars: %v", err)
	}
	rpcErr(t, "article past article_chars", s.Client.Call(ctx, "posts.create",
		map[string]any{"kind": "article", "title": "t", "content": kanji(l["article_chars"] + 1)}, nil), -32602, "invalid", 400)
}

func primaryID(t *testing.T, s *testsite.Site) string {
	t.Helper()
	var pg struct {
		Items []struct {
			ID      string `json:"id"`
			Primary bool   `json:"primary"`
		} `json:"items"`
	}
	if err := s.Client.Call(ctx, "personas.list", nil, &pg); err != nil || len(pg.Items) == 0 {
		t.Fatalf("personas.list: %v %+v", err, pg)
	}
	return pg.Items[0].ID
}

type previewResult struct {
	HTML  string `json:"html"`
	Chars int    `json:"chars"`
	Limit int    `json:"limit"`
}

// TestPostsPreview: the editor's live preview is exactly the HTML that
// posts.create stores for the same text, counted as posts.create counts
// (line breaks normalised, code points), with its kind's limit; a text
// over the limit is still previewed; only the owner may ask.
func TestPostsPreview(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	preview := func(params map[string]any) previewResult {
		t.Helper()
		var r previewResult
		if err := s.Client.Call(ctx, "posts.preview", params, &r); err != nil {
			t.Fatalf("posts.preview(%v): %v", params, err)
		}
		return r
	}
	for _, c := range []map[string]any{
		{"content": "Hello #murlog <b>world</b> https://example.com/a?b=c\r\nsecond line"},
		{"kind": "note", "content": "e\u0301 and 🇯🇵 count as code points"},
		{"kind": "article", "title": "On murlog", "content": "# Heading\n\nSome *emphasis*, <script>alert(1)</script> [x](javascript:alert(1)) and a footnote[^1].\n\n[^1]: here\n\n| a | b |\n|---|---|\n| 1 | 2 |"},
	} {
		got := preview(c)
		stored := create(t, s.Client, c)
		if got.HTML != stored.Content {
			t.Errorf("preview of %q:\n%s\nwant what posts.create stores:\n%s", c["content"], got.HTML, stored.Content)
		}
		src := strings.ReplaceAll(c["content"].(string), "\r\n", "\n")
		if got.Chars != len([]rune(src)) {
			t.Errorf("preview of %q counts %d characters; want %d", c["content"], got.Chars, len([]rune(src)))
		}
		limit := post.MaxNote
		if c["kind"] == "article" {
			limit = post.MaxArticle
		}
		if got.Limit != limit {
			t.Errorf("preview limit of %v = %d; want %d", c["kind"], got.Limit, limit)
		}
	}
	if r := preview(map[string]any{"kind": "article", "content": "*x*"}); !strings.Contains(r.HTML, "<em>x</em>") || strings.Contains(r.HTML, "<script") {
		t.Errorf("article preview = %q; want Markdown rendered", r.HTML)
	}

	// Over the limit: counted, previewed, not refused; posts.create refuses it.
	long := strings.Repeat("あ", post.MaxNote) + "\r\n12"
	if r := preview(map[string]any{"content": long}); r.Chars != post.MaxNote+3 || r.Limit != post.MaxNote || r.HTML == "" {
		t.Errorf("over-long note preview = %d/%d (html %d bytes); want %d/%d", r.Chars, r.Limit, len(r.HTML), post.MaxNote+3, post.MaxNote)
	}
	rpcErr(t, "posts.create of the over-long note", s.Client.Call(ctx, "posts.create", map[string]any{"content": long}, nil), -32602, "invalid", 400)
	if r := preview(map[string]any{"content": strings.Repeat("あ", post.MaxNote-1) + "\r\n"}); r.Chars != post.MaxNote {
		t.Errorf("a note of %d characters with CRLF counts %d", post.MaxNote, r.Chars)
	} else if err := s.Client.Call(ctx, "posts.create", map[string]any{"content": strings.Repeat("あ", post.MaxNote-1) + "\r\n"}, nil); err != nil {
		t.Errorf("posts.create of what the preview counts as %d (the limit): %v", r.Chars, err)
	}
	if r := preview(map[string]any{"content": ""}); r.Chars != 0 || r.Limit != post.MaxNote {
		t.Errorf("empty preview = %+v; want 0 characters of a note", r)
	}

	e := rpcErr(t, "unknown kind", s.Client.Call(ctx, "posts.preview", map[string]any{"kind": "poem", "content": "x"}, nil), -32602, "invalid", 400)
	if e.Data.Field != "kind" {
		t.Errorf("unknown kind names field %q; want kind", e.Data.Field)
	}
	rpcErr(t, "a control character", s.Client.Call(ctx, "posts.preview", map[string]any{"content": "a\x07b"}, nil), -32602, "invalid", 400)
	rpcErr(t, "an unknown parameter", s.Client.Call(ctx, "posts.preview", map[string]any{"content": "x", "sensitive": true}, nil), -32602, "invalid", 400)
	rpcErr(t, "anonymous preview", s.NewClient().Call(ctx, "posts.preview", map[string]any{"content": "x"}, nil), -32000, "unauthorized", 401)
	if n := count(t, s.Client); n != 4 {
		t.Errorf("posts after previews = %d; want the 4 created (a preview stores nothing)", n)
	}
}
