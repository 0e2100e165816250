package blog_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/store"
)

// TestByIDs: the ids' order is kept and unpublished ids dropped; more
// than 20, a body that is not an array of strings, or malformed ids are
// 400 with a JSON error.
func TestByIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.note("alpha"), e.note("beta")
	draft := e.post(post.CreateInput{Content: "draft", PublishedAt: post.Schedule{Mode: post.PublishDraft}})
	want := []string{b.ID, a.ID}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/api/pub/posts/by-ids", fmt.Sprintf(`{"ids":[%q,%q,%q]}`, b.ID, draft.ID, a.ID)},
		{"POST", "/api/pub/posts/by-ids", fmt.Sprintf(`[%q,%q,%q]`, b.ID, murlog.NewID(), a.ID)},
		{"GET", "/api/pub/posts/by-ids?ids=" + b.ID + "," + a.ID + "," + draft.ID, ""},
	} {
		r := e.do(c.method, c.path, c.body, "Content-Type", "application/json")
		var got struct {
			Posts []struct {
				ID  string `json:"id"`
				URL string `json:"url"`
			} `json:"posts"`
		}
		if err := json.Unmarshal([]byte(r.body), &got); err != nil || r.status != 200 {
			t.Errorf("%s %s %s = %d %s; want 200 JSON", c.method, c.path, c.body, r.status, r.body)
			continue
		}
		var ids []string
		for _, p := range got.Posts {
			ids = append(ids, p.ID)
		}
		if strings.Join(ids, ",") != strings.Join(want, ",") {
			t.Errorf("%s %s %s = ids %v; want %v", c.method, c.path, c.body, ids, want)
		}
	}
	many := make([]string, 21)
	for i := range many {
		many[i] = fmt.Sprintf("%q", murlog.NewID())
	}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/api/pub/posts/by-ids", "[" + strings.Join(many, ",") + "]"},
		{"POST", "/api/pub/posts/by-ids", `{"ids":[` + strings.Join(many, ",") + "]}"},
		{"POST", "/api/pub/posts/by-ids", `{"ids":"` + a.ID + `"}`},
		{"POST", "/api/pub/posts/by-ids", `"` + a.ID + `"`},
		{"POST", "/api/pub/posts/by-ids", `{"id":["` + a.ID + `"]}`},
		{"POST", "/api/pub/posts/by-ids", `[1, 2]`},
		{"POST", "/api/pub/posts/by-ids", `["` + a.ID + `", null]`},
		{"POST", "/api/pub/posts/by-ids", `["nope"]`},
		{"POST", "/api/pub/posts/by-ids", `["` + strings.ToUpper(a.ID) + `"]`},
		{"POST", "/api/pub/posts/by-ids", `["` + a.ID + `"`},
		{"POST", "/api/pub/posts/by-ids", `[` + strings.Repeat(`"`+a.ID+`",`, 200) + `"x"]`},
		{"POST", "/api/pub/posts/by-ids", ``},
		{"GET", "/api/pub/posts/by-ids?ids=" + strings.ReplaceAll(strings.Join(many, ","), `"`, ""), ""},
		{"GET", "/api/pub/posts/by-ids?ids=x,y", ""},
		{"GET", "/api/pub/posts/by-ids?ids=" + a.ID + ",,", ""},
	} {
		r := e.do(c.method, c.path, c.body, "Content-Type", "application/json")
		var got struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if r.status != 400 || json.Unmarshal([]byte(r.body), &got) != nil || got.Error.Code != "invalid" {
			t.Errorf("%s %.80s %.80s = %d %s; want 400 with a JSON invalid error", c.method, c.path, c.body, r.status, r.body)
		}
	}
}

// TestPostsAPI: publication order, cursor paging, limit and order; the
// post document carries its neighbours' ids; config answers the defaults
// when nothing is saved.
func TestPostsAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b, c := e.note("one"), e.note("two"), e.note("three")
	var list struct {
		Posts []struct {
			ID  string `json:"id"`
			URL string `json:"url"`
		} `json:"posts"`
		Next string `json:"next"`
	}
	r := e.get("/api/pub/personas/alice/posts?limit=2")
	if err := json.Unmarshal([]byte(r.body), &list); err != nil || len(list.Posts) != 2 || list.Posts[0].ID != c.ID || list.Next != b.ID {
		t.Fatalf("posts?limit=2 = %s; want three, two and next=%s", r.body, b.ID)
	}
	if list.Posts[0].URL != "https://blog.example/@alice/"+c.ID {
		t.Errorf("url = %q; want the canonical post URL", list.Posts[0].URL)
	}
	r = e.get("/api/pub/personas/alice/posts?limit=2&after=" + list.Next)
	list.Posts, list.Next = nil, ""
	if err := json.Unmarshal([]byte(r.body), &list); err != nil || len(list.Posts) != 1 || list.Posts[0].ID != a.ID || list.Next != "" {
		t.Errorf("second page = %s; want one and no next", r.body)
	}
	r = e.get("/api/pub/personas/alice/posts?order=oldest&limit=1")
	if err := json.Unmarshal([]byte(r.body), &list); err != nil || len(list.Posts) != 1 || list.Posts[0].ID != a.ID {
		t.Errorf("order=oldest = %s; want one first", r.body)
	}
	var doc struct {
		Post struct {
			ID string `json:"id"`
		} `json:"post"`
		OlderID string `json:"older_id"`
		NewerID string `json:"newer_id"`
	}
	r = e.get("/api/pub/posts/" + b.ID)
	if err := json.Unmarshal([]byte(r.body), &doc); err != nil || doc.Post.ID != b.ID || doc.OlderID != a.ID || doc.NewerID != c.ID {
		t.Errorf("posts/{id} = %s; want older %s newer %s", r.body, a.ID, c.ID)
	}
	var cfg map[string]any
	r = e.get("/api/pub/personas/alice/config")
	if err := json.Unmarshal([]byte(r.body), &cfg); err != nil || cfg["show_pagination"] != true || cfg["show_side_recent"] != 5.0 {
		t.Errorf("config with nothing saved = %s; want the defaults", r.body)
	}
	e.config(func(c *murlog.PubConfig) { c.SideRecent, c.SiteName = 1000, "Mine" })
	r = e.get("/api/pub/personas/alice/config")
	if err := json.Unmarshal([]byte(r.body), &cfg); err != nil || cfg["show_side_recent"] != 20.0 || cfg["site_name"] != "Mine" {
		t.Errorf("config with show_side_recent 1000 = %s; want it clamped to 20", r.body)
	}
}

// TestSearchPageAnswers: FTS syntax is searched as text and answers a
// page of hits; what cannot be searched (over 200 characters or 8 words,
// control characters such as NUL, text that is not UTF-8) answers the
// themed search page as a 400 that says why, never a 500, and never a
// search for a cut query the reader did not write. (Issue 15 replaced
// TestSearchNeverFails, which wanted a 10,000-character query searched
// after a cut, with a 200.)
func TestSearchPageAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.note(`he said "quoted" NEAR the star* sign`)
	e.note("日本語の文章を検索します")
	for _, c := range []struct {
		q, want string
	}{
		{`"quoted"`, "quoted"},
		{`"`, "quoted"},
		{"NEAR", "NEAR"},
		{"star*", "star"},
		{"*", "star"},
		{"NEAR(a b)", ""},
		{"文章", "文章"},
		{"文章　検索", "文章"},    // an ideographic space between the terms
		{"文章\t検索\n", "文章"}, // tabs and newlines only separate words
		{"-", ""},
		{"' OR 1=1 --", ""},
		{strings.Repeat("あ", blog.MaxQuery), ""}, // at the limit
		{"1 2 3 4 5 6 7 8", ""},                  // at the limit
		{"文章 文章 文章 文章 文章 文章 文章 文章 文章 文章", "文章"}, // repeated words count once
	} {
		for _, mode := range []string{"", "rich", "plain"} {
			r := e.get("/search?q=" + urlQuery(c.q) + "&mode=" + mode)
			if r.status != 200 || !strings.Contains(r.header.Get("Content-Type"), "text/html") {
				t.Errorf("search %.40q mode %q = %d; want 200 html\n%.300s", c.q, mode, r.status, r.body)
			}
			if c.want != "" && !strings.Contains(r.body, c.want) {
				t.Errorf("search %.40q mode %q: no hit showing %q", c.q, mode, c.want)
			}
		}
	}
	for _, c := range []struct{ q, why string }{
		{strings.Repeat("あ", blog.MaxQuery+1), "at most 200 characters"},
		{strings.Repeat("あ", 10_000), "at most 200 characters"},
		{strings.Repeat("x ", 5_000), "at most 200 characters"},
		{"1 2 3 4 5 6 7 8 9", "at most 8"},
		{"a\x00b", "control characters"},
		{"\x00", "control characters"},
		{"x\x1by", "control characters"},
		{"bad\xffutf8", "not valid text"},
	} {
		for _, path := range []string{"/search?q=", "/@alice/search?mode=plain&q="} {
			r := e.get(path + url.QueryEscape(c.q))
			if r.status != 400 || !strings.Contains(r.header.Get("Content-Type"), "text/html") ||
				!strings.Contains(r.body, `class="search-form"`) || !strings.Contains(r.body, c.why) || strings.Contains(r.body, "search-results") {
				t.Errorf("GET %s%.40q = %d %s; want the themed search page, 400, saying %q and no results\n%.600s",
					path, c.q, r.status, r.header.Get("Content-Type"), c.why, r.body)
			}
		}
	}
	e.update(func(tx store.Tx) error { return tx.Settings().Set(settings.KeyLanguage, "ja") })
	if r := e.get("/search?q=" + url.QueryEscape("a\x00b")); r.status != 400 || !strings.Contains(r.body, "制御文字") {
		t.Errorf("a refused search on a Japanese site = %d; want the reason in Japanese\n%.600s", r.status, r.body)
	}
	p, err := e.loader.SearchPage(ctx, "", strings.Repeat("長", 10_000), "", "")
	if err != nil || p.Search == nil || !p.Search.Refused || p.Status() != 400 || len(p.Posts) != 0 {
		t.Errorf("SearchPage(10,000 chars) = %+v, %v; want refused, 400, no posts", p.Search, err)
	}
	p, err = e.loader.SearchPage(ctx, "", "文章", "kwic", "")
	if err != nil || len(p.Posts) != 1 || len(p.Posts[0].KWIC) == 0 {
		t.Fatalf("SearchPage(文章, kwic) = %+v, %v; want one hit with KWIC lines", p, err)
	}
	if k := p.Posts[0].KWIC[0]; k.Match != "文章" {
		t.Errorf("KWIC line = %+v; want the match 文章", k)
	}
	if p, _ := e.loader.SearchPage(ctx, "", "   ", "", ""); p == nil || !p.Search.Empty || len(p.Posts) != 0 {
		t.Errorf("SearchPage(blank) = %+v; want the form alone", p)
	}
}
