package api

import (
	"context"
	"sync"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/markup"
	"github.com/murlog/murlog/store"
)

// personaView is a persona as the API returns it. The private key never
// appears; acct and url are derived from the site.
type personaView struct {
	ID             string         `json:"id"`
	Username       string         `json:"username"`
	Acct           string         `json:"acct"`
	DisplayName    string         `json:"display_name"`
	Summary        string         `json:"summary"`
	Fields         []murlog.Field `json:"fields"`
	AvatarPath     string         `json:"avatar_path"`
	HeaderPath     string         `json:"header_path"`
	Locked         bool           `json:"locked"`
	ShowFollows    bool           `json:"show_follows"`
	Discoverable   bool           `json:"discoverable"`
	Primary        bool           `json:"primary"`
	PublicKeyPEM   string         `json:"public_key_pem"`
	PostsCount     int            `json:"posts_count"`
	FollowersCount int            `json:"followers_count"`
	FollowingCount int            `json:"following_count"`
	URL            string         `json:"url"`
	CreatedAt      time.Time      `json:"created_at"`
	UpdatedAt      time.Time      `json:"updated_at"`
}

func (s *Server) personaView(p *murlog.Persona) *personaView {
	fields := p.Fields
	if fields == nil {
		fields = []murlog.Field{}
	}
	return &personaView{ID: p.ID, Username: p.Username, Acct: p.Username + "@" + s.deps.Site.Domain,
		DisplayName: p.DisplayName, Summary: p.Summary, Fields: fields, AvatarPath: p.AvatarPath,
		HeaderPath: p.HeaderPath, Locked: p.Locked, ShowFollows: p.ShowFollows, Discoverable: p.Discoverable,
		Primary: p.Primary, PublicKeyPEM: p.PublicKeyPEM, PostsCount: p.PostsCount,
		FollowersCount: p.FollowersCount, FollowingCount: p.FollowingCount,
		URL: s.deps.Site.PersonaURL(p.Username), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

// postView is a post as the API returns it. Source and state are the
// owner's business and are omitted for anonymous readers.
type postView struct {
	ID         string `json:"id"`
	PersonaID  string `json:"persona_id"`
	Kind       string `json:"kind"`
	Title      string `json:"title,omitempty"`
	FederateAs string `json:"federate_as,omitempty"` // articles: "article" or "note"
	Slug       string `json:"slug,omitempty"`        // articles: the address under the persona, "" for none
	Page       bool   `json:"page,omitempty"`        // articles: a page of the site, out of lists and federation
	Content    string `json:"content"`
	// Excerpt is an article's text without markup, cut at listExcerpt
	// characters: what lists show in its place (the owner's timeline).
	Excerpt     string     `json:"excerpt,omitempty"`
	Source      *string    `json:"source,omitempty"`
	Summary     string     `json:"summary"`
	Sensitive   bool       `json:"sensitive"`
	Visibility  string     `json:"visibility"`
	Language    string     `json:"language"`
	Tags        []string   `json:"tags"`
	InReplyTo   string     `json:"in_reply_to"` // the id (IRI) of the post answered, "" for none
	Mentions    []string   `json:"mentions"`    // the mentioned actors' ids, resolved by WebFinger when the post was written
	PublishedAt *time.Time `json:"published_at"`
	State       string     `json:"state,omitempty"`  // draft, scheduled, published
	Pinned      *bool      `json:"pinned,omitempty"` // the owner's views: featured on the profile (posts.pin)
	URL         string     `json:"url"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

// listExcerpt is how many characters of an article's text postView's
// Excerpt keeps: the blog's page description (murlog.ExcerptLen holds two
// more, so the cut can see the boundary after them).
const listExcerpt = murlog.ExcerptLen - 2

func (s *Server) postView(ctx context.Context, p *murlog.Post, asOwner bool) (*postView, error) {
	return s.postViewWith(ctx, p, asOwner, s.deps.Personas)
}

// postViewWith is postView reading an uncached username through ps.
func (s *Server) postViewWith(ctx context.Context, p *murlog.Post, asOwner bool, ps personaGetter) (*postView, error) {
	username, err := s.names.get(ctx, p.PersonaID, ps)
	if err != nil {
		return nil, err
	}
	tags := p.Tags
	if tags == nil {
		tags = []string{}
	}
	v := &postView{ID: p.ID, PersonaID: p.PersonaID, Kind: string(p.Kind), Title: p.Title, Content: p.Content,
		Summary: p.Summary, Sensitive: p.Sensitive, Visibility: string(p.Visibility), Language: p.Language,
		Tags: tags, InReplyTo: p.InReplyTo, Mentions: []string{}, PublishedAt: p.PublishedAt, URL: s.deps.Site.PageURL(username, p.ID, p.Slug),
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	for _, m := range p.Mentions {
		v.Mentions = append(v.Mentions, m.URI)
	}
	if p.Kind == murlog.KindArticle {
		// Posts keep the start of their text from when they were written;
		// older rows derive it here, as the blog does.
		text := p.Excerpt
		if text == "" {
			text = markup.PlainTextPrefix(p.Content, murlog.ExcerptLen)
		}
		v.Excerpt = markup.ExcerptText(text, listExcerpt)
		v.Slug, v.Page = p.Slug, p.Page
		v.FederateAs = "article"
		if p.AsNote {
			v.FederateAs = "note"
		}
	}
	if asOwner {
		src := p.Source
		v.Source = &src
		v.State = p.State(s.deps.Now())
	}
	return v, nil
}

// markPinned sets Pinned on the owner's views of posts, reading the pins
// of their personas (at most five each) in one transaction.
func (s *Server) markPinned(ctx context.Context, views ...*postView) error {
	if s.deps.Store == nil || len(views) == 0 {
		return nil
	}
	pinned := map[string]bool{}
	err := s.deps.Store.View(ctx, func(tx store.Tx) error {
		seen := map[string]bool{}
		for _, v := range views {
			if seen[v.PersonaID] {
				continue
			}
			seen[v.PersonaID] = true
			pins, err := tx.Pins().List(v.PersonaID)
			if err != nil {
				return err
			}
			for _, p := range pins {
				pinned[p.PostID] = true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, v := range views {
		on := pinned[v.ID]
		v.Pinned = &on
	}
	return nil
}

// page is a cursor-paginated list. NextCursor is null on the last page;
// otherwise pass it back as "cursor" for the next one.
type page[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

func newPage[T any](items []T, next string) *page[T] {
	p := &page[T]{Items: items}
	if p.Items == nil {
		p.Items = []T{}
	}
	if next != "" {
		p.NextCursor = &next
	}
	return p
}

// usernameCache maps persona ids to usernames for building URLs. Usernames
// never change, so entries never go stale.
type usernameCache struct{ m sync.Map }

type personaGetter interface {
	Get(ctx context.Context, id string) (*murlog.Persona, error)
}

func (c *usernameCache) get(ctx context.Context, id string, ps personaGetter) (string, error) {
	if v, ok := c.m.Load(id); ok {
		return v.(string), nil
	}
	p, err := ps.Get(ctx, id)
	if err != nil {
		return "", err
	}
	c.m.Store(id, p.Username)
	return p.Username, nil
}

func (c *usernameCache) put(p *murlog.Persona) { c.m.Store(p.ID, p.Username) }
