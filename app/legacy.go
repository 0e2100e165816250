package app

import (
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/store"
)

// LegacyPrefix is where murlog 0.8.1 served its personas: the actor and
// profile at /users/name, posts at /users/name/posts/<id>, the inbox,
// outbox, followers, following and /users/name/collections/featured.
// Links to those addresses live on in other sites, search engines and
// the databases of servers that federated with an 0.8.1 site, so each
// answers a 301 to its address today (docs/blog.md, "Addresses of murlog
// 0.8.1").
const LegacyPrefix = "/users/"

// legacyPath maps a path under LegacyPrefix to the persona it names and
// the rest of today's address after "/@name" ("" for the actor itself);
// ok is false for a path murlog 0.8.1 never served. A post id is taken
// in any spelling uuid.Parse reads (0.8.1 read ids with or without
// hyphens) and given back in the canonical one.
func legacyPath(path string) (name, rest string, ok bool) {
	tail, found := strings.CutPrefix(path, LegacyPrefix)
	if !found {
		return "", "", false
	}
	name, sub, _ := strings.Cut(tail, "/")
	if name == "" || len(name) > maxLegacyName || strings.Contains(name, "@") {
		return "", "", false
	}
	switch sub {
	case "":
		return name, "", true
	case "inbox", "outbox", "followers", "following":
		return name, "/" + sub, true
	case "collections/featured":
		return name, "/featured", true
	}
	id, found := strings.CutPrefix(sub, "posts/")
	if !found || strings.Contains(id, "/") {
		return "", "", false
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return "", "", false
	}
	return name, "/" + u.String(), true
}

// maxLegacyName bounds the name read from a legacy path before any
// lookup (murlog's usernames are far shorter).
const maxLegacyName = 64

// legacy serves the addresses of murlog 0.8.1. GET and HEAD of every
// address that has an equivalent today answer 301 to it, whatever the
// Accept header (a browser follows it to the page, an ActivityPub client
// to the JSON), with the query kept (outbox pages). A persona that does
// not exist is a 404, not a redirect to another 404. A POST to the old
// inbox is not here: dispatch sends it to the inbox itself (inbox.IsPath),
// because servers that followed a persona before the upgrade keep
// delivering there, and a redirect would not reach it — Mastodon's HTTP
// client refuses to follow a 301 for a POST and re-sends a 308 with the
// signature made for the old path, which then fails to verify.
func (a *App) legacy(rt *running) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, rest, ok := legacyPath(r.URL.Path)
		if !ok {
			a.notFound(w, r)
			return
		}
		var p *murlog.Persona
		err := rt.eng.store.View(r.Context(), func(tx store.Tx) error {
			var err error
			p, err = tx.Personas().GetByUsername(name)
			return err
		})
		if murlog.ErrorCode(err) == murlog.ENotFound {
			a.notFound(w, r)
			return
		}
		if err != nil {
			httpd.WriteError(w, r, a.log, err)
			return
		}
		to := rt.site.PersonaURL(p.Username) + rest
		if r.URL.RawQuery != "" {
			to += "?" + r.URL.RawQuery
		}
		w.Header().Set("Cache-Control", "public, max-age=86400")
		http.Redirect(w, r, to, http.StatusMovedPermanently)
	})
}

// isLegacyPath reports whether path lies under murlog 0.8.1's prefix.
func isLegacyPath(path string) bool { return strings.HasPrefix(path, LegacyPrefix) }
