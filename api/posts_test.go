package api_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/murlog/murlog/internal/testsite"
)

func TestCreateNoteDefaults(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	p := create(t, s.Client, map[string]any{"content": "Hello #murlog <b>world</b> https://example.com/a?b=c"})
	if p.Kind != "note" || p.Visibility != "public" || p.State != "published" || p.PublishedAt == nil {
		t.Errorf("defaults: %+v; want a published public note", p)
	}
	if strings.Contains(p.Content, "<b>") || !strings.Contains(p.Content, "&lt;b&gt;") {
		t.Errorf("content = %q; want the user's markup escaped", p.Content)
	}
	if !strings.Contains(p.Content, `href="https://example.com/a?b=c"`) || len(p.Tags) != 1 || p.Tags[0] != "murlog" {
		t.Errorf("content = %q tags %v; want a link and the tag", p.Content, p.Tags)
	}
	if want := "http://" + s.Domain() + "/@alice/" + p.ID; p.URL != want {
		t.Errorf("url = %q; want %q", p.URL, want)
	}
	if p.Source == nil || *p.Source != "Hello #murlog <b>world</b> https://example.com/a?b=c" {
		t.Errorf("source = %v; want the text as written, for the owner", p.Source)
	}
	var anon postResult
	if err := s.NewClient().Call(ctx, "posts.get", map[string]string{"id": p.ID}, &anon); err != nil {
		t.Fatal(err)
	}
	if anon.Source != nil || anon.State != "" || anon.URL != p.URL {
		t.Errorf("anonymous view = %+v; want no source/state but the url", anon)
	}
}

func TestCreateArticle(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	p := create(t, s.Client, map[string]any{"kind": "article", "title": "On murlog", "language": "ja",
		"content": "# Heading\n\nSome *emphasis* and <script>alert(1)</script> [x](javascript:alert(1)) #tag"})
	if p.Kind != "article" || p.Title != "On murlog" || p.Language != "ja" {
		t.Errorf("article = %+v", p)
	}
	if strings.Contains(p.Content, "<script") || strings.Contains(p.Content, "javascript:") || !strings.Contains(p.Content, "<em>emphasis</em>") {
		t.Errorf("article HTML = %q; want Markdown rendered and sanitized", p.Content)
	}
	rpcErr(t, "article without a title", s.Client.Call(ctx, "posts.create", map[string]any{"kind": "article", "content": "x"}, nil), -32602, "invalid", 400)
	rpcErr(t, "note with a title", s.Client.Call(ctx, "posts.create", map[string]any{"title": "t", "content": "x"}, nil), -32602, "invalid", 400)
}

// TestArticleExcerpt: an article comes with the excerpt lists show in
// its place (the owner's timeline): its text without markup, cut at 200
// characters; a note has none (it is shown whole).
func TestArticleExcerpt(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	long := strings.Repeat("word ", 60)
	a := create(t, s.Client, map[string]any{"kind": "article", "title": "Long", "content": "## A heading\n\nSome *emphasis*. " + long})
	var got struct {
		Excerpt *string `json:"excerpt"`
	}
	if err := s.Client.Call(ctx, "posts.get", map[string]string{"id": a.ID}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Excerpt == nil || !strings.HasPrefix(*got.Excerpt, "A heading Some emphasis. word word") || strings.ContainsAny(*got.Excerpt, "<>*#") ||
		!strings.HasSuffix(*got.Excerpt, "…") || utf8.RuneCountInString(*got.Excerpt) > 201 {
		t.Errorf("article excerpt = %v; want its plain text cut at 200 characters with …", got.Excerpt)
	}
	n := create(t, s.Client, map[string]any{"content": "A note"})
	got.Excerpt = nil
	if err := s.Client.Call(ctx, "posts.get", map[string]string{"id": n.ID}, &got); err != nil || got.Excerpt != nil {
		t.Errorf("note excerpt = %v, %v; want none", got.Excerpt, err)
	}
}

func TestContentWarningForcesSensitive(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	p := create(t, s.Client, map[string]any{"content": "spoiler", "summary": "CW: film ending", "sensitive": false})
	if !p.Sensitive || p.Summary != "CW: film ending" {
		t.Errorf("summary set: sensitive=%v summary=%q; want sensitive forced on", p.Sensitive, p.Summary)
	}
	var u postResult
	if err := s.Client.Call(ctx, "posts.update", map[string]any{"id": p.ID, "summary": ""}, &u); err != nil {
		t.Fatal(err)
	}
	if u.Sensitive || u.Summary != "" {
		t.Errorf("after clearing the warning: sensitive=%v; want false", u.Sensitive)
	}
}

// TestBadPostInputWritesNothing: every refusal answers -32602 and leaves
// the ledger as it was.
func TestBadPostInputWritesNothing(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	keep := create(t, s.Client, map[string]any{"content": "keep me"})
	for _, tc := range []struct {
		name   string
		method string
		params map[string]any
		field  string
	}{
		{"empty note", "posts.create", map[string]any{"content": "   "}, "content"},
		{"over-long note", "posts.create", map[string]any{"content": strings.Repeat("あ", 3001)}, "content"},
		{"over-long article", "posts.create", map[string]any{"kind": "article", "title": "t", "content": strings.Repeat("a", 100001)}, "content"},
		{"invalid visibility", "posts.create", map[string]any{"content": "x", "visibility": "everyone"}, "visibility"},
		{"invalid kind", "posts.create", map[string]any{"content": "x", "kind": "poem"}, "kind"},
		{"invalid published_at", "posts.create", map[string]any{"content": "x", "published_at": "tomorrow"}, "published_at"},
		{"published_at out of range", "posts.create", map[string]any{"content": "x", "published_at": "1969-12-31T23:59:59Z"}, "published_at"},
		{"invalid language", "posts.create", map[string]any{"content": "x", "language": "not a tag"}, "language"},
		{"unknown persona", "posts.create", map[string]any{"content": "x", "persona_id": "not-an-id"}, "persona_id"},
		{"update over-long", "posts.update", map[string]any{"id": keep.ID, "content": strings.Repeat("x", 3001)}, "content"},
		{"update bad visibility", "posts.update", map[string]any{"id": keep.ID, "visibility": "nobody"}, "visibility"},
		{"update bad published_at", "posts.update", map[string]any{"id": keep.ID, "published_at": "2026-13-01T00:00:00Z"}, "published_at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := rpcErr(t, tc.name, s.Client.Call(ctx, tc.method, tc.params, nil), -32602, "invalid", 400)
			if e != nil && e.Data.Field != tc.field {
				t.Errorf("error field = %q; want %q (%s)", e.Data.Field, tc.field, e.Message)
			}
		})
	}
	if n := count(t, s.Client); n != 1 {
		t.Errorf("posts after bad input = %d; want 1", n)
	}
	var got postResult
	s.Client.Call(ctx, "posts.get", map[string]string{"id": keep.ID}, &got)
	if got.Source == nil || *got.Source != "keep me" || got.Visibility != "public" {
		t.Errorf("the kept post changed: %+v", got)
	}
	// The limits themselves are accepted.
	create(t, s.Client, map[string]any{"content": strings.Repeat("あ", 3000)})
	create(t, s.Client, map[string]any{"kind": "article", "title": "long", "content": strings.Repeat("a", 100000)})
}

func TestPublishedAtMeaning(t *testing.T) {
	t.Parallel()
	var clock atomic.Pointer[time.Time]
	now := time.Now().UTC()
	clock.Store(&now)
	s := testsite.Start(t, testsite.Options{Now: func() time.Time { return *clock.Load() }})
	anon := s.NewClient()
	future := now.Add(time.Hour).Format(time.RFC3339)
	past := now.Add(-30 * 24 * time.Hour).Format(time.RFC3339)
	draft := create(t, s.Client, map[string]any{"content": "draft", "published_at": nil})
	sched := create(t, s.Client, map[string]any{"content": "scheduled", "published_at": future})
	back := create(t, s.Client, map[string]any{"content": "back-dated", "published_at": past})
	unlisted := create(t, s.Client, map[string]any{"content": "unlisted", "visibility": "unlisted"})
	followers := create(t, s.Client, map[string]any{"content": "followers", "visibility": "followers"})
	for _, tc := range []struct {
		p     postResult
		state string
		anon  bool
	}{{draft, "draft", false}, {sched, "scheduled", false}, {back, "published", true}, {unlisted, "published", true}, {followers, "published", false}} {
		if tc.p.State != tc.state {
			t.Errorf("%q state = %q; want %q", *tc.p.Source, tc.p.State, tc.state)
		}
		err := anon.Call(ctx, "posts.get", map[string]string{"id": tc.p.ID}, nil)
		if tc.anon && err != nil {
			t.Errorf("anonymous posts.get(%q) = %v; want it visible", *tc.p.Source, err)
		}
		if !tc.anon {
			rpcErr(t, "anonymous posts.get("+*tc.p.Source+")", err, -32001, "not_found", 404)
		}
	}
	if back.PublishedAt == nil || !strings.HasPrefix(*back.PublishedAt, past[:16]) {
		t.Errorf("back-dated published_at = %v; want %s", back.PublishedAt, past)
	}
	var pg postPage
	anon.Call(ctx, "posts.list", nil, &pg)
	if len(pg.Items) != 2 || pg.Items[0].ID != unlisted.ID || pg.Items[1].ID != back.ID {
		t.Errorf("anonymous posts.list = %d items; want unlisted then back-dated (ordered by published_at)", len(pg.Items))
	}
	// Time passes: the scheduled post comes out with no write at all.
	later := now.Add(2 * time.Hour)
	clock.Store(&later)
	if err := anon.Call(ctx, "posts.get", map[string]string{"id": sched.ID}, nil); err != nil {
		t.Errorf("scheduled post after its time: %v; want it public", err)
	}
	// Un-publishing puts a post back to draft.
	var u postResult
	s.Client.Call(ctx, "posts.update", map[string]any{"id": back.ID, "published_at": nil}, &u)
	if u.State != "draft" || u.PublishedAt != nil {
		t.Errorf("after published_at=null: %+v; want a draft", u)
	}
	rpcErr(t, "anonymous get of the unpublished post", anon.Call(ctx, "posts.get", map[string]string{"id": back.ID}, nil), -32001, "not_found", 404)
	// A cursor pointing at a draft reveals nothing to anonymous readers.
	rpcErr(t, "draft as cursor", anon.Call(ctx, "posts.list", map[string]any{"cursor": draft.ID}, nil), -32602, "invalid", 400)
}

func TestPostsCountFollowsPublication(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	posts := func() float64 {
		var l struct{ Items []map[string]any }
		s.Client.Call(ctx, "personas.list", nil, &l)
		return l.Items[0]["posts_count"].(float64)
	}
	a := create(t, s.Client, map[string]any{"content": "a"})
	d := create(t, s.Client, map[string]any{"content": "d", "published_at": nil})
	if n := posts(); n != 1 {
		t.Errorf("posts_count = %v; want 1 (drafts do not count)", n)
	}
	s.Client.Call(ctx, "posts.update", map[string]any{"id": d.ID, "published_at": time.Now().UTC().Format(time.RFC3339)}, nil)
	if n := posts(); n != 2 {
		t.Errorf("posts_count after publishing the draft = %v; want 2", n)
	}
	s.Client.Call(ctx, "posts.delete", map[string]any{"id": a.ID}, nil)
	if n := posts(); n != 1 {
		t.Errorf("posts_count after delete = %v; want 1", n)
	}
	rpcErr(t, "delete twice", s.Client.Call(ctx, "posts.delete", map[string]any{"id": a.ID}, nil), -32001, "not_found", 404)
}

func TestPaginationOverRPC(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	createMany(t, s, 45, func(int) map[string]any { return map[string]any{"content": "post"} })
	seen := map[string]bool{}
	cursor := ""
	pages := 0
	for {
		var pg postPage
		params := map[string]any{"limit": 20}
		if cursor != "" {
			params["cursor"] = cursor
		}
		if err := s.NewClient().Call(ctx, "posts.list", params, &pg); err != nil {
			t.Fatal(err)
		}
		pages++
		for _, p := range pg.Items {
			seen[p.ID] = true
		}
		if pg.NextCursor == nil {
			break
		}
		cursor = *pg.NextCursor
	}
	if len(seen) != 45 || pages != 3 {
		t.Errorf("paged %d posts in %d pages; want 45 in 3", len(seen), pages)
	}
	for _, bad := range []map[string]any{{"limit": 101}, {"limit": -1}, {"cursor": "zzz"}} {
		rpcErr(t, "posts.list", s.Client.Call(ctx, "posts.list", bad, nil), -32602, "invalid", 400)
	}
}

// TestPostsCreateReply: in_reply_to names the post answered (an http(s)
// IRI); it comes back in the post and anything else is refused naming the
// field.
func TestPostsCreateReply(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{})
	const parent = "https://remote.example/users/bob/statuses/1"
	var got map[string]any
	if err := s.Client.Call(ctx, "posts.create", map[string]any{"content": "yes", "in_reply_to": parent}, &got); err != nil {
		t.Fatal(err)
	}
	if got["in_reply_to"] != parent {
		t.Fatalf("posts.create in_reply_to: got %v; want %s", got["in_reply_to"], parent)
	}
	for _, bad := range []string{"javascript:alert(1)", "not a url", "ftp://x.example/1"} {
		err := s.Client.Call(ctx, "posts.create", map[string]any{"content": "x", "in_reply_to": bad}, nil)
		if e := rpcErr(t, "in_reply_to "+bad, err, -32602, "invalid", 400); e.Data.Field != "in_reply_to" {
			t.Errorf("in_reply_to %q: field %q; want in_reply_to", bad, e.Data.Field)
		}
	}
}
