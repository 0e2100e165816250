package api

import (
	"context"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/post"
)

type postCreateParams struct {
	PersonaID   string            `json:"persona_id"`
	Kind        murlog.PostKind   `json:"kind"`
	Title       string            `json:"title"`
	Content     string            `json:"content"`
	Summary     string            `json:"summary"`
	Sensitive   bool              `json:"sensitive"`
	Visibility  murlog.Visibility `json:"visibility"`
	Language    string            `json:"language"`
	InReplyTo   string            `json:"in_reply_to"`
	FederateAs  string            `json:"federate_as"`
	PublishedAt Nullable[string]  `json:"published_at"`
	Slug        string            `json:"slug"`
	Page        bool              `json:"page"`
}

type postUpdateParams struct {
	ID          string             `json:"id"`
	Title       *string            `json:"title"`
	Content     *string            `json:"content"`
	Summary     *string            `json:"summary"`
	Sensitive   *bool              `json:"sensitive"`
	Visibility  *murlog.Visibility `json:"visibility"`
	Language    *string            `json:"language"`
	FederateAs  *string            `json:"federate_as"`
	PublishedAt Nullable[string]   `json:"published_at"`
	Slug        *string            `json:"slug"`
	Page        *bool              `json:"page"`
}

type postListParams struct {
	PersonaID string `json:"persona_id"`
	Cursor    string `json:"cursor"`
	Limit     int    `json:"limit"`
}

type idParams struct {
	ID string `json:"id"`
}

// schedule turns the published_at parameter into a post.Schedule: omitted
// is now, null is a draft, a time schedules (future) or back-dates (past).
func schedule(n Nullable[string]) (post.Schedule, error) {
	switch {
	case !n.Set:
		return post.Schedule{Mode: post.PublishNow}, nil
	case n.Null:
		return post.Schedule{Mode: post.PublishDraft}, nil
	}
	t, err := parseTime("published_at", n.Value)
	if err != nil {
		return post.Schedule{}, err
	}
	return post.Schedule{Mode: post.PublishAt, At: t}, nil
}

func audience(ctx context.Context) murlog.Audience {
	if murlog.CallerFrom(ctx).Owner {
		return murlog.AudienceOwner
	}
	return murlog.AudiencePublic
}

// federateAs reads the federate_as parameter: "" or "article" federates
// an article as an Article, "note" as a Note (murlog.Post.AsNote).
func federateAs(v string) (bool, error) {
	switch v {
	case "", "article":
		return false, nil
	case "note":
		return true, nil
	}
	return false, murlog.Invalid("federate_as", "must be article or note")
}

func (s *Server) registerPosts() {
	register(s, "posts.create", owner, true, func(ctx context.Context, p *postCreateParams) (any, error) {
		sch, err := schedule(p.PublishedAt)
		if err != nil {
			return nil, err
		}
		asNote, err := federateAs(p.FederateAs)
		if err != nil {
			return nil, err
		}
		created, err := s.deps.Posts.Create(ctx, post.CreateInput{PersonaID: p.PersonaID, Kind: p.Kind, Title: p.Title,
			Content: p.Content, Summary: p.Summary, Sensitive: p.Sensitive, Visibility: p.Visibility,
			Language: p.Language, InReplyTo: p.InReplyTo, AsNote: asNote, PublishedAt: sch, Slug: p.Slug, Page: p.Page})
		if err != nil {
			return nil, err
		}
		s.changed()
		return s.postView(ctx, created, true)
	})
	register(s, "posts.update", owner, true, func(ctx context.Context, p *postUpdateParams) (any, error) {
		in := post.UpdateInput{ID: p.ID, Title: p.Title, Content: p.Content, Summary: p.Summary,
			Sensitive: p.Sensitive, Visibility: p.Visibility, Language: p.Language, Slug: p.Slug, Page: p.Page}
		if p.FederateAs != nil {
			asNote, err := federateAs(*p.FederateAs)
			if err != nil {
				return nil, err
			}
			in.AsNote = &asNote
		}
		if p.PublishedAt.Set {
			sch, err := schedule(p.PublishedAt)
			if err != nil {
				return nil, err
			}
			in.PublishedAt = &sch
		}
		updated, err := s.deps.Posts.Update(ctx, in)
		if err != nil {
			return nil, err
		}
		s.changed()
		return s.postView(ctx, updated, true)
	})
	register(s, "posts.delete", owner, true, func(ctx context.Context, p *idParams) (any, error) {
		if err := s.deps.Posts.Delete(ctx, p.ID); err != nil {
			return nil, err
		}
		s.changed()
		return nil, nil
	})
	register(s, "posts.get", public, false, func(ctx context.Context, p *idParams) (any, error) {
		a := audience(ctx)
		got, err := s.deps.Posts.Get(ctx, p.ID, a)
		if err != nil {
			return nil, err
		}
		v, err := s.postView(ctx, got, a == murlog.AudienceOwner)
		if err == nil && a == murlog.AudienceOwner {
			err = s.markPinned(ctx, v)
		}
		return v, err
	})
	register(s, "posts.list", public, false, func(ctx context.Context, p *postListParams) (any, error) {
		a := audience(ctx)
		ps, next, err := s.deps.Posts.List(ctx, post.ListInput{PersonaID: p.PersonaID, Cursor: p.Cursor, Limit: p.Limit, Audience: a})
		if err != nil {
			return nil, err
		}
		views := make([]*postView, len(ps))
		for i, x := range ps {
			if views[i], err = s.postView(ctx, x, a == murlog.AudienceOwner); err != nil {
				return nil, err
			}
		}
		if a == murlog.AudienceOwner {
			if err := s.markPinned(ctx, views...); err != nil {
				return nil, err
			}
		}
		return newPage(views, next), nil
	})
	register(s, "posts.preview", owner, false, func(ctx context.Context, p *postPreviewParams) (any, error) {
		pv, err := s.deps.Posts.Preview(p.Kind, p.Content)
		if err != nil {
			return nil, err
		}
		return &previewView{HTML: pv.HTML, Chars: pv.Chars, Limit: pv.Limit}, nil
	})
}

// postPreviewParams is the owner's editor asking how a text would look.
// Title is accepted so the editor may send what it has, and ignored: a
// title is shown as text, never rendered.
type postPreviewParams struct {
	Kind    murlog.PostKind `json:"kind"`
	Content string          `json:"content"`
	Title   string          `json:"title"`
}

type previewView struct {
	HTML  string `json:"html"`
	Chars int    `json:"chars"`
	Limit int    `json:"limit"`
}
