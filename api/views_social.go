package api

import (
	"context"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// actorView is a remote actor as the API returns it. Relationship is
// given where the actor is the subject (actors.lookup, actors.get, lists
// of accounts) and left out where it is the author of a post.
type actorView struct {
	ID           string            `json:"id"`
	URI          string            `json:"uri"`
	Acct         string            `json:"acct"`
	Username     string            `json:"username"`
	Domain       string            `json:"domain"`
	DisplayName  string            `json:"display_name"`
	Summary      string            `json:"summary"`
	URL          string            `json:"url"`
	AvatarURL    string            `json:"avatar_url"`
	HeaderURL    string            `json:"header_url"`
	Type         string            `json:"type"`
	Locked       bool              `json:"locked"`
	Fields       []murlog.Field    `json:"fields"`
	MovedTo      string            `json:"moved_to"`
	FetchedAt    time.Time         `json:"fetched_at"`
	Relationship *relationshipView `json:"relationship,omitempty"`
}

// relationshipView is how a persona and a remote actor stand.
type relationshipView struct {
	Following      string `json:"following"`   // none, pending, accepted
	FollowedBy     string `json:"followed_by"` // none, pending, accepted
	Blocking       bool   `json:"blocking"`
	BlockedBy      bool   `json:"blocked_by"`
	DomainBlocking bool   `json:"domain_blocking"`
}

// remotePostView is a cached (or just fetched) remote post. External
// marks the types Mastodon too shows as a title and a link to the
// original (Article, Page, Question).
type remotePostView struct {
	ID          string                    `json:"id"`
	URI         string                    `json:"uri"`
	URL         string                    `json:"url"`
	Type        string                    `json:"type"`
	Actor       *actorView                `json:"actor"`
	Name        string                    `json:"name"`
	Content     string                    `json:"content"`
	External    bool                      `json:"external"`
	Summary     string                    `json:"summary"`
	Sensitive   bool                      `json:"sensitive"`
	Visibility  string                    `json:"visibility"`
	InReplyTo   string                    `json:"in_reply_to"`
	Quote       any                       `json:"quote"` // *remotePostView, *postView or nil
	Language    string                    `json:"language"`
	Attachments []murlog.RemoteAttachment `json:"attachments"`
	Tags        []string                  `json:"tags"`
	PublishedAt time.Time                 `json:"published_at"`
	UpdatedAt   *time.Time                `json:"updated_at"`
	Favourited  bool                      `json:"favourited"`
	Reblogged   bool                      `json:"reblogged"`
}

// timelineItemView is one row of timeline.home; ID is the cursor.
type timelineItemView struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"` // local, remote
	Post      any        `json:"post"` // *postView or *remotePostView
	BoostedBy *actorView `json:"boosted_by"`
	At        time.Time  `json:"at"`
}

type notificationView struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	Actor      *actorView      `json:"actor"`
	Post       *postView       `json:"post"`
	RemotePost *remotePostView `json:"remote_post"`
	Read       bool            `json:"read"`
	CreatedAt  time.Time       `json:"created_at"`
}

type followView struct {
	ID         string     `json:"id"`
	Actor      *actorView `json:"actor"`
	State      string     `json:"state"`
	CreatedAt  time.Time  `json:"created_at"`
	AcceptedAt *time.Time `json:"accepted_at"`
}

type followerView struct {
	ID        string     `json:"id"`
	Actor     *actorView `json:"actor"`
	State     string     `json:"state"`
	CreatedAt time.Time  `json:"created_at"`
}

type domainBlockView struct {
	Domain    string    `json:"domain"`
	Reason    string    `json:"reason"`
	CreatedAt time.Time `json:"created_at"`
}

func newDomainBlockView(b *murlog.DomainBlock) *domainBlockView {
	return &domainBlockView{Domain: b.Domain, Reason: b.Reason, CreatedAt: b.CreatedAt}
}

// views builds social views inside one read transaction, as seen by one
// persona (its relationships, its likes and boosts), loading each actor
// once.
type views struct {
	s      *Server
	ctx    context.Context
	tx     store.Tx
	p      *murlog.Persona
	actors map[string]*murlog.RemoteActor
}

// withViews runs fn with views for the persona ("" for the primary).
func (s *Server) withViews(ctx context.Context, personaID string, fn func(v *views) error) error {
	if s.deps.Store == nil {
		return errNoSocial
	}
	return s.deps.Store.View(ctx, func(tx store.Tx) error {
		var (
			p   *murlog.Persona
			err error
		)
		if personaID == "" {
			p, err = tx.Personas().Primary()
		} else if !murlog.ValidID(personaID) {
			err = murlog.Invalid("persona_id", "is not a valid id")
		} else {
			p, err = tx.Personas().Get(personaID)
		}
		if err != nil {
			return err
		}
		return fn(&views{s: s, ctx: ctx, tx: tx, p: p, actors: map[string]*murlog.RemoteActor{}})
	})
}

// viewed runs withViews for a method that returns one value.
func viewed[T any](s *Server, ctx context.Context, personaID string, fn func(v *views) (T, error)) (any, error) {
	var out T
	err := s.withViews(ctx, personaID, func(v *views) (err error) {
		out, err = fn(v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (v *views) actor(id string) (*murlog.RemoteActor, error) {
	if a, ok := v.actors[id]; ok {
		return a, nil
	}
	a, err := v.tx.RemoteActors().Get(id)
	if err != nil {
		return nil, err
	}
	v.actors[id] = a
	return a, nil
}

// actorView renders a; with rel, its relationship to the persona too.
func (v *views) actorView(a *murlog.RemoteActor, rel bool) (*actorView, error) {
	fields := a.Fields
	if fields == nil {
		fields = []murlog.Field{}
	}
	av := &actorView{ID: a.ID, URI: a.URI, Acct: a.Handle(), Username: a.Username, Domain: a.Domain,
		DisplayName: a.DisplayName, Summary: a.Summary, URL: a.URL, AvatarURL: a.AvatarURL, HeaderURL: a.HeaderURL,
		Type: a.Type, Locked: a.Locked, Fields: fields, MovedTo: a.MovedTo, FetchedAt: a.FetchedAt}
	if !rel {
		return av, nil
	}
	r := &relationshipView{Following: "none", FollowedBy: "none"}
	if f, err := v.tx.Follows().GetByActor(v.p.ID, a.ID); err == nil {
		r.Following = string(f.State)
	} else if murlog.ErrorCode(err) != murlog.ENotFound {
		return nil, err
	}
	if f, err := v.tx.Followers().GetByActor(v.p.ID, a.ID); err == nil {
		r.FollowedBy = string(f.State)
	} else if murlog.ErrorCode(err) != murlog.ENotFound {
		return nil, err
	}
	var err error
	if r.Blocking, err = murlog.Found(v.tx.Blocks().Get(v.p.ID, a.ID)); err != nil {
		return nil, err
	}
	if r.BlockedBy, err = v.tx.Blocks().IsBlockedBy(v.p.ID, a.ID); err != nil {
		return nil, err
	}
	if r.DomainBlocking, err = v.tx.DomainBlocks().Has(a.Domain); err != nil {
		return nil, err
	}
	av.Relationship = r
	return av, nil
}

// actorByID renders the actor with local id id.
func (v *views) actorByID(id string, rel bool) (*actorView, error) {
	a, err := v.actor(id)
	if err != nil {
		return nil, err
	}
	return v.actorView(a, rel)
}

// remotePost renders a remote post; quotes are rendered one level deep.
func (v *views) remotePost(rp *murlog.RemotePost) (*remotePostView, error) {
	return v.remotePostDepth(rp, 0)
}

func (v *views) remotePostDepth(rp *murlog.RemotePost, depth int) (*remotePostView, error) {
	author, err := v.actorByID(rp.ActorID, false)
	if err != nil {
		return nil, err
	}
	out := &remotePostView{ID: rp.ID, URI: rp.URI, URL: rp.URL, Type: rp.Type, Actor: author, Name: rp.Name,
		Content: rp.Content, External: external(rp.Type), Summary: rp.Summary, Sensitive: rp.Sensitive,
		Visibility: string(rp.Visibility), InReplyTo: rp.InReplyTo, Language: rp.Language,
		Attachments: rp.Attachments, Tags: rp.Tags, PublishedAt: rp.PublishedAt, UpdatedAt: rp.UpdatedAt}
	if out.Attachments == nil {
		out.Attachments = []murlog.RemoteAttachment{}
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	if rp.ID != "" {
		if out.Favourited, err = murlog.Found(v.tx.Interactions().GetOutbound(v.p.ID, murlog.InteractionLike, rp.URI)); err != nil {
			return nil, err
		}
		if out.Reblogged, err = murlog.Found(v.tx.Interactions().GetOutbound(v.p.ID, murlog.InteractionAnnounce, rp.URI)); err != nil {
			return nil, err
		}
	}
	if rp.QuoteOf != "" && depth == 0 {
		q, err := v.postByURI(rp.QuoteOf, depth+1)
		if err != nil {
			return nil, err
		}
		if q != nil {
			out.Quote = q
		}
	}
	return out, nil
}

// external reports whether a remote type is shown as a link to the
// original rather than in full.
func external(typ string) bool {
	switch typ {
	case "Article", "Page", "Question":
		return true
	}
	return false
}

// postByURI renders the post with id IRI uri: a local post (as
// posts.get shows it to the owner) or a cached remote one; nil when it is
// neither.
func (v *views) postByURI(uri string, depth int) (any, error) {
	if p, err := v.localPost(uri); err != nil || p != nil {
		if err != nil || p == nil {
			return nil, err
		}
		return v.localPostView(p)
	}
	rp, err := v.tx.RemotePosts().GetByURI(uri)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return v.remotePostDepth(rp, depth)
}

// localPost returns the local post whose id IRI (Site.PostURL) is uri,
// or nil when uri names none.
func (v *views) localPost(uri string) (*murlog.Post, error) {
	prefix := v.s.deps.Site.ActorURL("")
	rest, ok := strings.CutPrefix(uri, prefix)
	if !ok {
		return nil, nil
	}
	name, id, ok := strings.Cut(rest, "/")
	if !ok || !murlog.ValidID(id) {
		return nil, nil
	}
	p, err := v.tx.Posts().Get(id)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	owner, err := v.tx.Personas().Get(p.PersonaID)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(owner.Username, name) {
		return nil, nil
	}
	return p, nil
}

// localPostView renders a local post for the owner, reading the author's
// username in this transaction.
func (v *views) localPostView(p *murlog.Post) (*postView, error) {
	return v.s.postViewWith(v.ctx, p, true, txPersonas{v.tx})
}

// txPersonas reads personas in an open transaction, for the username
// cache, so a view never opens a second transaction inside the first.
type txPersonas struct{ tx store.Tx }

func (t txPersonas) Get(_ context.Context, id string) (*murlog.Persona, error) {
	return t.tx.Personas().Get(id)
}

func (v *views) follow(f *murlog.Follow) (*followView, error) {
	a, err := v.actorByID(f.ActorID, true)
	if err != nil {
		return nil, err
	}
	return &followView{ID: f.ID, Actor: a, State: string(f.State), CreatedAt: f.CreatedAt, AcceptedAt: f.AcceptedAt}, nil
}

func (v *views) follower(f *murlog.Follower) (*followerView, error) {
	a, err := v.actorByID(f.ActorID, true)
	if err != nil {
		return nil, err
	}
	return &followerView{ID: f.ID, Actor: a, State: string(f.State), CreatedAt: f.CreatedAt}, nil
}

// notification renders n; a post or remote post gone since (deleted,
// pruned) is null.
func (v *views) notification(n *murlog.Notification) (*notificationView, error) {
	a, err := v.actorByID(n.ActorID, false)
	if err != nil {
		return nil, err
	}
	out := &notificationView{ID: n.ID, Kind: string(n.Kind), Actor: a, Read: n.Read, CreatedAt: n.CreatedAt}
	if n.PostID != "" {
		p, err := v.tx.Posts().Get(n.PostID)
		switch {
		case err == nil:
			if out.Post, err = v.localPostView(p); err != nil {
				return nil, err
			}
		case murlog.ErrorCode(err) != murlog.ENotFound:
			return nil, err
		}
	}
	if n.RemotePostID != "" {
		rp, err := v.tx.RemotePosts().Get(n.RemotePostID)
		switch {
		case err == nil:
			if out.RemotePost, err = v.remotePost(rp); err != nil {
				return nil, err
			}
		case murlog.ErrorCode(err) != murlog.ENotFound:
			return nil, err
		}
	}
	return out, nil
}

func (v *views) timelineItem(it *store.TimelineItem) (*timelineItemView, error) {
	out := &timelineItemView{ID: it.ID, At: it.At}
	if it.Post != nil {
		out.Kind = "local"
		p, err := v.localPostView(it.Post)
		if err != nil {
			return nil, err
		}
		out.Post = p
		return out, nil
	}
	out.Kind = "remote"
	rp, err := v.remotePost(it.RemotePost)
	if err != nil {
		return nil, err
	}
	out.Post = rp
	if it.Entry != nil && it.Entry.BoostedBy != "" {
		if out.BoostedBy, err = v.actorByID(it.Entry.BoostedBy, false); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mapViews renders each of xs with fn.
func mapViews[T, V any](xs []T, fn func(T) (V, error)) ([]V, error) {
	out := make([]V, len(xs))
	for i, x := range xs {
		var err error
		if out[i], err = fn(x); err != nil {
			return nil, err
		}
	}
	return out, nil
}
