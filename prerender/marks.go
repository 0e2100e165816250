package prerender

// What a mark names: the keys a scope expands into with what the database
// says now, the marks of a site-wide change, and the marks as the API
// sees them (progress, republishing).

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/store"
)

// markAll turns the site-wide mark into a mark per artifact: every one
// stored (the lazily made ones included) and the core documents of every
// persona, so a theme change renders everything in the background, a
// batch at a time, while the previous artifacts are served; the number of
// marks left is the progress /my/ shows. The marks made last are rendered
// first: the personas' lists, feeds and actors — what readers open first
// — are marked after the post pages.
func (rb *Rebuilder) markAll(ctx context.Context) error {
	var scopes []string
	err := rb.Renderer.Store.List(ctx, "", func(k artifact.Key) error {
		// Documents only: not the variants (rendered with their key), nor
		// the theme assets (immutable), nor the store's own files.
		if _, ok := DocOf(k, rb.Renderer.Site); ok && !Immutable(k) {
			scopes = append(scopes, "key:"+k.String())
		}
		return nil
	})
	if err != nil {
		return err
	}
	scopes = append(scopes, "key:misc/robots.txt", "key:misc/nodeinfo.json", "runtime")
	err = rb.Store.View(ctx, func(tx store.Tx) error {
		ps, err := tx.Personas().List()
		for _, p := range ps {
			scopes = append(scopes, PersonaScopes(p)...)
		}
		return err
	})
	if err != nil {
		return err
	}
	return Marks{Store: rb.Store}.Add(ctx, scopes...)
}

// PersonaScopes are the marks of a persona's own documents: its lists,
// feeds, outbox and actor (persona/ID, last: the newest mark is rendered
// first), its collections, its WebFinger answer and its config pointer.
func PersonaScopes(p *murlog.Persona) []string {
	return []string{"social/" + p.ID, "key:wf/" + p.Username + ".jrd", "key:api/@" + p.Username + "/config.json", "persona/" + p.ID}
}

// Expand returns the keys a mark names, with what the database says
// now: those to render again, and those only to drop — the variants of
// list pages (another mode or order), which few readers ask for, and
// addresses that now redirect; the next request for one renders it.
func (rb *Rebuilder) Expand(ctx context.Context, mark string) (render, drop []artifact.Key, err error) {
	kind, arg, _ := strings.Cut(mark, "/")
	var out, gone, lists []string
	add := func(ss ...string) { out = append(out, ss...) }
	variants := func(base string) {
		ks := listKeys(base)
		add(ks[0])
		gone = append(gone, ks[1:]...)
		lists = append(lists, base)
	}
	now := rb.now()
	if strings.HasPrefix(mark, "key:") {
		for _, k := range parseKeys([]string{mark[len("key:"):]}) {
			if _, ok := DocOf(k, rb.Renderer.Site); ok { // a key of no document renders nothing
				render = append(render, k)
			}
		}
		return render, nil, nil
	}
	err = rb.Store.View(ctx, func(tx store.Tx) error {
		switch kind {
		case "runtime":
			add("api/runtime.json")
		case "post":
			p, err := tx.Posts().Get(arg)
			if murlog.ErrorCode(err) == murlog.ENotFound {
				return nil // deleted since: its gone/ mark renders its end
			}
			if err != nil {
				return err
			}
			u, err := username(tx, p.PersonaID)
			if err != nil || u == "" {
				return err
			}
			add("html/@"+u+"/"+cmp.Or(p.Slug, p.ID)+"/index.html", "ap/@"+u+"/"+p.ID+".as")
			if p.Slug != "" {
				gone = append(gone, "html/@"+u+"/"+p.ID+"/index.html") // a redirect to the slug
			}
			if p.PublicAt(now) {
				return neighbours(tx, u, p, now, add)
			}
		case "persona", "social":
			pr, err := tx.Personas().Get(arg)
			if murlog.ErrorCode(err) == murlog.ENotFound {
				return nil
			}
			if err != nil {
				return err
			}
			u := pr.Username
			if kind == "social" {
				add("ap/@"+u+"/followers.as", "ap/@"+u+"/following.as")
				return nil
			}
			variants("html/@" + u + "/index")
			variants("html/index")
			add("feeds/@"+u+"/feed.rss", "feeds/@"+u+"/feed.atom", "ap/@"+u+".as", "ap/@"+u+"/outbox.as",
				"ap/@"+u+"/featured.as", "misc/sitemap.xml", "misc/nodeinfo-2.0.json", "misc/nodeinfo-2.1.json")
			return rb.Renderer.Store.List(ctx, "api/@"+u+"/", func(k artifact.Key) error {
				if s := k.String(); !isVariant(s) {
					add(s)
				}
				return nil
			})
		case "tag":
			variants("html/tags/" + arg + "/index")
			add("feeds/tags/"+arg+"/feed.rss", "feeds/tags/"+arg+"/feed.atom")
		case "gone", "slug":
			pid, seg, _ := strings.Cut(arg, "/")
			u, err := username(tx, pid)
			if err != nil || u == "" {
				return err
			}
			add("html/@" + u + "/" + seg + "/index.html")
			if kind == "gone" {
				add("ap/@" + u + "/" + seg + ".as")
			}
		case "near":
			pid, at, _ := strings.Cut(arg, "/")
			us, err := strconv.ParseInt(at, 10, 64)
			if err != nil {
				return nil // not ours to render
			}
			u, err := username(tx, pid)
			if err != nil || u == "" {
				return err
			}
			t := time.UnixMicro(us).UTC()
			return neighbours(tx, u, &murlog.Post{PersonaID: pid, PublishedAt: &t, Visibility: murlog.VisibilityPublic}, now, add)
		}
		return nil
	})
	if err == nil {
		gone, err = rb.cursorPages(ctx, lists, gone)
	}
	return parseKeys(out), parseKeys(gone), err
}

// cursorPages adds to gone the cursor pages stored of the lists (by their
// first page's key without ".html"): a change to a list shifts what its
// pages after a cursor hold, and which cursors its links name. They are
// only dropped — the next reader's request renders one again — so a
// change costs the pages someone read since the last one, and no render.
func (rb *Rebuilder) cursorPages(ctx context.Context, lists, gone []string) ([]string, error) {
	for _, base := range lists {
		for _, v := range cursorVariants {
			err := rb.Renderer.Store.List(ctx, base+v.folder+"/", func(k artifact.Key) error {
				if !isVariant(k.String()) {
					gone = append(gone, k.String())
				}
				return nil
			})
			if err != nil {
				return gone, err
			}
		}
	}
	return gone, nil
}

// listKeys are a list page's keys: the first page in each variant.
func listKeys(base string) []string {
	out := make([]string, len(listVariants))
	for i, v := range listVariants {
		out[i] = base + v.suffix + ".html"
	}
	return out
}

func username(tx store.Tx, personaID string) (string, error) {
	p, err := tx.Personas().Get(personaID)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return p.Username, nil
}

// neighbours adds the pages of the posts before and after p: their
// "older" and "newer" links name p.
func neighbours(tx store.Tx, u string, p *murlog.Post, now time.Time, add func(...string)) error {
	older, newer, err := tx.PublicPosts().Neighbours(p, now)
	if err != nil {
		return err
	}
	for _, q := range []*murlog.Post{older, newer} {
		if q != nil {
			add("html/@" + u + "/" + cmp.Or(q.Slug, q.ID) + "/index.html")
		}
	}
	return nil
}

// parseKeys keeps the strings that are keys, each once: a mark from an
// odd persona name or tag (one a key cannot hold) renders nothing, and
// its page stays dynamic.
func parseKeys(ss []string) []artifact.Key {
	seen := map[string]bool{}
	var out []artifact.Key
	for _, s := range ss {
		if seen[s] {
			continue
		}
		seen[s] = true
		if k, err := artifact.ParseKey(s); err == nil {
			out = append(out, k)
		}
	}
	return out
}

// Marks are the dirty marks as the owner's API sees them.
type Marks struct{ Store store.Store }

// Pending is how many marks wait: the rebuild's progress, for /my/.
func (m Marks) Pending(ctx context.Context) (int, error) {
	var n int
	err := m.Store.View(ctx, func(tx store.Tx) (err error) {
		n, err = tx.DirtyKeys().Count()
		return err
	})
	return n, err
}

// Add marks scopes, MaxMarkKeys to a transaction, in the order given (the
// last are rendered first).
func (m Marks) Add(ctx context.Context, scopes ...string) error {
	for batch := range slices.Chunk(scopes, store.MaxMarkKeys) {
		if err := m.Store.Update(ctx, func(tx store.Tx) error { return tx.DirtyKeys().Mark(batch...) }); err != nil {
			return err
		}
	}
	return nil
}

// RebuildAll marks everything: every artifact is rendered again, in the
// background, the previous ones served meanwhile.
func (m Marks) RebuildAll(ctx context.Context) error {
	return m.Store.Update(ctx, func(tx store.Tx) error { return tx.DirtyKeys().Mark("site") })
}

// Withdrawn removes at once every stored artifact under prefix ("" for
// all; compressed twins included), going on past a failure, drops them
// from memory (forget, when set) and returns the keys it removed: what
// must stop being served before any rebuild could reach it — the
// ActivityPub documents when authorized fetch is turned on, which Apache
// would otherwise go on serving to unsigned fetches under CGI until the
// job deleted them — and "murlog artifacts purge". It only deletes (a few
// microseconds a file), so an owner's request can wait for it on a big
// site; the marks of the change render the rest as usual.
func Withdrawn(ctx context.Context, st artifact.Store, prefix string, forget func(...artifact.Key)) ([]artifact.Key, error) {
	var keys []artifact.Key
	if err := st.List(ctx, prefix, func(k artifact.Key) error { keys = append(keys, k); return nil }); err != nil {
		return nil, err
	}
	var removed []artifact.Key
	var errs []error
	for _, k := range keys {
		if err := st.Delete(ctx, k); err != nil && murlog.ErrorCode(err) != murlog.ENotFound {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, k)
	}
	if forget != nil {
		forget(keys...)
	}
	return removed, errors.Join(errs...)
}
