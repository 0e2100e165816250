package app

import (
	"net/http"
	"slices"

	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/inbox"
)

// room is who answers a request that no pattern of the app's mux
// matches: the inboxes and the addresses of the personas ("/@name…"),
// which are negotiated — the same URL is the actor or a note for a
// server and the blog's page for a browser.
type room int

const (
	roomNotFound   room = iota // the themed 404 to a browser, the error document to the rest
	roomInbox                  // inbox.Handler (it answers 405 to anything but POST)
	roomFederation             // federation.Handler: the ActivityPub JSON
	roomBlog                   // blog.Handler: pages and feeds
	roomLegacy                 // murlog 0.8.1's addresses: 301s to today's (legacy.go)
)

func (r room) String() string {
	return [...]string{"not found", "inbox", "federation", "blog", "0.8.1 redirect"}[r]
}

// client is whom a rule is for, by the request's Accept.
type client int

const (
	anyClient  client = iota
	apClient          // Accept prefers ActivityPub JSON (activitypub.Accepts)
	htmlClient        // every other Accept: browsers, feed readers, crawlers
)

var (
	postOnly = []string{http.MethodPost}
	reads    = []string{http.MethodGet, http.MethodHead}
)

// dispatchRules decide who answers what the mux's patterns do not: the
// first rule whose method, path and client match names the room, and a
// request no rule matches is not found. The rooms do not negotiate again
// (each still answers 404 for what it has not, and the blog and the inbox
// their own methods). A new kind of address (a redirect from old URLs,
// say) is a row.
var dispatchRules = []struct {
	methods []string               // nil: any method
	path    func(path string) bool // the shape of the path
	client  client
	room    room
}{
	// POST /inbox (the shared inbox), POST /@name/inbox and murlog
	// 0.8.1's POST /users/name/inbox.
	{postOnly, inbox.IsPath, anyClient, roomInbox},
	// murlog 0.8.1's /users/name… read by anyone: a 301 to today's address.
	{reads, isLegacyPath, anyClient, roomLegacy},
	// Any other method on an inbox: the inbox answers 405 with Allow: POST.
	{nil, inbox.IsPath, anyClient, roomInbox},
	// "/@name…": the actor, its collections and notes as ActivityPub…
	{reads, federation.IsProfilePath, apClient, roomFederation},
	// …and the persona's site, posts, search and feeds as the blog.
	{reads, federation.IsProfilePath, htmlClient, roomBlog},
}

// dispatch names the room that answers method path with accept.
func dispatch(method, path, accept string) room {
	ap, apKnown := false, false // activitypub.Accepts parses Accept: at most once
	for _, d := range dispatchRules {
		if d.methods != nil && !slices.Contains(d.methods, method) || !d.path(path) {
			continue
		}
		if d.client != anyClient && !apKnown {
			ap, apKnown = activitypub.Accepts(accept), true
		}
		if d.client == anyClient || (d.client == apClient) == ap {
			return d.room
		}
	}
	return roomNotFound
}

// rooms are the handlers of the rooms, the running site's once setup is
// complete (before, the guard answers).
func (a *App) rooms() [roomLegacy + 1]http.Handler {
	return [...]http.Handler{
		roomNotFound:   classed(dbstat.Public, http.HandlerFunc(a.notFound)),
		roomInbox:      classed(dbstat.Inbox, a.live(func(rt *running) http.Handler { return rt.inbox })),
		roomFederation: classed(dbstat.Public, a.live(func(rt *running) http.Handler { return rt.fed })),
		roomBlog:       classed(dbstat.Public, a.live(func(rt *running) http.Handler { return rt.public })),
		roomLegacy:     classed(dbstat.Public, a.live(a.legacy)),
	}
}

// dispatched serves a request the mux's patterns do not match, in the
// room dispatch names.
func dispatched(rooms [roomLegacy + 1]http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rooms[dispatch(r.Method, r.URL.Path, r.Header.Get("Accept"))].ServeHTTP(w, r)
	}
}
