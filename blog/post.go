package blog

import (
	"cmp"
	"context"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// PostPage loads the page at /@name/<seg>, where seg is a post id or an
// article's slug. A post that is not published, or not this persona's, is
// the persona's 404 page; a deleted one its 410 page. The page of an
// article with a slug lives at its slug address: its id address, and
// each of its old slugs, load as a redirect there (Page.Redirect).
func (l *Loader) PostPage(ctx context.Context, username, seg string) (*Page, error) {
	var page *Page
	err := l.view(ctx, func(tx store.Tx) error {
		s, missing, err := l.openPage(tx, username)
		if s == nil {
			page = missing
			return err
		}
		var p *murlog.Post
		switch {
		case murlog.ValidID(seg):
			p, err = l.publicPost(s, seg)
			if murlog.ErrorCode(err) == murlog.ENotFound || err == nil && p.PersonaID != s.persona.ID {
				page, err = l.missing(s, seg)
				return err
			}
		case len(seg) <= murlog.MaxSlug:
			p, err = l.slugPost(s, seg)
			if murlog.ErrorCode(err) == murlog.ENotFound {
				page = l.errorOf(s, 404)
				return nil
			}
		default:
			page = l.errorOf(s, 404)
			return nil
		}
		if err != nil {
			return err
		}
		if seg != cmp.Or(p.Slug, p.ID) {
			page = &Page{Redirect: l.Site.PageURL(s.persona.Username, p.ID, p.Slug)}
			return nil
		}
		page, err = l.postPage(s, p)
		return err
	})
	return page, err
}

// missing is the page of a post id that no published post of s has: 410
// when the persona deleted it, 404 otherwise.
func (l *Loader) missing(s *scope, id string) (*Page, error) {
	ts, err := s.tx.Tombstones().Get(id)
	switch {
	case err == nil && ts.PersonaID == s.persona.ID:
		return l.errorOf(s, 410), nil
	case err == nil || murlog.ErrorCode(err) == murlog.ENotFound:
		return l.errorOf(s, 404), nil
	}
	return nil, err
}

func (l *Loader) postPage(s *scope, p *murlog.Post) (*Page, error) {
	page := l.base(s, "post")
	v := l.postView(s, p, true)
	page.Post = &v
	for i := range page.Site.Menu {
		page.Site.Menu[i].Current = page.Site.Menu[i].URL == v.URL
	}
	if s.cfg.ShowPagination && !p.Page { // a page is in the menu, not in the stream of posts
		older, newer, err := l.neighbours(s, p)
		if err != nil {
			return nil, err
		}
		if older != nil {
			page.Older = l.postLink(s, older)
		}
		if newer != nil {
			page.Newer = l.postLink(s, newer)
		}
	}
	sb := &Sidebar{Profile: s.cfg.ShowSideProfile, RecentCount: murlog.ClampSide(s.cfg.SideRecent),
		PopularCount: murlog.ClampSide(s.cfg.SidePopular)}
	if sb.RecentCount > 0 {
		recent, err := l.recentPosts(s, sb.RecentCount)
		if err != nil {
			return nil, err
		}
		for _, r := range recent {
			sb.Recent = append(sb.Recent, *l.postLink(s, r))
		}
	}
	page.Sidebar = sb
	if sb.Profile {
		page.Profile = l.profile(s)
	}
	// The share text and the metadata carry the stored text, not a
	// vertical theme's display form; a note has no title of its own
	// (meta.Build makes one of its text).
	title, desc := v.ListTitle, v.Description
	if s.info.Vertical {
		pt := l.texts(p)
		title, desc = pt.title, pt.description
	}
	page.Share = share(s, v.URL, title)
	page.Hydrate.PostID, page.Hydrate.RecentCount, page.Hydrate.PopularCount = p.ID, sb.RecentCount, sb.PopularCount
	page.Hydrate.Share = shareIDs(page.Share)
	metaTitle := ""
	if p.Kind == murlog.KindArticle {
		metaTitle = p.Title
	}
	page.Meta = l.meta(s, page, "post", p, metaTitle, desc, v.Image, v.URL)
	l.finish(page)
	return page, nil
}

// PreviewPage loads the page the owner's theme picker shows beside its
// list: the primary persona's newest listed post (its site page when it
// has none) as the theme named would render it, whatever theme the
// persona chose. Only the theme differs from the public page, so the
// preview shows the owner's own words in each design. An unknown theme is
// ENotFound.
func (l *Loader) PreviewPage(ctx context.Context, themeName string) (*Page, error) {
	if !l.Themes.Exists(themeName) {
		return nil, murlog.NotFound("theme")
	}
	var page *Page
	err := l.view(ctx, func(tx store.Tx) error {
		s, err := l.open(tx, "")
		if err != nil {
			return err
		}
		// The scope is this page's own copy: the cached settings keep
		// the persona's theme.
		s.info = l.Themes.Info(themeName)
		newest, err := l.recentPosts(s, 1)
		if err != nil {
			return err
		}
		if len(newest) == 0 {
			page, err = l.sitePage(s, SiteQuery{})
			return err
		}
		page, err = l.postPage(s, newest[0])
		return err
	})
	return page, err
}
