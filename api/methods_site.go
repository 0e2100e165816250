package api

import (
	"context"

	"github.com/murlog/murlog/settings"
)

type siteUpdateParams struct {
	Title           *string `json:"title"`
	Description     *string `json:"description"`
	Language        *string `json:"language"`
	RobotsNoindex   *bool   `json:"robots_noindex"`
	RobotsNoAI      *bool   `json:"robots_noai"`
	AuthorizedFetch *bool   `json:"authorized_fetch"`
	AllowQuotes     *bool   `json:"allow_quotes"`
}

func (s *Server) registerSite() {
	register(s, "site.get_settings", owner, false, func(ctx context.Context, _ *noParams) (any, error) {
		return s.deps.Settings.Get(ctx)
	})
	register(s, "site.update_settings", owner, true, func(ctx context.Context, p *siteUpdateParams) (any, error) {
		site, err := s.deps.Settings.Update(ctx, settings.Update{Title: p.Title, Description: p.Description,
			Language: p.Language, RobotsNoindex: p.RobotsNoindex, RobotsNoAI: p.RobotsNoAI,
			AuthorizedFetch: p.AuthorizedFetch, AllowQuotes: p.AllowQuotes})
		if err == nil {
			s.changed()
		}
		return site, err
	})
}

// changed tells the app that a persona or a site setting changed.
func (s *Server) changed() {
	if s.deps.Changed != nil {
		s.deps.Changed()
	}
}
