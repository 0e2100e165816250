package store

import (
	"time"

	"github.com/murlog/murlog"
)

// PubConfigs stores each persona's public-site settings.
type PubConfigs interface {
	// Get returns the stored settings of a persona, or an ENotFound error
	// when it has none (the caller reads murlog.DefaultPubConfig then).
	Get(personaID string) (*murlog.PubConfig, error)
	// Put creates or replaces the persona's row. It stores what it is
	// given; validation is the caller's.
	Put(c *murlog.PubConfig) error
}

// PublicPosts are the reads of the public blog, the public read API, the
// feeds and the sitemap: every method applies the publication predicate
// (murlog.Post.PublicAt) at the given now, so a draft or a scheduled post
// can reach an anonymous reader through none of them.
//
// "Listed" below means visibility public and not a page: lists, tag
// pages, neighbours, search and feeds show only those. An unlisted post
// is reachable by its own URL (Get, BySlug) and nowhere else. A page
// (murlog.Post.Page) is reachable by its URL too, and listed only in the
// site menu (Pages) and the sitemap.
//
// Posts read here carry no Source (""): readers see the rendered Content,
// never the owner's source text.
type PublicPosts interface {
	// Get returns a published public or unlisted post; ENotFound for any
	// other (unknown, draft, scheduled, followers-only, direct).
	Get(id string, now time.Time) (*murlog.Post, error)
	// List returns a page of listed posts in publication order,
	// (published_at, id) descending, or ascending with q.Oldest.
	List(q PublicQuery) ([]*murlog.Post, error)
	// Neighbours returns the listed posts of p's persona immediately
	// before (older) and after (newer) p in (published_at, id) order, nil
	// where there is none. p itself may be unlisted; it must be published.
	Neighbours(p *murlog.Post, now time.Time) (older, newer *murlog.Post, err error)
	// Position tells where q.After stands in q's list (its persona, its
	// tag), newest first: n is how many of the list's posts sort at or
	// before the cursor — its own post counted when it is in the list —
	// counted no further than max+1, and in says whether it is. A list
	// page continuing after the cursor is the (n/size+1)th page of its
	// list when in and n is a multiple of the page size. The cursor must
	// be a listed post (EInvalid otherwise, as List's); q.Oldest is
	// EInvalid.
	Position(q PublicQuery, max int) (n int, in bool, err error)
	// ByIDs returns the listed posts among ids in the order given; ids that
	// are unknown, repeated, unlisted or not published are dropped. At most
	// MaxByIDs ids are read; more is an EInvalid error. The posts are read
	// as for PublicQuery.Excerpts: it serves lists.
	ByIDs(ids []string, now time.Time) ([]*murlog.Post, error)
	// Search returns listed posts whose title or source contains every
	// term of q.Terms (case-insensitive, any script), newest published
	// first. Terms are literal text: no query syntax reaches the engine.
	Search(q SearchQuery) ([]*murlog.Post, error)
	// BySlug returns the persona's published public or unlisted post
	// whose slug, or one of whose old slugs, is slug (compare the post's
	// Slug to tell); ENotFound for none.
	BySlug(personaID, slug string, now time.Time) (*murlog.Post, error)
	// Pages returns up to limit of the persona's published public pages,
	// in publication order (oldest first), for the site menu.
	Pages(personaID string, now time.Time, limit int) ([]MenuEntry, error)
	// Sitemap returns up to limit listed posts and public pages with
	// their persona's username, newest published first, for sitemap.xml.
	Sitemap(now time.Time, limit int) ([]SitemapEntry, error)
	// NextPublication returns the earliest published_at after now among
	// posts that will become public or unlisted (scheduled), so a cached
	// page knows when it goes stale without any write; nil when none.
	NextPublication(now time.Time) (*time.Time, error)
}

// MaxByIDs is how many ids PublicPosts.ByIDs accepts (the seed's limit of
// POST /posts/pub-by-ids).
const MaxByIDs = 20

// PublicQuery selects a page of listed posts.
type PublicQuery struct {
	PersonaID string // "" for every persona
	Tag       string // "" for any; matched case-insensitively (ASCII)
	Now       time.Time
	// Oldest lists oldest first; the default is newest first.
	Oldest bool
	// After continues after this post (exclusive) in the chosen order. A
	// cursor is a post id, so page URLs stay valid as new posts arrive. An
	// unknown or unlisted cursor is an EInvalid error.
	After string
	Limit int // must be positive
	// Excerpts reads the posts for a list of excerpts: Content, most of
	// a row, is left empty for a post with a stored Excerpt, and read only
	// for an older one without, from which the excerpt is then derived.
	Excerpts bool
}

// SearchQuery selects a page of search results.
type SearchQuery struct {
	PersonaID string // "" for every persona
	// Terms must all occur. Each is literal text; the adapter quotes it.
	// Terms of one or two characters are matched too (trigram indexes
	// need three, so the adapter scans for them). A term holding a
	// control character or invalid UTF-8 is refused (EInvalid).
	Terms []string
	Now   time.Time
	After string // continue after this post id, newest-first order
	Limit int    // must be positive
	// Budget bounds the time the search may take; SearchBudget when 0.
	Budget time.Duration
}

// SearchBudget is how long a search may run. A search that would take
// longer is stopped there and answers ErrSearchTooExpensive: an anonymous
// query must not hold a core for seconds, whatever it and the posts hold.
// (The SQLite adapter allows 20 times as much in a binary built with
// -race, which only tests are.)
const SearchBudget = 50 * time.Millisecond

// ErrSearchTooExpensive is Search's answer when its budget ran out.
var ErrSearchTooExpensive = &murlog.Error{Code: murlog.EInvalid, Field: "q",
	Message: "this search is too expensive: narrow it with longer or less common words"}

// SitemapEntry is one post in sitemap.xml.
type SitemapEntry struct {
	ID          string
	Slug        string
	Username    string
	PublishedAt time.Time
	UpdatedAt   time.Time
}

// MenuEntry is a page in the site menu.
type MenuEntry struct {
	ID, Title, Slug string
}
