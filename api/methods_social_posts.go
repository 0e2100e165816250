package api

import (
	"context"
	"errors"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/store"
)

// Likes and boosts of remote posts, the home timeline, threads, pins and
// where a post went.

type interactionParams struct {
	personaParam
	PostID string `json:"post_id"`
	URI    string `json:"uri"`
}

// maxAncestors bounds the walk up a thread.
const maxAncestors = 40

func (s *Server) registerSocialPosts() {
	for name, fn := range map[string]func(svc *social.Service, ctx context.Context, personaID, postID string) error{
		"favourites.create": func(svc *social.Service, ctx context.Context, pid, id string) error {
			_, err := svc.Favourite(ctx, pid, id)
			return err
		},
		"favourites.delete": (*social.Service).Unfavourite,
		"reblogs.create": func(svc *social.Service, ctx context.Context, pid, id string) error {
			_, err := svc.Reblog(ctx, pid, id)
			return err
		},
		"reblogs.delete": (*social.Service).Unreblog,
	} {
		create := name == "favourites.create" || name == "reblogs.create"
		register(s, name, owner, true, func(ctx context.Context, p *interactionParams) (any, error) {
			svc, err := s.soc()
			if err != nil {
				return nil, err
			}
			id, err := s.remotePostID(ctx, p.PersonaID, p.PostID, p.URI, create)
			if err != nil {
				return nil, err
			}
			return nil, fn(svc, ctx, p.PersonaID, id)
		})
	}
	register(s, "timeline.home", owner, false, func(ctx context.Context, p *pageParams) (any, error) {
		return listPage(s, ctx, p, func(svc *social.Service, before string, n int) ([]*store.TimelineItem, error) {
			return svc.Home(ctx, p.PersonaID, before, n)
		}, func(it *store.TimelineItem) string { return it.ID }, (*views).timelineItem)
	})
	register(s, "posts.get_thread", owner, false, func(ctx context.Context, p *struct {
		personaParam
		ID  string `json:"id"`
		URI string `json:"uri"`
	}) (any, error) {
		if (p.ID == "") == (p.URI == "") {
			return nil, murlog.Invalid("id", "give id (a local post) or uri (a remote one)")
		}
		if p.ID != "" && !murlog.ValidID(p.ID) {
			return nil, murlog.Invalid("id", "is not a valid id")
		}
		if _, err := s.soc(); err != nil {
			return nil, err
		}
		return viewed(s, ctx, p.PersonaID, func(v *views) (*threadView, error) { return v.thread(p.ID, p.URI) })
	})
	for name, fn := range map[string]func(*social.Service, context.Context, string, string) error{
		"posts.pin":   (*social.Service).Pin,
		"posts.unpin": (*social.Service).Unpin,
	} {
		register(s, name, owner, true, func(ctx context.Context, p *personaIDParams) (any, error) {
			svc, err := s.idCall("id", p.ID)
			if err != nil {
				return nil, err
			}
			return nil, renameField(fn(svc, ctx, p.PersonaID, p.ID), "post_id", "id")
		})
	}
	register(s, "posts.deliveries", owner, false, func(ctx context.Context, p *struct {
		ID     string `json:"id"`
		Cursor string `json:"cursor"`
		Limit  int    `json:"limit"`
	}) (any, error) {
		n, err := limitOf(p.Limit)
		if err != nil {
			return nil, err
		}
		svc, err := s.idCall("id", p.ID)
		if err != nil {
			return nil, err
		}
		sum, err := svc.Deliveries(ctx, p.ID)
		if err != nil {
			return nil, renameField(err, "post_id", "id")
		}
		out := &deliveriesView{Delivered: sum.Delivered, Pending: sum.Pending, Failed: sum.Failed, Skipped: sum.Skipped,
			Inboxes: []*deliveryView{}}
		var ds []*murlog.Delivery
		err = s.deps.Store.View(ctx, func(tx store.Tx) (err error) {
			ds, err = tx.Deliveries().List(p.ID, p.Cursor, n+1)
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(ds) > n {
			ds = ds[:n]
			next := ds[n-1].Inbox
			out.NextCursor = &next
		}
		for _, d := range ds {
			out.Inboxes = append(out.Inboxes, &deliveryView{Inbox: d.Inbox, State: string(d.State), Attempts: d.Attempts,
				LastError: d.LastError, UpdatedAt: d.UpdatedAt})
		}
		return out, nil
	})
}

// deliveriesView answers posts.deliveries: the counts over every inbox,
// and a page of the inboxes in inbox order (cursor: the last inbox).
type deliveriesView struct {
	Delivered  int             `json:"delivered"`
	Pending    int             `json:"pending"`
	Failed     int             `json:"failed"`
	Skipped    int             `json:"skipped"`
	Inboxes    []*deliveryView `json:"inboxes"`
	NextCursor *string         `json:"next_cursor"`
}

type deliveryView struct {
	Inbox     string    `json:"inbox"`
	State     string    `json:"state"`
	Attempts  int       `json:"attempts"`
	LastError string    `json:"last_error"`
	UpdatedAt time.Time `json:"updated_at"`
}

// renameField gives an error about the service's name for a parameter
// the API's name for it.
func renameField(err error, from, to string) error {
	var me *murlog.Error
	if errors.As(err, &me) && me.Field == from {
		c := *me
		c.Field = to
		return &c
	}
	return err
}

// threadView is a post with the posts above it (oldest first) and the
// replies to it that this site has.
type threadView struct {
	Ancestors   []any `json:"ancestors"`
	Post        any   `json:"post"`
	Descendants []any `json:"descendants"`
}

// thread builds the thread of local post id or remote post uri from what
// this site has: the ancestors are followed up through in_reply_to across
// local and cached remote posts; the descendants are the cached local
// and remote replies below it, breadth first.
func (v *views) thread(id, uri string) (*threadView, error) {
	var (
		post    any
		parent  string
		selfURI string
	)
	if uri != "" {
		// A local post named by its URI is a local thread.
		if p, err := v.localPost(uri); err != nil {
			return nil, err
		} else if p != nil {
			id = p.ID
		}
	}
	if id != "" {
		p, err := v.tx.Posts().Get(id)
		if err != nil {
			return nil, err
		}
		if p.PersonaID != v.p.ID {
			return nil, murlog.NotFound("post")
		}
		if post, err = v.localPostView(p); err != nil {
			return nil, err
		}
		parent = p.InReplyTo
		selfURI = v.s.deps.Site.PostURL(v.p.Username, p.ID)
	} else {
		rp, err := v.tx.RemotePosts().GetByURI(uri)
		if err != nil {
			return nil, err
		}
		if post, err = v.remotePost(rp); err != nil {
			return nil, err
		}
		parent, selfURI = rp.InReplyTo, rp.URI
	}
	out := &threadView{Ancestors: []any{}, Post: post, Descendants: []any{}}
	seen := map[string]bool{selfURI: true}
	for parent != "" && !seen[parent] && len(out.Ancestors) < maxAncestors {
		seen[parent] = true
		up, next, err := v.parentOf(parent)
		if err != nil {
			return nil, err
		}
		if up == nil {
			break
		}
		out.Ancestors = append([]any{up}, out.Ancestors...)
		parent = next
	}
	ds, err := v.descendants(selfURI, seen)
	if err != nil {
		return nil, err
	}
	out.Descendants = ds
	return out, nil
}

// maxDescendants bounds the replies a thread lists (breadth first).
const maxDescendants = 200

// descendants lists the cached replies below uri, local and remote,
// breadth first (each level oldest first), at most maxDescendants.
func (v *views) descendants(uri string, seen map[string]bool) ([]any, error) {
	out := []any{}
	queue := []string{uri}
	for len(queue) > 0 && len(out) < maxDescendants {
		parent := queue[0]
		queue = queue[1:]
		room := maxDescendants - len(out)
		locals, err := v.tx.Posts().Replies(parent, room)
		if err != nil {
			return nil, err
		}
		for _, p := range locals {
			u := v.s.deps.Site.PostURL(v.p.Username, p.ID)
			if p.PersonaID != v.p.ID || seen[u] || len(out) >= maxDescendants {
				continue
			}
			seen[u] = true
			pv, err := v.localPostView(p)
			if err != nil {
				return nil, err
			}
			out, queue = append(out, pv), append(queue, u)
		}
		remotes, err := v.tx.RemotePosts().Replies(parent, room)
		if err != nil {
			return nil, err
		}
		for _, rp := range remotes {
			if seen[rp.URI] || len(out) >= maxDescendants {
				continue
			}
			seen[rp.URI] = true
			rv, err := v.remotePost(rp)
			if err != nil {
				return nil, err
			}
			out, queue = append(out, rv), append(queue, rp.URI)
		}
	}
	return out, nil
}

// parentOf renders the post uri and returns its own parent.
func (v *views) parentOf(uri string) (any, string, error) {
	lp, err := v.localPost(uri)
	if err != nil {
		return nil, "", err
	}
	if lp != nil {
		pv, err := v.localPostView(lp)
		return pv, lp.InReplyTo, err
	}
	rp, err := v.tx.RemotePosts().GetByURI(uri)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	rv, err := v.remotePost(rp)
	return rv, rp.InReplyTo, err
}
