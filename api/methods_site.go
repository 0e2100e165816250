package api

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/persona"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/siteconfig"
)

type siteGetParams struct {
	// PersonaID picks whose public-site settings "publication" shows; ""
	// for the primary persona.
	PersonaID string `json:"persona_id"`
}

type siteUpdateParams struct {
	Language        *string `json:"language"`
	RobotsNoindex   *bool   `json:"robots_noindex"`
	RobotsNoAI      *bool   `json:"robots_noai"`
	AuthorizedFetch *bool   `json:"authorized_fetch"`
	AllowQuotes     *bool   `json:"allow_quotes"`

	PersonaID   string             `json:"persona_id"`
	Publication *publicationParams `json:"publication"`

	// Title and Description are the names the site's name and
	// introduction had before they became one setting each:
	// still accepted for one release, as publication.site_name and
	// publication.introduction, which win when both are given.
	Title       *string `json:"title"`
	Description *string `json:"description"`
}

// aliases moves the old top-level names into the publication block.
func (p *siteUpdateParams) aliases() {
	if p.Title == nil && p.Description == nil {
		return
	}
	if p.Publication == nil {
		p.Publication = &publicationParams{}
	}
	if p.Publication.SiteName == nil {
		p.Publication.SiteName = p.Title
	}
	if p.Publication.Introduction == nil {
		p.Publication.Introduction = p.Description
	}
	p.Title, p.Description = nil, nil
}

func (p *siteUpdateParams) site() settings.Update {
	return settings.Update{Language: p.Language, RobotsNoindex: p.RobotsNoindex, RobotsNoAI: p.RobotsNoAI,
		AuthorizedFetch: p.AuthorizedFetch, AllowQuotes: p.AllowQuotes}
}

// touchesSite reports whether any of the site-wide settings is given.
func (p *siteUpdateParams) touchesSite() bool {
	return p.Language != nil || p.RobotsNoindex != nil || p.RobotsNoAI != nil || p.AuthorizedFetch != nil || p.AllowQuotes != nil
}

// publicationParams is a partial edit of one persona's public-site
// settings. Extensions is a JSON object (not a string holding one) and
// replaces the stored object whole.
type publicationParams struct {
	SiteName          *string          `json:"site_name"`
	Subtitle          *string          `json:"subtitle"`
	Author            *string          `json:"author"`
	Introduction      *string          `json:"introduction"`
	DesignTheme       *string          `json:"design_theme"`
	ShowServiceHeader *bool            `json:"show_service_header"`
	ShowSiteName      *bool            `json:"show_site_name"`
	ShowPagination    *bool            `json:"show_pagination"`
	ShowSideProfile   *bool            `json:"show_side_profile"`
	ShowSideRecent    *int             `json:"show_side_recent"`
	ShowSidePopular   *int             `json:"show_side_popular"`
	Extensions        *json.RawMessage `json:"extensions"`
}

func (p *publicationParams) update() siteconfig.Update {
	return siteconfig.Update{SiteName: p.SiteName, Subtitle: p.Subtitle, Author: p.Author, Introduction: p.Introduction,
		DesignTheme: p.DesignTheme, ShowServiceHeader: p.ShowServiceHeader, ShowSiteName: p.ShowSiteName,
		ShowPagination: p.ShowPagination, ShowSideProfile: p.ShowSideProfile, SideRecent: p.ShowSideRecent,
		SidePopular: p.ShowSidePopular, Extensions: p.Extensions}
}

// siteView is what both methods answer: the site-wide settings, as they
// always were, and the chosen persona's public-site settings.
type siteView struct {
	*settings.Site
	Publication *publicationView `json:"publication,omitempty"`
}

// publicationView is the persona's public-site settings as the public
// config document shows them (siteconfig.View), with whose they are and
// the themes the owner may pick.
type publicationView struct {
	PersonaID string `json:"persona_id"`
	siteconfig.View
	Themes []string `json:"themes"`
}

func (s *Server) publicationView(c *murlog.PubConfig) *publicationView {
	return &publicationView{PersonaID: c.PersonaID, View: siteconfig.NewView(c), Themes: s.deps.SiteConfig.Themes()}
}

// siteInfo is what the owner's app reads first: who it talks to, whether
// the caller is logged in, and the limits its forms count against, taken
// from the constants the services validate with.
type siteInfo struct {
	Version string `json:"version"`
	Domain  string `json:"domain"`
	// Name is the site's name as its pages show it (the primary persona's
	// site name, else its display name): the app's header and titles.
	Name        string     `json:"name"`
	Owner       bool       `json:"owner"`
	TOTPEnabled *bool      `json:"totp_enabled,omitempty"` // the owner only
	Limits      limitsView `json:"limits"`
	Themes      []string   `json:"themes"`
}

type limitsView struct {
	NoteChars        int `json:"note_chars"`
	ArticleChars     int `json:"article_chars"`
	TitleChars       int `json:"title_chars"`
	SummaryChars     int `json:"summary_chars"`
	Fields           int `json:"fields"`
	FieldNameChars   int `json:"field_name_chars"`
	FieldValueChars  int `json:"field_value_chars"`
	DisplayNameChars int `json:"display_name_chars"`
	BioChars         int `json:"bio_chars"`
}

var limits = limitsView{NoteChars: post.MaxNote, ArticleChars: post.MaxArticle, TitleChars: post.MaxTitle,
	SummaryChars: post.MaxSummary, Fields: murlog.MaxPersonaFields, FieldNameChars: persona.MaxFieldName,
	FieldValueChars: persona.MaxFieldValue, DisplayNameChars: persona.MaxDisplayName, BioChars: persona.MaxSummary}

func (s *Server) registerSite() {
	register(s, "site.info", public, false, func(ctx context.Context, _ *noParams) (any, error) {
		v := &siteInfo{Version: murlog.Version, Domain: s.deps.Site.Domain, Owner: murlog.CallerFrom(ctx).Owner,
			Limits: limits, Themes: []string{}}
		v.Name = v.Domain
		if s.deps.SiteConfig != nil {
			v.Themes = append(v.Themes, s.deps.SiteConfig.Themes()...)
			name, err := s.deps.SiteConfig.Name(ctx, "")
			if err != nil {
				return nil, err
			}
			v.Name = name
		}
		if v.Owner {
			st, err := s.deps.Auth.TOTPStatus(ctx)
			if err != nil {
				return nil, err
			}
			v.TOTPEnabled = &st.Enabled
		}
		return v, nil
	})
	register(s, "site.get_settings", owner, false, func(ctx context.Context, p *siteGetParams) (any, error) {
		site, err := s.deps.Settings.Get(ctx)
		if err != nil {
			return nil, err
		}
		return s.siteView(ctx, site, p.PersonaID)
	})
	register(s, "site.update_settings", owner, true, func(ctx context.Context, p *siteUpdateParams) (any, error) {
		sc := s.deps.SiteConfig
		p.aliases()
		// Everything is checked before anything is written: the two kinds
		// of settings live in two services, and a refused publication
		// field must not leave the site settings half-edited.
		if p.Publication != nil {
			if sc == nil {
				return nil, murlog.Errorf(murlog.EUnavailable, "public-site settings are not configured")
			}
			if err := sc.Check(p.Publication.update()); err != nil {
				return nil, inPublication(err)
			}
		}
		if sc != nil {
			// An unknown persona_id is refused before the site settings
			// are written, with or without publication.
			if _, _, err := sc.Get(ctx, p.PersonaID); err != nil {
				return nil, err
			}
		}
		var site *settings.Site
		var err error
		if p.touchesSite() || p.Publication == nil {
			site, err = s.deps.Settings.Update(ctx, p.site())
			if err != nil {
				return nil, err
			}
			s.changed()
			if p.AuthorizedFetch != nil && *p.AuthorizedFetch && s.deps.Artifacts != nil {
				// From this answer on only signed fetches get the documents:
				// the files any unsigned fetch could be served go first.
				if err := s.deps.Artifacts.WithdrawActivityPub(ctx); err != nil {
					return nil, err
				}
			}
		} else if site, err = s.deps.Settings.Get(ctx); err != nil {
			return nil, err
		}
		if p.Publication == nil {
			return s.siteView(ctx, site, p.PersonaID)
		}
		c, _, err := sc.Update(ctx, p.PersonaID, p.Publication.update())
		if err != nil {
			return nil, inPublication(err)
		}
		// The primary persona's site name and introduction are the whole
		// site's too (NodeInfo, the instance document).
		s.changed()
		return &siteView{Site: site, Publication: s.publicationView(c)}, nil
	})
}

// siteView adds the persona's public-site settings to the site's.
func (s *Server) siteView(ctx context.Context, site *settings.Site, personaID string) (*siteView, error) {
	v := &siteView{Site: site}
	if s.deps.SiteConfig == nil {
		return v, nil
	}
	c, _, err := s.deps.SiteConfig.Get(ctx, personaID)
	if err != nil {
		return nil, err
	}
	v.Publication = s.publicationView(c)
	return v, nil
}

// inPublication names a refused field by its place in the params
// ("publication.extensions.shareButtons[2]"), as the params decoder names
// the fields it refuses. persona_id is a top-level parameter.
func inPublication(err error) error {
	e := murlog.AsError(err)
	if e.Code != murlog.EInvalid || e.Field == "" || e.Field == "persona_id" || strings.HasPrefix(e.Field, "publication.") {
		return err
	}
	c := *e
	c.Field = "publication." + e.Field
	return &c
}

// changed tells the app that a persona or a site setting changed.
func (s *Server) changed() {
	if s.deps.Changed != nil {
		s.deps.Changed()
	}
}
