package murlog

import "time"

// PostKind distinguishes short notes from long-form articles.
type PostKind string

const (
	KindNote    PostKind = "note"    // plain text, federated as a Note
	KindArticle PostKind = "article" // Markdown with a title, federated as an Article
)

// Visibility is who may see a post, in Mastodon's terms.
type Visibility string

const (
	VisibilityPublic    Visibility = "public"    // anyone; listed everywhere
	VisibilityUnlisted  Visibility = "unlisted"  // anyone with the link; kept out of public listings elsewhere
	VisibilityFollowers Visibility = "followers" // followers only
	VisibilityDirect    Visibility = "direct"    // mentioned accounts only
)

// Valid reports whether v is one of the four visibilities.
func (v Visibility) Valid() bool {
	switch v {
	case VisibilityPublic, VisibilityUnlisted, VisibilityFollowers, VisibilityDirect:
		return true
	}
	return false
}

// Post is a note or an article written by a local persona.
type Post struct {
	ID         string
	PersonaID  string
	Kind       PostKind
	Title      string // articles only
	Source     string // what the owner wrote: plain text (note) or Markdown (article)
	Content    string // rendered, sanitized HTML
	Summary    string // content warning; non-empty forces Sensitive
	Sensitive  bool
	Visibility Visibility
	Language   string // BCP 47 tag, "" if unknown
	Tags       []string
	// AsNote federates an article as a Note rather than an Article:
	// Mastodon shows an Article as its title and a link, which suits a
	// long read but not a short titled post. Articles only.
	AsNote    bool
	InReplyTo string // the parent's id IRI for a reply, "" otherwise
	QuoteOf   string // the quoted post's id IRI, "" otherwise
	// Mentions are the remote accounts the post mentions, as resolved
	// when it was written: addressed and delivered to even without a
	// follow.
	Mentions []PostMention
	// PublishedAt alone decides publication: nil is a private draft, a
	// future time is scheduled, a past time is public. See Audience.
	PublishedAt *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
	// Excerpt is the first ExcerptLen characters of Content's plain text
	// and Image an article's first image, derived when Content is
	// rendered: the blog's descriptions and list titles read them rather
	// than the HTML. "" for both on posts stored before they existed.
	Excerpt string
	Image   string
	// Slug is an article's readable address under its persona,
	// /@name/<slug>: made from the title when it is published, editable,
	// unique per persona; "" for notes and for articles that have none
	// (they keep /@name/<id>). The ActivityPub id stays /@name/<id>.
	Slug string
	// Page marks an article as a page of the site (About, Contact): it is
	// reachable by its address and listed in the site menu, and left out
	// of lists, feeds, search and federation.
	Page bool
}

// ExcerptLen is how much plain text Post.Excerpt keeps: the 200
// characters of a page description, and two more so that the cut can see
// the boundary after them.
const ExcerptLen = 202

// MaxSlug is the longest slug, in bytes of UTF-8: a slug is one path
// segment of the article's address (/@name/<slug>), and the public site is
// to be written as files Apache serves, so <slug>.html must fit a file
// name (255 bytes) with room to spare. 100 bytes is 100 Latin characters
// or 33 kanji.
const MaxSlug = 100

// PostMention is a remote account a post mentions, resolved by
// WebFinger at post time.
type PostMention struct {
	URI   string `json:"uri"`   // the actor's id
	Name  string `json:"name"`  // "@user@host", the Mention tag's name
	URL   string `json:"url"`   // its profile page, which the post's link points to
	Inbox string `json:"inbox"` // its inbox, for when the actor is not cached
}

// Audience says who is reading. Every read path that can be reached without
// login uses AudiencePublic, which applies the one publication predicate
// (Post.PublicAt here, its SQL twin in each store adapter).
type Audience int

const (
	AudiencePublic Audience = iota // anonymous readers: published and public/unlisted only
	AudienceOwner                  // the logged-in owner: everything, drafts included
)

// PublicAt reports whether an anonymous reader may see p at time now: it
// has been published (published_at set and not in the future) and its
// visibility is public or unlisted. This is the publication predicate; store
// adapters implement the same rule in their query language and a test
// checks that the two agree.
func (p *Post) PublicAt(now time.Time) bool {
	if p.PublishedAt == nil || p.PublishedAt.After(now) {
		return false
	}
	return p.Visibility == VisibilityPublic || p.Visibility == VisibilityUnlisted
}

// State names the publication state derived from PublishedAt.
func (p *Post) State(now time.Time) string {
	switch {
	case p.PublishedAt == nil:
		return "draft"
	case p.PublishedAt.After(now):
		return "scheduled"
	default:
		return "published"
	}
}
