package blog

import (
	"context"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/siteconfig"
	"github.com/murlog/murlog/store"
)

// The public read API's documents (GET /api/pub/…). Posts are the very
// PostView the pages show, so the browser renders the server's partials
// with them.

// PostDoc answers GET /api/pub/posts/{id}: the post and the ids of its
// listed neighbours of the same persona ("" where there is none).
type PostDoc struct {
	Post    PostView `json:"post"`
	OlderID string   `json:"older_id,omitempty"`
	NewerID string   `json:"newer_id,omitempty"`
}

// PostList answers the list endpoints. Next is the cursor of the
// following page ("" on the last, and always for by-ids).
type PostList struct {
	Posts []PostView `json:"posts"`
	Next  string     `json:"next,omitempty"`
}

// ConfigDoc answers GET /api/pub/personas/{username}/config: the persona's
// public-site settings under the names site.get_settings gives them
// (siteconfig.View; the defaults when none are saved), with the theme in
// use and the sidebar counts clamped as pages read them.
type ConfigDoc struct {
	Username string `json:"username"`
	siteconfig.View
}

// Limits of the posts API.
const (
	MaxAPILimit     = 20
	DefaultAPILimit = 20
)

// PostsQuery selects a page of GET /api/pub/personas/{username}/posts.
type PostsQuery struct {
	Username string
	After    string
	Oldest   bool
	Limit    int // 1…MaxAPILimit; 0 for DefaultAPILimit
}

// APIPost loads a published public or unlisted post (ENotFound for any
// other) with its neighbour ids.
func (l *Loader) APIPost(ctx context.Context, id string) (*PostDoc, error) {
	if !murlog.ValidID(id) {
		return nil, murlog.NotFound("post")
	}
	var doc *PostDoc
	err := l.view(ctx, func(tx store.Tx) error {
		now := l.now(tx)
		p, err := tx.PublicPosts().Get(id, now)
		if err != nil {
			return err
		}
		pe, err := tx.Personas().Get(p.PersonaID)
		if err != nil {
			return err
		}
		s, err := l.scopeOf(tx, pe, false)
		neutral(s)
		if err != nil {
			return err
		}
		doc = &PostDoc{Post: l.postView(s, p, true)}
		if p.Page {
			return nil // in the menu, not between posts
		}
		older, newer, err := l.neighbours(s, p)
		if err != nil {
			return err
		}
		if older != nil {
			doc.OlderID = older.ID
		}
		if newer != nil {
			doc.NewerID = newer.ID
		}
		return nil
	})
	return doc, err
}

// APIPosts loads a page of a persona's listed posts in publication order.
// An unknown persona is ENotFound; a cursor the store refuses EInvalid.
func (l *Loader) APIPosts(ctx context.Context, q PostsQuery) (*PostList, error) {
	if q.Limit == 0 {
		q.Limit = DefaultAPILimit
	}
	if q.Limit < 1 || q.Limit > MaxAPILimit {
		return nil, murlog.Invalid("limit", "must be between 1 and %d", MaxAPILimit)
	}
	if q.Username == "" {
		return nil, murlog.NotFound("persona")
	}
	if q.After != "" && !murlog.ValidID(q.After) {
		return nil, murlog.Invalid("after", "is not a post id")
	}
	var list *PostList
	err := l.view(ctx, func(tx store.Tx) error {
		s, err := l.open(tx, q.Username)
		neutral(s)
		if err != nil {
			return err
		}
		posts, err := tx.PublicPosts().List(store.PublicQuery{PersonaID: s.persona.ID, Now: s.now, Oldest: q.Oldest, After: q.After,
			Limit: q.Limit + 1, Excerpts: true})
		if err != nil {
			return err
		}
		list = &PostList{}
		if len(posts) > q.Limit {
			posts = posts[:q.Limit]
			list.Next = posts[len(posts)-1].ID
		}
		list.Posts = l.apiViews(s, posts)
		return nil
	})
	return list, err
}

func (l *Loader) apiViews(s *scope, posts []*murlog.Post) []PostView {
	out := make([]PostView, len(posts))
	for i, p := range posts {
		out[i] = l.postView(s, p, false) // a list carries excerpts, not bodies
	}
	return out
}

// CheckIDs validates the ids of a by-ids request: at most store.MaxByIDs,
// each a post id.
func CheckIDs(ids []string) error {
	if len(ids) > store.MaxByIDs {
		return murlog.Invalid("ids", "at most %d ids", store.MaxByIDs)
	}
	for _, id := range ids {
		if !murlog.ValidID(id) {
			return murlog.Invalid("ids", "must be post ids")
		}
	}
	return nil
}

// APIByIDs loads the listed posts among ids, in the order given; the
// others are dropped. Each post is shown as its own persona's pages show
// it (the vertical theme converts its text).
func (l *Loader) APIByIDs(ctx context.Context, ids []string) (*PostList, error) {
	if err := CheckIDs(ids); err != nil {
		return nil, err
	}
	list := &PostList{Posts: []PostView{}}
	if len(ids) == 0 {
		return list, nil
	}
	err := l.view(ctx, func(tx store.Tx) error {
		posts, err := tx.PublicPosts().ByIDs(ids, l.now(tx))
		if err != nil {
			return err
		}
		scopes := map[string]*scope{}
		for _, p := range posts {
			s := scopes[p.PersonaID]
			if s == nil {
				pe, err := tx.Personas().Get(p.PersonaID)
				if err != nil {
					return err
				}
				s, err = l.scopeOf(tx, pe, false)
				neutral(s)
				if err != nil {
					return err
				}
				scopes[p.PersonaID] = s
			}
			list.Posts = append(list.Posts, l.postView(s, p, false))
		}
		return nil
	})
	return list, err
}

// APIConfig loads a persona's public site settings.
func (l *Loader) APIConfig(ctx context.Context, username string) (*ConfigDoc, error) {
	if username == "" {
		return nil, murlog.NotFound("persona")
	}
	var doc *ConfigDoc
	err := l.view(ctx, func(tx store.Tx) error {
		s, err := l.open(tx, username)
		if err != nil {
			return err
		}
		// s.cfg.Extensions is what siteconfig.Load validated: a stored
		// value that no longer validates reads as {} (Load has logged why).
		v := siteconfig.NewView(s.cfg)
		v.DesignTheme = s.info.Name
		v.ShowSideRecent, v.ShowSidePopular = murlog.ClampSide(v.ShowSideRecent), murlog.ClampSide(v.ShowSidePopular)
		doc = &ConfigDoc{Username: s.persona.Username, View: v}
		return nil
	})
	return doc, err
}

// neutral makes a scope's text theme-independent: the public API answers
// the stored text whatever the persona's theme, so its documents can be
// cached and read by anyone (a vertical theme converts for display only,
// in what it shows vertically).
func neutral(s *scope) {
	if s != nil {
		s.info.Vertical = false
	}
}
