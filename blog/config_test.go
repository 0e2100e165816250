package blog_test

import (
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/store"
)

// TestSettingsShapeThePages: sidebar counts are clamped to 0–20 when read
// (and 0 hides the list), pagination and the side profile follow their
// switches, and the page language follows site_language.
func TestSettingsShapeThePages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var mid *murlog.Post
	for i := range 25 {
		p := e.note("settings post")
		if i == 12 {
			mid = p
		}
	}
	for _, c := range []struct {
		recent, popular    int
		wantRecent, wantPo int
	}{{1000, -5, 20, 0}, {0, 3, 0, 3}, {-1, 1000, 0, 20}, {2, 0, 2, 0}} {
		e.config(func(cf *murlog.PubConfig) { cf.SideRecent, cf.SidePopular = c.recent, c.popular })
		p, err := e.loader.PostPage(ctx, "alice", mid.ID)
		if err != nil {
			t.Fatal(err)
		}
		if p.Sidebar.RecentCount != c.wantRecent || len(p.Sidebar.Recent) != c.wantRecent || p.Sidebar.PopularCount != c.wantPo ||
			p.Hydrate.RecentCount != c.wantRecent || p.Hydrate.PopularCount != c.wantPo {
			t.Errorf("side_recent %d, side_popular %d: recent %d (%d listed), popular %d; want %d, %d", c.recent, c.popular,
				p.Sidebar.RecentCount, len(p.Sidebar.Recent), p.Sidebar.PopularCount, c.wantRecent, c.wantPo)
		}
	}
	e.config(func(cf *murlog.PubConfig) { cf.ShowPagination, cf.ShowSideProfile = false, false })
	p, err := e.loader.PostPage(ctx, "alice", mid.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.Older != nil || p.Newer != nil || p.Profile != nil || p.Sidebar.Profile {
		t.Errorf("pagination and side profile off: older %v newer %v profile %v", p.Older, p.Newer, p.Profile)
	}
	s, err := e.loader.SitePage(ctx, blog.SiteQuery{})
	if err != nil || s.Pager != nil || s.Profile == nil {
		t.Errorf("site page with pagination off: pager %v profile %v, %v; want no pager, the profile", s.Pager, s.Profile, err)
	}
	e.config(func(cf *murlog.PubConfig) {})
	p, _ = e.loader.PostPage(ctx, "alice", mid.ID)
	if p.Older == nil || p.Newer == nil || p.Profile == nil || p.Lang != "en" || p.Post.PublishedDisplay[:3] != "May" {
		t.Errorf("defaults: older %v newer %v profile %v lang %s date %s", p.Older, p.Newer, p.Profile, p.Lang, p.Post.PublishedDisplay)
	}
	e.update(func(tx store.Tx) error { return tx.Settings().Set(settings.KeyLanguage, "ja-JP") })
	p, _ = e.loader.PostPage(ctx, "alice", mid.ID)
	if p.Lang != "ja" || p.T["home"] != "ホーム" || p.Post.PublishedDisplay != "2026年5月1日 09:00" {
		t.Errorf("site_language ja-JP: lang %s home %q date %q; want ja", p.Lang, p.T["home"], p.Post.PublishedDisplay)
	}
}
