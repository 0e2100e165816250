package blog_test

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/internal/testclock"
	"github.com/murlog/murlog/post"
)

// TestSearchShield: searches are limited per client network (/24, /56)
// before any query runs: past the burst a network gets a 429 with
// Retry-After while its neighbours and the form alone still pass, and a
// token comes back at the rate.
func TestSearchShield(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.note("hello shield")
	clock := testclock.New(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))
	srv := httptest.NewServer(blog.NewHandler(e.loader, blog.HandlerOptions{
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")},
		SearchRate:     1, SearchBurst: 2, Now: clock.Now}))
	t.Cleanup(srv.Close)
	e.srv = srv
	search := func(client, q string) resp {
		t.Helper()
		return e.get("/search?q="+urlQuery(q), "X-Forwarded-For", client)
	}
	for i, client := range []string{"203.0.113.5", "203.0.113.77"} { // one /24
		if r := search(client, "hello"); r.status != 200 || !strings.Contains(r.body, "shield") {
			t.Fatalf("search %d from %s = %d; want 200 with the hit", i+1, client, r.status)
		}
	}
	r := search("203.0.113.200", "hello")
	if r.status != 429 || r.header.Get("Retry-After") != "1" {
		t.Errorf("third search from 203.0.113.0/24 = %d, Retry-After %q; want 429, 1", r.status, r.header.Get("Retry-After"))
	}
	if r := search("203.0.113.9", "a\x00b"); r.status != 429 {
		t.Errorf("a refused query from the limited network = %d; want 429 before it is even read", r.status)
	}
	if r := e.get("/search", "X-Forwarded-For", "203.0.113.5"); r.status != 200 {
		t.Errorf("the form alone from the limited network = %d; want 200 (it costs no search)", r.status)
	}
	if r := search("203.0.114.5", "hello"); r.status != 200 {
		t.Errorf("search from the next /24 = %d; want 200 (its own bucket)", r.status)
	}
	for i, client := range []string{"2001:db8:0:100::1", "2001:db8:0:1ff:aaaa::2"} { // one /56
		if r := search(client, "hello"); r.status != 200 {
			t.Fatalf("search %d from %s = %d; want 200", i+1, client, r.status)
		}
	}
	if r := search("2001:db8:0:180::3", "hello"); r.status != 429 {
		t.Errorf("third search from 2001:db8:0:100::/56 = %d; want 429", r.status)
	}
	if r := search("2001:db8:0:200::1", "hello"); r.status != 200 {
		t.Errorf("search from the next /56 = %d; want 200", r.status)
	}
	clock.Advance(time.Second)
	if r := search("203.0.113.5", "hello"); r.status != 200 {
		t.Errorf("search a second later = %d; want 200 (one token back)", r.status)
	}
	if r := search("203.0.113.5", "hello"); r.status != 429 {
		t.Errorf("and another = %d; want 429", r.status)
	}
}

// TestSearchTooExpensive: a search that runs past the budget answers
// the themed search page, 400, saying to narrow it, in the page language.
func TestSearchTooExpensive(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.note("an expensive search")
	if r := e.get("/search?q=expensive"); r.status != 200 || !strings.Contains(r.body, "an expensive search") {
		t.Fatalf("search within the budget = %d; want 200 with the hit", r.status)
	}
	l := &blog.Loader{Site: e.loader.Site, Store: e.loader.Store, Themes: e.loader.Themes, Log: quiet, Now: e.loader.Now,
		SearchBudget: time.Nanosecond}
	e.srv = httptest.NewServer(blog.NewHandler(l))
	t.Cleanup(e.srv.Close)
	r := e.get("/search?q=expensive")
	if r.status != 400 || !strings.Contains(r.body, "too expensive") || !strings.Contains(r.body, `class="search-form"`) ||
		strings.Contains(r.body, "an expensive search") {
		t.Errorf("search past the budget = %d; want the search page, 400, saying it is too expensive\n%.800s", r.status, r.body)
	}
}

// TestSearchExcerpts: a KWIC line is text of the body or of the title,
// never both run together, and "…" marks each cut once (the page showed
// "……": the template added its own), in Latin and in Japanese text.
func TestSearchExcerpts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	latin := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "Tokyo trip",
		Content: "Ramen in Shinjuku was the best meal of the whole week, and the ramen shop by the station opened early."})
	ja := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "東京旅行",
		Content: "新宿で食べたラーメンは一週間で一番の食事でした。駅前のラーメン屋は朝早くから開いていて、毎日通いました。"})
	for _, c := range []struct {
		q, title, match, before string
		p                       *murlog.Post
	}{
		{"ramen", "Tokyo trip", "Ramen", "", latin},
		{"ラーメン", "東京旅行", "ラーメン", "新宿で食べた", ja},
		{"trip", "", "trip", "Tokyo ", latin}, // only the title matches: its own line
		{"旅行", "", "旅行", "東京", ja},
	} {
		p, err := e.loader.SearchPage(ctx, "", c.q, "kwic", "")
		if err != nil || len(p.Posts) != 1 || p.Posts[0].ID != c.p.ID || len(p.Posts[0].KWIC) == 0 {
			t.Fatalf("SearchPage(%q) = %+v, %v; want the one post with KWIC lines", c.q, p, err)
		}
		k := p.Posts[0].KWIC[0]
		if !strings.HasPrefix(k.Match, c.match) || k.Before != c.before {
			t.Errorf("SearchPage(%q) first line = %+v; want Before %q, Match from %q", c.q, k, c.before, c.match)
		}
		for _, k := range p.Posts[0].KWIC {
			line := k.Before + k.Match + k.After
			if c.title != "" && strings.Contains(line, c.title) {
				t.Errorf("SearchPage(%q): line %q holds the title %q: the title is glued onto the body", c.q, line, c.title)
			}
			if strings.Count(line, "…") > 2 || strings.Contains(line, "……") {
				t.Errorf("SearchPage(%q): line %q has more than one ellipsis at an end", c.q, line)
			}
		}
		r := e.get("/search?q=" + urlQuery(c.q))
		if r.status != 200 || !strings.Contains(r.body, "<mark>"+c.match) || strings.Contains(r.body, "……") {
			t.Errorf("GET /search?q=%s = %d; want the <mark>ed match and no \"……\"\n%.1500s", c.q, r.status, r.body)
		}
	}
	// A long body cut on both sides: one "…" each side.
	r := e.get("/search?q=" + urlQuery("week"))
	if !strings.Contains(r.body, "<li>…") || !strings.Contains(r.body, "…</li>") || strings.Contains(r.body, "……") {
		t.Errorf("GET /search?q=week: want a line cut on both sides with one \"…\" each\n%.1500s", r.body)
	}
}
