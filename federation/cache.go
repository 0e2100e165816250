package federation

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/siteconfig"
	"github.com/murlog/murlog/store"
)

// snapshot is everything the hot endpoints need, rendered: one database
// read per TTL (or per Invalidate) instead of one per request.
type snapshot struct {
	gen             uint64
	built           time.Time
	authorizedFetch bool
	site            *settings.Site
	// name and about are the site's name and introduction: the primary
	// persona's public-site settings, which its pages show too.
	name, about   string
	personas      []*personaDoc
	byName        map[string]*personaDoc // lower-case username
	byResource    map[string]*personaDoc // the canonical WebFinger resources
	hostMetaXML   []byte
	hostMetaJRD   []byte
	nodeinfoLinks []byte
}

// personaDoc is one persona with its documents rendered.
type personaDoc struct {
	p        *murlog.Persona
	actor    []byte // ActorObject
	keyActor []byte // KeyActor
	jrd      []byte // WebFinger answer
}

// stats is what NodeInfo and the instance probe count; apart from the
// snapshot because counting posts costs more, and only those two need it.
type stats struct {
	gen      uint64
	built    time.Time
	posts    int            // posts passing the publication predicate
	byPerson map[string]int // the same per persona id
	nodeinfo map[string][]byte
	instance []byte
}

func (h *Handler) fresh(gen uint64, built time.Time) bool {
	return !h.d.OneShot && gen == h.gen.Load() && h.d.Now().Sub(built) < h.d.TTL
}

// snapshot returns the current rendered documents, rebuilding them when
// stale. Concurrent requests on a stale copy wait for one rebuild.
func (h *Handler) snapshot(ctx context.Context) (*snapshot, error) {
	if s := h.snap.Load(); s != nil && h.fresh(s.gen, s.built) {
		return s, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.snap.Load(); s != nil && h.fresh(s.gen, s.built) {
		return s, nil
	}
	s, err := h.build(ctx)
	if err != nil {
		return nil, err
	}
	if !h.d.OneShot {
		h.snap.Store(s)
	}
	return s, nil
}

func (h *Handler) build(ctx context.Context) (*snapshot, error) {
	s := &snapshot{gen: h.gen.Load(), built: h.d.Now(), byName: map[string]*personaDoc{}, byResource: map[string]*personaDoc{}}
	var ps []*murlog.Persona
	err := h.d.Store.View(ctx, func(tx store.Tx) error {
		v, err := tx.Settings().GetMany(SettingAuthorizedFetch)
		if err != nil {
			return err
		}
		s.authorizedFetch = v[SettingAuthorizedFetch] == "1"
		if ps, err = tx.Personas().List(); err != nil {
			return err
		}
		for _, p := range ps {
			if !p.Primary {
				continue
			}
			// Refused extensions (an error beside a config) do not
			// matter to the name.
			c, _, err := siteconfig.Load(tx, p.ID)
			if c == nil {
				return err
			}
			s.name, s.about = siteconfig.Name(c, p), siteconfig.About(c)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("federation: read personas: %w", err)
	}
	if s.site, err = settings.New(h.d.Store).Get(ctx); err != nil {
		return nil, fmt.Errorf("federation: read site settings: %w", err)
	}
	site := h.d.Site
	for _, p := range ps {
		pd := &personaDoc{p: p}
		if pd.actor, err = activitypub.Marshal(ActorObject(site, p)); err != nil {
			return nil, err
		}
		if pd.keyActor, err = activitypub.Marshal(KeyActor(site, p)); err != nil {
			return nil, err
		}
		if pd.jrd, err = activitypub.Marshal(webfingerJRD(site, p)); err != nil {
			return nil, err
		}
		s.personas = append(s.personas, pd)
		s.byName[strings.ToLower(p.Username)] = pd
		s.byResource["acct:"+p.Username+"@"+site.Domain] = pd
		s.byResource[site.ActorURL(p.Username)] = pd
	}
	s.hostMetaXML, s.hostMetaJRD = hostMeta(site)
	s.nodeinfoLinks, err = activitypub.Marshal(nodeinfoLinks(site))
	return s, err
}

// stats returns the post counts and the documents built on them.
func (h *Handler) stats(ctx context.Context) (*snapshot, *stats, error) {
	snap, err := h.snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	if st := h.statsCache.Load(); st != nil && h.fresh(st.gen, st.built) {
		return snap, st, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if st := h.statsCache.Load(); st != nil && h.fresh(st.gen, st.built) {
		return snap, st, nil
	}
	st := &stats{gen: snap.gen, built: h.d.Now(), byPerson: map[string]int{}}
	if err := h.countPosts(ctx, st); err != nil {
		return nil, nil, err
	}
	if err := st.render(h.d.Site, snap); err != nil {
		return nil, nil, err
	}
	if !h.d.OneShot {
		h.statsCache.Store(st)
	}
	return snap, st, nil
}

// countPosts counts the posts that pass the publication predicate, by
// persona, in one statement. The result is kept for the TTL, but every
// publish renders the outbox and NodeInfo again: listing the posts to
// count them read every row (on a 5,000-post site, 80 ms of each publish
// and a fifth of murlog serve's CPU under a crowd, the owner posting).
func (h *Handler) countPosts(ctx context.Context, st *stats) error {
	now := h.d.Now()
	return h.d.Store.View(ctx, func(tx store.Tx) error {
		counts, err := tx.Posts().CountPublic(now)
		if err != nil {
			return fmt.Errorf("federation: count posts: %w", err)
		}
		for id, n := range counts {
			st.posts += n
			st.byPerson[id] = n
		}
		return nil
	})
}
