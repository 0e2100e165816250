package api

import (
	"context"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/persona"
)

type personaUpdateParams struct {
	ID           string          `json:"id"`
	DisplayName  *string         `json:"display_name"`
	Summary      *string         `json:"summary"`
	Fields       *[]murlog.Field `json:"fields"`
	AvatarPath   *string         `json:"avatar_path"`
	HeaderPath   *string         `json:"header_path"`
	Locked       *bool           `json:"locked"`
	ShowFollows  *bool           `json:"show_follows"`
	Discoverable *bool           `json:"discoverable"`
}

func (s *Server) registerPersonas() {
	register(s, "personas.list", public, false, func(ctx context.Context, _ *noParams) (any, error) {
		ps, err := s.deps.Personas.List(ctx)
		if err != nil {
			return nil, err
		}
		views := make([]*personaView, len(ps))
		for i, p := range ps {
			s.names.put(p)
			views[i] = s.personaView(p)
		}
		return newPage(views, ""), nil
	})
	register(s, "personas.get", public, false, func(ctx context.Context, p *struct {
		ID string `json:"id"`
	}) (any, error) {
		// No id is the primary persona, the one most callers mean.
		get := s.deps.Personas.Get
		if p.ID == "" {
			get = func(ctx context.Context, _ string) (*murlog.Persona, error) { return s.deps.Personas.Primary(ctx) }
		}
		per, err := get(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		return s.personaView(per), nil
	})
	register(s, "personas.update", owner, true, func(ctx context.Context, p *personaUpdateParams) (any, error) {
		per, err := s.deps.Personas.Update(ctx, persona.Update{ID: p.ID, DisplayName: p.DisplayName, Summary: p.Summary,
			Fields: p.Fields, AvatarPath: p.AvatarPath, HeaderPath: p.HeaderPath, Locked: p.Locked,
			ShowFollows: p.ShowFollows, Discoverable: p.Discoverable})
		if err != nil {
			return nil, err
		}
		s.changed()
		return s.personaView(per), nil
	})
}
