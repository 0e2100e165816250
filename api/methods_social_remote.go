package api

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/federation"
)

// The methods that read a remote server live (actors.outbox, followers,
// following, featured) and the fetch of a post named by its uri. Every
// fetch goes through Deps.Remote (signed GETs through the outbound
// client). The posts of an outbox page are shown, not stored: a post
// enters the cache when it is received, or when the owner likes or
// boosts it by uri.

// maxItemFetches bounds the objects fetched one by one for a page whose
// items are only IRIs (servers usually embed them).
const maxItemFetches = 20

// remote returns Deps.Remote, or unavailable when federation is off.
func (s *Server) remote() (Remote, error) {
	if _, err := s.soc(); err != nil {
		return nil, err
	}
	if s.deps.Remote == nil {
		return nil, errNoRemote
	}
	return s.deps.Remote, nil
}

// remoteError turns a failed remote lookup into what the caller is told:
// not found and unavailable as the resolver said them, a refusal of the
// caller's parameter param ("" for none) as it is, anything else — a
// remote document that does not decode, say — unavailable naming the
// host.
func remoteError(err error, host, param string) error {
	var me *murlog.Error
	if !errors.As(err, &me) {
		return &murlog.Error{Code: murlog.EUnavailable, Message: host + " could not be fetched", Err: err}
	}
	switch {
	case me.Code == murlog.EUnavailable || me.Code == murlog.ENotFound || me.Code == murlog.ERateLimited:
		return err
	case me.Code == murlog.EInvalid && param != "" && me.Field == param:
		return err
	case me.Code == murlog.EInternal:
		return &murlog.Error{Code: murlog.EUnavailable, Message: host + " could not be fetched", Err: err}
	case me.Field != "":
		return &murlog.Error{Code: murlog.EUnavailable, Message: host + " sent a document murlog refuses: " + me.Field + ": " + me.Message, Err: err}
	}
	return &murlog.Error{Code: murlog.EUnavailable, Message: host + ": " + me.Message, Err: err}
}

// hostOfQuery names the server a lookup goes to, for messages.
func hostOfQuery(q string) string {
	if u, err := url.Parse(q); err == nil && u.Host != "" {
		return u.Host
	}
	if i := strings.LastIndexByte(q, '@'); i >= 0 {
		return q[i+1:]
	}
	return q
}

type remoteCollectionParams struct {
	personaParam
	ID     string `json:"id"`
	Cursor string `json:"cursor"`
}

type uriView struct {
	URI string `json:"uri"`
}

// accountsPage is a page of a remote followers or following collection.
// Total is what the server says (null on later pages that do not say);
// a collection the account hides has no items but still its total.
type accountsPage struct {
	Items      []uriView `json:"items"`
	Total      *int      `json:"total"`
	NextCursor *string   `json:"next_cursor"`
}

func (s *Server) registerRemoteCollections() {
	register(s, "actors.outbox", owner, false, func(ctx context.Context, p *remoteCollectionParams) (any, error) {
		a, err := s.remoteActor(ctx, p.PersonaID, p.ID)
		if err != nil {
			return nil, err
		}
		pg, _, err := s.collectionPage(ctx, a.Outbox, p.Cursor, "outbox")
		if err != nil {
			return nil, err
		}
		return s.postsPage(ctx, p.PersonaID, a, pg.Items, nextOf(pg, a.Outbox))
	})
	register(s, "actors.featured", owner, false, func(ctx context.Context, p *personaIDParams) (any, error) {
		a, err := s.remoteActor(ctx, p.PersonaID, p.ID)
		if err != nil {
			return nil, err
		}
		pg, _, err := s.collectionPage(ctx, a.Featured, "", "featured")
		if err != nil {
			return nil, err
		}
		return s.postsPage(ctx, p.PersonaID, a, pg.Items, "")
	})
	for name, coll := range map[string]func(*murlog.RemoteActor) string{
		"actors.followers": func(a *murlog.RemoteActor) string { return a.Followers },
		"actors.following": func(a *murlog.RemoteActor) string { return a.Following },
	} {
		register(s, name, owner, false, func(ctx context.Context, p *remoteCollectionParams) (any, error) {
			a, err := s.remoteActor(ctx, p.PersonaID, p.ID)
			if err != nil {
				return nil, err
			}
			c := coll(a)
			pg, total, err := s.collectionPage(ctx, c, p.Cursor, strings.TrimPrefix(name, "actors."))
			if err != nil {
				return nil, err
			}
			out := &accountsPage{Items: []uriView{}, Total: total}
			for _, it := range pg.Items {
				if it.ID != "" {
					out.Items = append(out.Items, uriView{URI: it.ID})
				}
			}
			if next := nextOf(pg, c); next != "" {
				out.NextCursor = &next
			}
			return out, nil
		})
	}
}

// remoteActor loads a cached actor for a method that fetches from its
// server.
func (s *Server) remoteActor(ctx context.Context, personaID, id string) (*murlog.RemoteActor, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	if _, err := s.remote(); err != nil {
		return nil, err
	}
	var a *murlog.RemoteActor
	err := s.withViews(ctx, personaID, func(v *views) (err error) {
		a, err = v.actor(id)
		return err
	})
	return a, err
}

// collectionPage fetches the page at cursor (which must be on the
// collection's server), else the collection's first page, or the
// collection itself when it holds its items (featured collections do).
// total is the collection's totalItems when the collection was fetched.
func (s *Server) collectionPage(ctx context.Context, coll, cursor, what string) (*activitypub.Object, *int, error) {
	if coll == "" {
		return nil, nil, murlog.Errorf(murlog.ENotFound, "this account publishes no %s", what)
	}
	if cursor != "" {
		if !activitypub.SameOrigin(cursor, coll) {
			return nil, nil, murlog.Invalid("cursor", "is not a page of this account's %s", what)
		}
		pg, err := s.fetch(ctx, cursor)
		return pg, nil, err
	}
	c, err := s.fetch(ctx, coll)
	if err != nil {
		return nil, nil, err
	}
	total := c.TotalItems
	switch {
	case len(c.Items) > 0 || c.First.ID == "":
		return c, &total, nil
	case c.First.Object != nil:
		return c.First.Object, &total, nil
	case !activitypub.SameOrigin(c.First.ID, coll):
		return nil, nil, murlog.Errorf(murlog.EUnavailable, "%s: the %s's first page is on another server", activitypub.HostOf(coll), what)
	}
	pg, err := s.fetch(ctx, c.First.ID)
	return pg, &total, err
}

// nextOf is the cursor of the page after pg, "" at the end (or when the
// next page claims another server).
func nextOf(pg *activitypub.Object, coll string) string {
	if pg.Next.ID == "" || !activitypub.SameOrigin(pg.Next.ID, coll) {
		return ""
	}
	return pg.Next.ID
}

// fetch is Remote.FetchObject with its failures said as the contract
// wants them.
func (s *Server) fetch(ctx context.Context, uri string) (*activitypub.Object, error) {
	o, err := s.deps.Remote.FetchObject(ctx, uri)
	if err != nil {
		return nil, remoteError(err, activitypub.HostOf(uri), "")
	}
	return o, nil
}

// postsPage renders the posts among items that a wrote: the objects of
// its Creates and bare posts; boosts and anything attributed to another
// account are left out. A post already cached is shown from the cache
// (with its local id, liked and boosted flags).
func (s *Server) postsPage(ctx context.Context, personaID string, a *murlog.RemoteActor, items activitypub.Refs, next string) (any, error) {
	var posts []*murlog.RemotePost
	fetches := 0
	for _, it := range items {
		o := it.Object
		if o == nil && it.ID != "" && fetches < maxItemFetches {
			fetches++
			o, _ = s.fetch(ctx, it.ID) // one unreadable item does not spoil the page
		}
		if o != nil && o.Type == "Create" {
			inner := o.Object.First()
			o = inner.Object
			if o == nil && inner.ID != "" && fetches < maxItemFetches {
				fetches++
				o, _ = s.fetch(ctx, inner.ID)
			}
		}
		if o == nil || !isPostType(o.Type) || !authoredBy(o, a) {
			continue
		}
		rp, err := federation.RemotePostOf(s.deps.Site, a, o, s.deps.Now())
		if err != nil {
			continue // attributed to someone else: not this actor's post
		}
		posts = append(posts, rp)
	}
	items2, err := viewed(s, ctx, personaID, func(v *views) ([]*remotePostView, error) {
		return mapViews(posts, func(rp *murlog.RemotePost) (*remotePostView, error) {
			if cached, err := v.tx.RemotePosts().GetByURI(rp.URI); err == nil && cached.ActorID == a.ID {
				rp = cached
			} else if err != nil && murlog.ErrorCode(err) != murlog.ENotFound {
				return nil, err
			}
			return v.remotePost(rp)
		})
	})
	if err != nil {
		return nil, err
	}
	return newPage(items2.([]*remotePostView), next), nil
}

func isPostType(t string) bool {
	switch t {
	case "Note", "Article", "Page", "Question":
		return true
	}
	return false
}

// authoredBy reports whether o is a's: attributed to it and on its
// server, as Mastodon requires of the objects an actor publishes.
func authoredBy(o *activitypub.Object, a *murlog.RemoteActor) bool {
	return o.AttributedTo.First().ID == a.URI && activitypub.SameOrigin(o.ID, a.URI)
}

// remotePostID finds the remote post a favourite or reblog names: by
// post_id, or by uri — cached, or (when fetch is set) fetched, checked
// and stored through the social service, which files it like a received
// post.
func (s *Server) remotePostID(ctx context.Context, personaID, postID, uri string, fetch bool) (string, error) {
	switch {
	case postID != "" && uri != "":
		return "", murlog.Invalid("uri", "give post_id or uri, not both")
	case postID != "":
		if !murlog.ValidID(postID) {
			return "", murlog.Invalid("post_id", "is not a valid id")
		}
		return postID, nil
	case uri == "":
		return "", murlog.Invalid("post_id", "is required (or uri)")
	case activitypub.HostOf(uri) == "" || len(uri) > activitypub.MaxIRI:
		return "", murlog.Invalid("uri", "is not an http(s) URL")
	}
	var id string
	err := s.withViews(ctx, personaID, func(v *views) error { // the persona checked before any fetch
		rp, err := v.tx.RemotePosts().GetByURI(uri)
		if err == nil {
			id = rp.ID
		} else if murlog.ErrorCode(err) == murlog.ENotFound && fetch {
			err = nil // fetched below
		}
		return err
	})
	if err != nil || id != "" {
		return id, err
	}
	r, err := s.remote()
	if err != nil {
		return "", err
	}
	o, err := s.fetch(ctx, uri)
	if err != nil {
		return "", err
	}
	host := activitypub.HostOf(uri)
	if !isPostType(o.Type) || !activitypub.SameOrigin(o.ID, uri) {
		return "", murlog.Errorf(murlog.EUnavailable, "%s: the document at this uri is not a post", host)
	}
	author := o.AttributedTo.First().ID
	if author == "" {
		return "", murlog.Errorf(murlog.EUnavailable, "%s: the post names no author", host)
	}
	a, err := r.Resolve(ctx, author)
	if err != nil {
		return "", remoteError(err, activitypub.HostOf(author), "")
	}
	if !authoredBy(o, a) {
		return "", murlog.Errorf(murlog.EUnavailable, "%s: the post is not on its author's server", host)
	}
	rp, err := federation.RemotePostOf(s.deps.Site, a, o, s.deps.Now())
	if err != nil {
		return "", murlog.Errorf(murlog.EUnavailable, "%s: %s", host, murlog.ErrorMessage(err))
	}
	if err := s.deps.Social.Store(ctx, rp); err != nil {
		return "", err
	}
	return rp.ID, nil
}
