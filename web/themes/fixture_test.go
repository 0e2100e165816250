package themes_test

import (
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/blog/meta"
	"github.com/murlog/murlog/markup"
)

// The pages every theme renders in the test: realistic models built by
// hand, with user text that must come out escaped (evil) wherever it is
// shown.

// words are the interface strings (the keys of design.md's Themes section).
var words = map[string]string{
	"recent_posts": "Recent posts", "popular_posts": "Popular posts", "older": "Older", "newer": "Newer",
	"next_page": "Next page", "first_page": "First page", "newest_first": "Newest first",
	"oldest_first": "Oldest first", "rich": "Rich", "plain": "Plain", "kwic": "KWIC", "search": "Search",
	"search_placeholder": "Search this site", "search_results": "Results", "tags": "Tags",
	"profile": "Profile", "share": "Share", "posts": "Posts", "followers": "Followers",
	"following": "Following", "powered_by": "Powered by", "feed": "Feed", "no_posts": "No posts yet.",
	"no_hits": "Nothing found.", "content_warning": "Content warning", "show_more": "Show more",
	"home": "Home", "page_not_found": "Page not found", "gone": "Gone", "published": "Published",
	"updated": "Updated",
}

const evil = `<script>alert(1)</script>`

func note() blog.PostView {
	return blog.PostView{
		ID: "01JNOTE", URL: "https://blog.example/@alice/01JNOTE", Kind: "note", IsNote: true,
		ListTitle:   "Morning walk by the river & " + evil,
		ContentHTML: `<p>Morning walk by the river &amp; coffee. <a href="https://blog.example/tags/walk" rel="tag">#walk</a></p>`,
		Description: "Morning walk by the river & coffee.", Published: "2026-11-30T08:15:00+09:00",
		PublishedDisplay: "Nov 30, 2026", Author: "Alice", AuthorURL: "https://blog.example/@alice",
		Tags: []blog.TagLink{{Name: "walk", URL: "https://blog.example/tags/walk"}},
	}
}

func article() blog.PostView {
	return blog.PostView{
		ID: "01JART", URL: "https://blog.example/@alice/01JART", Kind: "article", IsArticle: true,
		Title: evil + " Notes on tea", ListTitle: evil + " Notes on tea",
		ContentHTML: `<p>Green tea from Uji, 日本茶の話。</p><p><img src="https://blog.example/media/tea.jpg" alt="A cup of tea" width="800" height="600"></p><pre><code>func brew() { return }</code></pre><h2>Second part</h2><p>More text.</p>`,
		Summary:     "food", Description: "Green tea from Uji.", Image: "https://blog.example/media/tea.jpg",
		Language: "en", Published: "2026-11-29T20:00:00Z", PublishedDisplay: "Nov 29, 2026",
		Updated: "2026-11-30T01:00:00Z", Author: "Alice", AuthorURL: "https://blog.example/@alice",
		Tags:          []blog.TagLink{{Name: "tea", URL: "https://blog.example/tags/tea"}, {Name: "日本茶", URL: "https://blog.example/tags/%E6%97%A5%E6%9C%AC%E8%8C%B6"}},
		AllowComments: true,
	}
}

// basePage is a page of kind with everything a persona can switch on:
// service header, site name, pagination, sidebar with profile, recent and
// popular, Google Analytics, robots.
func basePage(kind string, tv blog.ThemeView) *blog.Page {
	p := &blog.Page{
		Kind: kind, Lang: "en", Dir: "ltr",
		IsSite: kind == "site", IsPost: kind == "post", IsTag: kind == "tag", IsSearch: kind == "search", IsError: kind == "error",
		Theme: tv,
		Site: blog.SiteView{Name: "Alice's " + evil, Subtitle: "Tea and walks", Introduction: "Hello, I write about tea.",
			URL: "https://blog.example/@alice", Username: "alice", ShowServiceHeader: true, ShowSiteName: true,
			ShowPagination: true, ServiceName: "murlog", ServiceURL: "https://blog.example/",
			FeedRSS: "https://blog.example/@alice/feed.rss", FeedAtom: "https://blog.example/@alice/feed.atom",
			SearchURL: "https://blog.example/@alice/search"},
		Meta: meta.Meta{Title: "Alice's " + evil, Description: "Tea & walks", Canonical: "https://blog.example/@alice",
			Robots: "noai, noimageai",
			Tags: []meta.Tag{{Property: "og:title", Content: "Alice's " + evil}, {Property: "og:type", Content: "website"},
				{Name: "twitter:card", Content: "summary"}, {Name: "fediverse:creator", Content: "@alice@blog.example"}},
			Links: []meta.Link{{Rel: "alternate", Href: "https://blog.example/@alice", Type: "application/activity+json"},
				{Rel: "alternate", Href: "https://blog.example/@alice/feed.rss", Type: "application/rss+xml", Title: "RSS"},
				{Rel: "me", Href: "https://example.org/alice"}},
			JSONLD: `{"@context":"https://schema.org","@type":"ProfilePage","name":"Alice"}`,
			GA: &meta.Analytics{MeasurementID: "G-TEST123", PageLocation: "https://blog.example/@alice", PageTitle: "Alice",
				ContentGroup: "murlog-alice", ContentID: "alice", ContentType: kind}},
		T: blog.Strings(words),
		Profile: &blog.ProfileView{DisplayName: "Alice " + evil, Username: "alice", Acct: "@alice@blog.example",
			SummaryHTML: "<p>Tea drinker.</p>", AvatarURL: "https://blog.example/media/avatar.png",
			HeaderURL: "https://blog.example/media/header.jpg", URL: "https://blog.example/@alice",
			Fields:     []blog.FieldView{{Name: "Web", ValueHTML: `<a href="https://example.org/alice" rel="me">example.org/alice</a>`}, {Name: "Town", ValueHTML: "Kyoto"}},
			PostsCount: 42, FollowersCount: 7, FollowingCount: 3},
		Sidebar: &blog.Sidebar{Profile: true, RecentCount: 2, PopularCount: 5, Recent: []blog.PostLink{
			{ID: "01JNOTE", URL: "https://blog.example/@alice/01JNOTE", Title: "Morning walk " + evil, Published: "2026-11-30T08:15:00+09:00", PublishedDisplay: "Nov 30, 2026"},
			{ID: "01JART", URL: "https://blog.example/@alice/01JART", Title: "Notes on tea", Published: "2026-11-29T20:00:00Z", PublishedDisplay: "Nov 29, 2026"}}},
		Hydrate:     blog.Hydrate{Username: "alice", RecentCount: 2, PopularCount: 5, PostsAPI: "/api/pub/personas/alice/posts", ByIDsAPI: "/api/pub/posts/by-ids", ConfigAPI: "/api/pub/personas/alice/config", Lang: "en"},
		HydrateJSON: `{"username":"alice","recent_count":2,"popular_count":5,"posts_api":"/api/pub/personas/alice/posts","by_ids_api":"/api/pub/posts/by-ids","config_api":"/api/pub/personas/alice/config","share":["x","facebook","line","hatena"],"lang":"en"}`,
	}
	return p
}

// pages are the test pages by file name; the part before the first "-"
// is the page template.
func pages(tv blog.ThemeView) map[string]*blog.Page {
	out := map[string]*blog.Page{}

	site := basePage("site", tv)
	site.Posts = []blog.PostView{note(), article()}
	site.Mode = blog.ModeView{Name: "rich", IsRich: true, RichURL: "https://blog.example/@alice?mode=rich", PlainURL: "https://blog.example/@alice?mode=plain"}
	site.Pager = &blog.Pager{NextURL: "https://blog.example/@alice?after=01JART", FirstURL: "https://blog.example/@alice",
		NewestURL: "https://blog.example/@alice", OldestURL: "https://blog.example/@alice?order=oldest"}
	out["site"] = site

	plain := basePage("site", tv)
	plain.Posts = []blog.PostView{note(), article()}
	plain.Mode = blog.ModeView{Name: "plain", IsPlain: true, RichURL: site.Mode.RichURL, PlainURL: site.Mode.PlainURL}
	plain.Pager = &blog.Pager{NextURL: "https://blog.example/@alice?mode=plain&after=01JART", NewestURL: "https://blog.example/@alice?mode=plain", OldestURL: "https://blog.example/@alice?mode=plain&order=oldest", Oldest: true}
	plain.Sidebar = nil
	out["site-plain"] = plain

	post := basePage("post", tv)
	a := article()
	post.Post = &a
	post.Older = &blog.PostLink{ID: "01JOLD", URL: "https://blog.example/@alice/01JOLD", Title: "An older post", Published: "2026-11-01T00:00:00Z", PublishedDisplay: "Nov 1, 2026"}
	post.Newer = &blog.PostLink{ID: "01JNOTE", URL: "https://blog.example/@alice/01JNOTE", Title: "Morning walk " + evil, Published: "2026-11-30T08:15:00+09:00", PublishedDisplay: "Nov 30, 2026"}
	post.Share = &blog.Share{URL: a.URL, Title: a.Title, URLEncoded: "https%3A%2F%2Fblog.example%2F%40alice%2F01JART", TitleEncoded: "Notes%20on%20tea",
		X: true, Facebook: true, LINE: true, Hatena: true,
		Buttons: []blog.ShareButton{
			{ID: "x", IsX: true, Label: "Post on X", Href: "https://twitter.com/share?url=https%3A%2F%2Fblog.example%2F%40alice%2F01JART&text=Notes%20on%20tea"},
			{ID: "facebook", IsFacebook: true, Label: "Share on Facebook", Href: "https://www.facebook.com/sharer/sharer.php?u=https%3A%2F%2Fblog.example%2F%40alice%2F01JART"},
			{ID: "line", IsLINE: true, Label: "Send with LINE", Href: "https://social-plugins.line.me/lineit/share?url=https%3A%2F%2Fblog.example%2F%40alice%2F01JART&text=Notes%20on%20tea"},
			{ID: "hatena", IsHatena: true, Label: "Hatena Bookmark", Href: "https://b.hatena.ne.jp/entry/s/blog.example/@alice/01JART"}}}
	post.Hydrate.PostID = a.ID
	post.Hydrate.Share = []string{"x", "facebook", "line", "hatena"}
	out["post"] = post

	np := basePage("post", tv)
	n := note()
	np.Post = &n
	np.Older = post.Older
	np.Meta.GA = nil
	out["post-note"] = np

	tag := basePage("tag", tv)
	tag.Tag = &blog.TagView{Name: "tea" + evil, FeedRSS: "https://blog.example/tags/tea/feed.rss", FeedAtom: "https://blog.example/tags/tea/feed.atom"}
	tag.Posts = []blog.PostView{article()}
	tag.Mode = blog.ModeView{Name: "plain", IsPlain: true, RichURL: "https://blog.example/tags/tea?mode=rich", PlainURL: "https://blog.example/tags/tea?mode=plain"}
	tag.Pager = &blog.Pager{FirstURL: "https://blog.example/tags/tea"}
	tag.Profile = nil
	tag.Sidebar = nil
	out["tag"] = tag

	search := basePage("search", tv)
	search.Search = &blog.SearchView{Query: "tea " + evil, Action: "https://blog.example/@alice/search"}
	k := article()
	// The lines carry their own "…" where text was cut (markup.KWIC).
	k.KWIC = []blog.KWICLine{{Before: "…Green ", Match: "tea", After: " from Uji…"}, {Before: "…a <b>cup</b> of ", Match: "tea", After: "…"}}
	search.Posts = []blog.PostView{k}
	search.Mode = blog.ModeView{Name: "kwic", IsKWIC: true, KWICURL: "https://blog.example/@alice/search?q=tea&mode=kwic", RichURL: "https://blog.example/@alice/search?q=tea&mode=rich", PlainURL: "https://blog.example/@alice/search?q=tea&mode=plain"}
	search.Pager = &blog.Pager{NextURL: "https://blog.example/@alice/search?q=tea&mode=kwic&after=01JART"}
	search.Sidebar = nil
	out["search"] = search

	nohit := basePage("search", tv)
	nohit.Search = &blog.SearchView{Query: "zzz", Action: "https://blog.example/@alice/search", NoHits: true}
	nohit.Mode = search.Mode
	nohit.Sidebar = nil
	out["search-nohits"] = nohit

	refused := basePage("search", tv)
	refused.Search = &blog.SearchView{Query: "tea tea tea tea tea tea tea tea tea " + evil, Action: "https://blog.example/@alice/search",
		Empty: true, Refused: true, Notice: "This search is too long: use at most 200 characters."}
	refused.Mode = search.Mode
	refused.Sidebar = nil
	out["search-refused"] = refused

	e404 := basePage("error", tv)
	e404.Error = &blog.ErrorView{Status: 404, Title: "Page not found", Message: "There is no page at this address."}
	e404.Sidebar, e404.Profile, e404.HydrateJSON, e404.Meta.GA, e404.Meta.JSONLD = nil, nil, "", nil, ""
	e404.Meta.Robots = "noindex"
	out["error-404"] = e404

	e410 := basePage("error", tv)
	e410.Error = &blog.ErrorView{Status: 410, Title: "Gone", Message: "This post was deleted.", Gone: true}
	e410.Sidebar, e410.Profile, e410.HydrateJSON, e410.Meta.GA = nil, nil, "", nil
	out["error-410"] = e410

	// The same post and site pages with the head metadata meta.Build
	// really writes (Open Graph, Dublin Core, JSON-LD, alternates, GA).
	mp := *post
	mp.Meta = builtMeta("post")
	out["post-meta"] = &mp
	ms := *site
	ms.Meta = builtMeta("site")
	out["site-meta"] = &ms

	if tv.Vertical {
		// What the loader does for a vertical theme: post text upright
		// (the titles keep their ASCII here, so the escaping checks hold).
		for _, p := range out {
			for i := range p.Posts {
				p.Posts[i].ContentHTML = markup.Vertical(p.Posts[i].ContentHTML)
			}
			if p.Post != nil {
				p.Post.ContentHTML = markup.Vertical(p.Post.ContentHTML)
			}
		}
	}
	return out
}

// builtMeta is meta.Build's head for the fixture's persona, on its site
// page or the article's page.
func builtMeta(kind string) meta.Meta {
	published := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	persona := &murlog.Persona{ID: "p1", Username: "alice", DisplayName: "Alice " + evil, Summary: "Tea drinker.",
		Fields: []murlog.Field{{Name: "Web", Value: "https://example.org/alice"}}, Primary: true}
	in := meta.Input{
		Site: murlog.Site{Scheme: "https", Domain: "blog.example"}, Kind: kind, Lang: "en",
		Persona: persona, Config: &murlog.PubConfig{PersonaID: "p1", SiteName: "Alice's " + evil},
		SiteName: "Alice's " + evil, Canonical: "https://blog.example/@alice", AuthorName: "Alice",
		GAMeasurementID: "G-TEST123", NoAI: true,
		FeedRSS: "https://blog.example/@alice/feed.rss", FeedAtom: "https://blog.example/@alice/feed.atom",
		Now: published.Add(24 * time.Hour),
	}
	if kind == "post" {
		in.Post = &murlog.Post{ID: "01JART", PersonaID: "p1", Kind: murlog.KindArticle, Title: evil + " Notes on tea",
			Content: article().ContentHTML, Language: "en", Tags: []string{"tea"}, Visibility: murlog.VisibilityPublic,
			PublishedAt: &published, CreatedAt: published, UpdatedAt: published}
		in.Title, in.Description, in.Image = evil+" Notes on tea", "Green tea from Uji.", "https://blog.example/media/tea.jpg"
		in.Canonical = "https://blog.example/@alice/01JART"
	}
	return meta.Build(in)
}
