package federation

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/store"
)

// writeJSON encodes v and answers with status.
func (h *Handler) writeJSON(w http.ResponseWriter, r *http.Request, status int, cache string, v any) {
	b, err := activitypub.Marshal(v)
	if err != nil {
		h.fail(w, r, murlog.Internal(err))
		return
	}
	w.Header()["Content-Type"] = h.hdr.ap
	if cache != "" {
		w.Header().Set("Cache-Control", cache)
	}
	w.WriteHeader(status)
	w.Write(b)
}

// visiblePost loads the post of a "/@name/{id}" path and decides whether
// this request may see it: a post passing the publication predicate is
// for everyone; a published followers-only post only for a signed fetch
// by a follower; drafts, scheduled and direct posts for nobody here. A
// deleted post answers its Tombstone with 410. It returns false when it
// has answered.
func (h *Handler) visiblePost(w http.ResponseWriter, r *http.Request, id string) (*snapshot, *personaDoc, *murlog.Post, string, bool) {
	s, pd, ok := h.persona(w, r)
	if !ok {
		return nil, nil, nil, "", false
	}
	if !murlog.ValidID(id) {
		h.notFound(w, r)
		return nil, nil, nil, "", false
	}
	signer, ok := h.signer(w, r, s)
	if !ok {
		return nil, nil, nil, "", false
	}
	var post *murlog.Post
	err := h.d.Store.View(r.Context(), func(tx store.Tx) error {
		var err error
		post, err = tx.Posts().Get(id)
		return err
	})
	if murlog.ErrorCode(err) == murlog.ENotFound {
		h.gone(w, r, pd, id)
		return nil, nil, nil, "", false
	}
	if err != nil {
		h.fail(w, r, err)
		return nil, nil, nil, "", false
	}
	if post.PersonaID != pd.p.ID || post.Page {
		// A page is part of the site, never federated: no document.
		h.notFound(w, r)
		return nil, nil, nil, "", false
	}
	now := h.d.Now()
	if post.PublicAt(now) {
		return s, pd, post, publicCache(s), true
	}
	if post.State(now) == "published" && post.Visibility == murlog.VisibilityFollowers {
		if !s.authorizedFetch {
			// Only now is the signature worth verifying; a refused one
			// leaves the request anonymous.
			signer, _ = h.requester(r)
		}
		follower := false
		if signer != "" {
			var err error
			if follower, err = h.isFollower(r.Context(), pd.p.ID, signer); err != nil {
				h.fail(w, r, err)
				return nil, nil, nil, "", false
			}
		}
		if follower {
			return s, pd, post, "private, no-store", true
		}
	}
	h.notFound(w, r)
	return nil, nil, nil, "", false
}

func (h *Handler) isFollower(ctx context.Context, personaID, actor string) (bool, error) {
	if h.d.FollowerCheck == nil {
		return false, nil
	}
	return h.d.FollowerCheck.IsFollower(ctx, personaID, actor)
}

// gone answers a post id that is not in the store: its Tombstone with 410
// when it was deleted, else 404.
func (h *Handler) gone(w http.ResponseWriter, r *http.Request, pd *personaDoc, id string) {
	if h.d.Tombstones != nil {
		at, ok, err := h.d.Tombstones.Tombstone(r.Context(), id)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if ok {
			h.writeJSON(w, r, http.StatusGone, "public, max-age=180", Tombstone(h.d.Site, pd.p.Username, id, at))
			return
		}
	}
	h.notFound(w, r)
}

func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	if id := r.PathValue("id"); !murlog.ValidID(id) {
		h.slug(w, r, id)
		return
	}
	s, pd, post, cache, ok := h.visiblePost(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	h.writeJSON(w, r, http.StatusOK, cache, PostObject(h.d.Site, pd.p, post, s.optionsOf(post)))
}

// slug answers an ActivityPub fetch of an article's page address,
// /@name/<slug> (its url, which a user may paste into a search): 301 to
// its id, /@name/<id>, as Mastodon follows a redirect and then reads the
// object's own id. A page, or a slug nobody has, is a 404.
func (h *Handler) slug(w http.ResponseWriter, r *http.Request, slug string) {
	_, pd, ok := h.persona(w, r)
	if !ok {
		return
	}
	var post *murlog.Post
	err := h.d.Store.View(r.Context(), func(tx store.Tx) error {
		var err error
		post, err = tx.PublicPosts().BySlug(pd.p.ID, slug, h.d.Now())
		return err
	})
	switch {
	case murlog.ErrorCode(err) == murlog.ENotFound || err == nil && post.Page:
		h.notFound(w, r)
	case err != nil:
		h.fail(w, r, err)
	default:
		http.Redirect(w, r, h.d.Site.PostURL(pd.p.Username, post.ID), http.StatusMovedPermanently)
	}
}

// postPart serves /@name/{id}/replies (the replies collection) and
// /@name/activities/{id} (Site.ActivityURL; for a post id, its Create).
// One pattern for both: two would overlap at /@name/activities/replies.
func (h *Handler) postPart(w http.ResponseWriter, r *http.Request) {
	seg, sub := r.PathValue("seg"), r.PathValue("sub")
	switch {
	case sub == "replies":
		_, pd, post, cache, ok := h.visiblePost(w, r, seg)
		if ok {
			h.writeJSON(w, r, http.StatusOK, cache, RepliesCollection(h.d.Site, pd.p.Username, post.ID, 0, true))
		}
	case seg == "activities" && h.quoteAuthorization(w, r, sub):
	case seg == "activities":
		s, pd, post, cache, ok := h.visiblePost(w, r, sub)
		if ok {
			h.writeJSON(w, r, http.StatusOK, cache, CreateActivity(h.d.Site, pd.p, post, s.optionsOf(post)))
		}
	default:
		if _, _, ok := h.persona(w, r); ok {
			h.notFound(w, r)
		}
	}
}

// isPage reports whether a collection request asks for a page rather
// than the collection (Mastodon's ?page=true, or a cursor).
func isPage(q url.Values, cursor string) bool { return q.Get("page") != "" || q.Get(cursor) != "" }

// collection finds the persona of a collection path and applies
// authorized fetch; false when it has answered.
func (h *Handler) collection(w http.ResponseWriter, r *http.Request) (*snapshot, *personaDoc, bool) {
	s, pd, ok := h.persona(w, r)
	if !ok {
		return nil, nil, false
	}
	if _, ok := h.signer(w, r, s); !ok {
		return nil, nil, false
	}
	return s, pd, true
}

// outbox is the persona's public posts as Create activities, newest
// first, PageSize per page, continued with ?max_id=.
func (h *Handler) outbox(w http.ResponseWriter, r *http.Request) {
	s, pd, ok := h.collection(w, r)
	if !ok {
		return
	}
	id := h.d.Site.OutboxURL(pd.p.Username)
	q := r.URL.Query()
	if !isPage(q, "max_id") {
		_, st, err := h.stats(r.Context())
		if err != nil {
			h.fail(w, r, err)
			return
		}
		h.writeJSON(w, r, http.StatusOK, publicCache(s), &activitypub.Collection{Context: json.RawMessage(activitypub.ASContext), ID: id,
			Type: "OrderedCollection", TotalItems: ptr(st.byPerson[pd.p.ID]), First: id + "?page=true"})
		return
	}
	maxID := q.Get("max_id")
	if maxID != "" && !murlog.ValidID(maxID) {
		h.fail(w, r, murlog.Invalid("max_id", "is not a valid id"))
		return
	}
	var posts []*murlog.Post
	err := h.d.Store.View(r.Context(), func(tx store.Tx) error {
		var err error
		posts, err = tx.Posts().List(store.PostQuery{PersonaID: pd.p.ID, Audience: murlog.AudiencePublic,
			Now: h.d.Now(), Before: maxID, Limit: PageSize + 1})
		return err
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	page := &activitypub.Collection{Context: json.RawMessage(activitypub.ObjectContext), ID: id + "?page=true", Type: "OrderedCollectionPage", PartOf: id}
	if maxID != "" {
		page.ID = id + "?max_id=" + url.QueryEscape(maxID) + "&page=true"
	}
	if len(posts) > PageSize {
		posts = posts[:PageSize]
		page.Next = id + "?max_id=" + url.QueryEscape(posts[len(posts)-1].ID) + "&page=true"
	}
	items := make([]*activitypub.Activity, len(posts))
	for i, p := range posts {
		items[i] = CreateActivity(h.d.Site, pd.p, p, s.optionsOf(p))
		items[i].Context = nil
	}
	page.OrderedItems = items
	h.writeJSON(w, r, http.StatusOK, publicCache(s), page)
}

func (h *Handler) followers(w http.ResponseWriter, r *http.Request) {
	h.follows(w, r, func(pd *personaDoc) (string, int) {
		return h.d.Site.FollowersURL(pd.p.Username), pd.p.FollowersCount
	}, func(ctx context.Context, f Followers, personaID, after string) ([]string, string, error) {
		return f.FollowerURIs(ctx, personaID, after, PageSize)
	})
}

func (h *Handler) following(w http.ResponseWriter, r *http.Request) {
	h.follows(w, r, func(pd *personaDoc) (string, int) {
		return h.d.Site.FollowingURL(pd.p.Username), pd.p.FollowingCount
	}, func(ctx context.Context, f Followers, personaID, after string) ([]string, string, error) {
		return f.FollowingURIs(ctx, personaID, after, PageSize)
	})
}

// follows serves a followers or following collection: the total always,
// the items (first page, then ?after= cursors) only when the persona
// shows its follows.
func (h *Handler) follows(w http.ResponseWriter, r *http.Request, which func(*personaDoc) (string, int),
	list func(context.Context, Followers, string, string) ([]string, string, error)) {
	s, pd, ok := h.collection(w, r)
	if !ok {
		return
	}
	id, total := which(pd)
	top := &activitypub.Collection{Context: json.RawMessage(activitypub.ASContext), ID: id, Type: "OrderedCollection", TotalItems: ptr(total)}
	q := r.URL.Query()
	if !pd.p.ShowFollows {
		h.writeJSON(w, r, http.StatusOK, publicCache(s), top)
		return
	}
	if !isPage(q, "after") {
		top.First = id + "?page=true"
		h.writeJSON(w, r, http.StatusOK, publicCache(s), top)
		return
	}
	after := q.Get("after")
	items, next := []string{}, ""
	if h.d.Followers != nil {
		var err error
		if items, next, err = list(r.Context(), h.d.Followers, pd.p.ID, after); err != nil {
			h.fail(w, r, err)
			return
		}
		if items == nil {
			items = []string{}
		}
	}
	page := &activitypub.Collection{Context: json.RawMessage(activitypub.ASContext), ID: id + "?page=true", Type: "OrderedCollectionPage",
		TotalItems: ptr(total), PartOf: id, OrderedItems: items}
	if after != "" {
		page.ID = id + "?after=" + url.QueryEscape(after) + "&page=true"
	}
	if next != "" {
		page.Next = id + "?after=" + url.QueryEscape(next) + "&page=true"
	}
	h.writeJSON(w, r, http.StatusOK, publicCache(s), page)
}

// featured is the persona's pinned posts, embedded as Mastodon embeds
// them; only pins that pass the publication predicate are listed.
func (h *Handler) featured(w http.ResponseWriter, r *http.Request) {
	s, pd, ok := h.collection(w, r)
	if !ok {
		return
	}
	items := []*activitypub.Post{}
	if h.d.Pins != nil {
		ids, err := h.d.Pins.PinnedPostIDs(r.Context(), pd.p.ID)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		now := h.d.Now()
		err = h.d.Store.View(r.Context(), func(tx store.Tx) error {
			for _, id := range ids {
				p, err := tx.Posts().Get(id)
				if murlog.ErrorCode(err) == murlog.ENotFound {
					continue
				}
				if err != nil {
					return err
				}
				if p.PersonaID == pd.p.ID && p.PublicAt(now) && !p.Page {
					o := PostObject(h.d.Site, pd.p, p, s.optionsOf(p))
					o.Context = nil
					items = append(items, o)
				}
			}
			return nil
		})
		if err != nil {
			h.fail(w, r, err)
			return
		}
	}
	h.writeJSON(w, r, http.StatusOK, publicCache(s), &activitypub.Collection{Context: json.RawMessage(activitypub.ObjectContext),
		ID: h.d.Site.FeaturedURL(pd.p.Username), Type: "OrderedCollection", TotalItems: ptr(len(items)), OrderedItems: items})
}

// optionsOf are post's document options under the site settings of s.
func (s *snapshot) optionsOf(post *murlog.Post) PostOptions {
	return OptionsOf(post, s.site == nil || s.site.AllowQuotes)
}

// quoteAuthorization serves the QuoteAuthorization with id, if there is
// one, and reports whether it answered. The consent holds while the
// quoted post is public and the owner allows quotes; otherwise the id
// answers 404 like any withdrawn document.
func (h *Handler) quoteAuthorization(w http.ResponseWriter, r *http.Request, id string) bool {
	if !murlog.ValidID(id) {
		return false
	}
	var (
		q    *store.QuoteAuthorization
		post *murlog.Post
	)
	err := h.d.Store.View(r.Context(), func(tx store.Tx) error {
		var err error
		if q, err = tx.QuoteAuthorizations().Get(id); err != nil {
			return err
		}
		post, err = tx.Posts().Get(q.PostID)
		return err
	})
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return false
	}
	if err != nil {
		h.fail(w, r, err)
		return true
	}
	s, pd, ok := h.persona(w, r)
	if !ok {
		return true
	}
	if pd.p.ID != q.PersonaID || !post.PublicAt(h.d.Now()) || (s.site != nil && !s.site.AllowQuotes) {
		h.notFound(w, r)
		return true
	}
	h.writeJSON(w, r, http.StatusOK, "public, max-age=180", QuoteAuthorizationDoc(h.d.Site, pd.p.Username, q))
	return true
}
