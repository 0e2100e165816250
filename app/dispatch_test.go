package app

import "testing"

// TestDispatch is the table of who answers a request the mux's patterns
// leave: the inboxes, and each persona's negotiated addresses.
func TestDispatch(t *testing.T) {
	t.Parallel()
	const (
		ap      = "application/activity+json"
		ld      = `application/ld+json; profile="https://www.w3.org/ns/activitystreams"`
		browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
		mixed   = "text/html, application/activity+json;q=0.5" // HTML preferred
	)
	for _, tc := range []struct {
		method, path, accept string
		want                 room
	}{
		// The inboxes take POSTs, whatever the Accept.
		{"POST", "/inbox", "", roomInbox},
		{"POST", "/inbox", browser, roomInbox},
		{"POST", "/@alice/inbox", ap, roomInbox},
		{"POST", "/users/alice/inbox", ap, roomInbox}, // murlog 0.8.1's inbox is served, not redirected
		{"GET", "/users/alice", ap, roomLegacy},
		{"GET", "/users/alice/posts/0190f5e2-1c3a-7cc2-9a4b-2f7c3c1d9e01", browser, roomLegacy},
		{"HEAD", "/users/alice/outbox", "", roomLegacy},
		{"POST", "/@alice/outbox", ap, roomNotFound},
		{"POST", "/@alice", ap, roomNotFound},
		{"POST", "/@alice/x/inbox", "", roomNotFound},
		{"GET", "/inbox", ap, roomNotFound},
		// A persona's addresses: ActivityPub JSON to servers…
		{"GET", "/@alice", ap, roomFederation},
		{"HEAD", "/@alice", ld, roomFederation},
		{"GET", "/@alice/main-key", ap, roomFederation},
		{"GET", "/@alice/outbox", ap, roomFederation},
		{"GET", "/@alice/01JABCDEFGHJKMNPQRSTVWXYZ0", ap, roomFederation},
		{"GET", "/@alice/01JABCDEFGHJKMNPQRSTVWXYZ0/replies", ap, roomFederation},
		{"GET", "/@alice/inbox", ap, roomFederation}, // the post handler answers 404
		{"GET", "/@alice/feed.rss", ap, roomFederation},
		// …and the blog to everyone else.
		{"GET", "/@alice", browser, roomBlog},
		{"GET", "/@alice", mixed, roomBlog},
		{"GET", "/@alice", "", roomBlog},
		{"GET", "/@alice/feed.atom", "*/*", roomBlog},
		{"HEAD", "/@alice/search", "text/html", roomBlog},
		{"GET", "/@alice/01JABCDEFGHJKMNPQRSTVWXYZ0", browser, roomBlog},
		// Other methods, and what is no persona's address.
		{"PUT", "/@alice", ap, roomNotFound},
		{"DELETE", "/@alice", browser, roomNotFound},
		{"GET", "/@", ap, roomNotFound},
		{"GET", "/@", browser, roomNotFound},
		{"GET", "/alice", ap, roomNotFound},
		{"GET", "/no/such/page", browser, roomNotFound},
	} {
		if got := dispatch(tc.method, tc.path, tc.accept); got != tc.want {
			t.Errorf("dispatch(%s %s, Accept %q) = %s; want %s", tc.method, tc.path, tc.accept, got, tc.want)
		}
	}
}
