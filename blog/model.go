package blog

import (
	"github.com/murlog/murlog/blog/meta"
	"github.com/murlog/murlog/theme"
)

// The page models. A template receives a *Page; the public read API
// answers the same PostView and PostLink shapes as JSON, so the browser
// renders the very partials the server rendered (hydration).
//
// Naming contract with the themes (web/themes/*/templates): the handlebars
// names are the JSON names; a field ending in _html is sanitized HTML and
// is written with {{{triple}}} braces; every other string is text and is
// written with {{double}} braces, which escape it.

// Page is the root context of every themed page.
type Page struct {
	Kind string `json:"kind" handlebars:"kind"` // "site", "post", "tag", "search", "error"
	// IsSite … IsError mirror Kind for templates without an eq helper.
	IsSite   bool `json:"-" handlebars:"is_site"`
	IsPost   bool `json:"-" handlebars:"is_post"`
	IsTag    bool `json:"-" handlebars:"is_tag"`
	IsSearch bool `json:"-" handlebars:"is_search"`
	IsError  bool `json:"-" handlebars:"is_error"`

	Lang  string    `json:"lang" handlebars:"lang"` // html lang attribute
	Dir   string    `json:"-" handlebars:"dir"`     // "ltr"
	Theme ThemeView `json:"-" handlebars:"theme"`
	Site  SiteView  `json:"site" handlebars:"site"`
	Meta  meta.Meta `json:"-" handlebars:"meta"`
	T     Strings   `json:"-" handlebars:"t"` // interface strings in Lang

	// Profile is the persona's profile: at the top of its site page, and
	// in the sidebar when the config shows it. Nil when hidden.
	Profile *ProfileView `json:"profile,omitempty" handlebars:"profile"`

	// Lists (site, tag and search pages).
	Posts []PostView `json:"posts,omitempty" handlebars:"posts"`
	Pager *Pager     `json:"pager,omitempty" handlebars:"pager"`
	Mode  ModeView   `json:"-" handlebars:"mode"`

	// Post page.
	Post  *PostView `json:"post,omitempty" handlebars:"post"`
	Older *PostLink `json:"older,omitempty" handlebars:"older"`
	Newer *PostLink `json:"newer,omitempty" handlebars:"newer"`
	Share *Share    `json:"-" handlebars:"share"` // nil: no share area

	Sidebar *Sidebar `json:"sidebar,omitempty" handlebars:"sidebar"` // nil: no sidebar

	Tag    *TagView    `json:"tag,omitempty" handlebars:"tag"`
	Search *SearchView `json:"search,omitempty" handlebars:"search"`
	Error  *ErrorView  `json:"error,omitempty" handlebars:"error"`

	// Hydrate is what the browser script reads (written into a
	// <script type="application/json" id="murlog-data"> data block, which
	// no CSP blocks because it never runs): the API URLs and the counts.
	Hydrate Hydrate `json:"-" handlebars:"hydrate"`
	// HydrateJSON is Hydrate encoded, HTML-safe ("<" escaped).
	HydrateJSON string `json:"-" handlebars:"hydrate_json"`

	// Redirect, when set, is where this address has moved (an article's
	// id address or old slug, to its slug address): the handler answers
	// 301 and renders nothing.
	Redirect string `json:"-" handlebars:"-"`
	// Transient marks a page no artifact keeps: a list page after a
	// cursor that is not one of the first MaxCursorPages pages the list's
	// own links lead to (any listed post is a cursor, so keeping every
	// one would let anyone fill the folder). The handler says so in
	// artifact.TransientHeader.
	Transient bool `json:"-" handlebars:"-"`
}

// ThemeView names the theme and its hashed assets.
type ThemeView struct {
	Name     string `handlebars:"name"`
	Vertical bool   `handlebars:"vertical"` // writing-mode: vertical-rl
	// Stylesheets and Scripts are the theme's assets in theme.json order,
	// as content-hashed URLs (/themes/<name>/<file>.<hash>.<ext>); kept for
	// themes whose head links them without integrity.
	Stylesheets []string `handlebars:"stylesheets"`
	Scripts     []string `handlebars:"scripts"`
	// CSS and JS are the same assets with their SRI values, which the
	// shipped head writes as integrity attributes.
	CSS []AssetView `handlebars:"css"`
	JS  []AssetView `handlebars:"js"`
	// Analytics is the hashed URL of the theme's analytics.js, set only
	// on pages that send a Google Analytics page_view (meta.ga), and
	// AnalyticsIntegrity its SRI value.
	Analytics          string `handlebars:"analytics"`
	AnalyticsIntegrity string `handlebars:"analytics_integrity"`
}

// AssetView is a hashed asset as a page links it.
type AssetView struct {
	URL       string `handlebars:"url"`
	Integrity string `handlebars:"integrity"` // "sha256-<base64>"
}

// NewThemeView is the view of a theme's Info.
func NewThemeView(in theme.Info) ThemeView {
	v := ThemeView{Name: in.Name, Vertical: in.Vertical, Stylesheets: in.Stylesheets, Scripts: in.Scripts}
	for _, u := range in.Stylesheets {
		v.CSS = append(v.CSS, AssetView{URL: u, Integrity: in.Integrity[u]})
	}
	for _, u := range in.Scripts {
		v.JS = append(v.JS, AssetView{URL: u, Integrity: in.Integrity[u]})
	}
	return v
}

// SiteView is the persona's site: what the header and footer show.
type SiteView struct {
	Name         string `json:"name" handlebars:"name"` // site name, or display name, or username
	Subtitle     string `json:"subtitle" handlebars:"subtitle"`
	Introduction string `json:"introduction" handlebars:"introduction"`
	URL          string `json:"url" handlebars:"url"` // the site page
	Username     string `json:"username" handlebars:"username"`
	// Switches from the persona's config.
	ShowServiceHeader bool   `json:"show_service_header" handlebars:"show_service_header"`
	ShowSiteName      bool   `json:"show_site_name" handlebars:"show_site_name"`
	ShowPagination    bool   `json:"show_pagination" handlebars:"show_pagination"`
	ServiceName       string `json:"-" handlebars:"service_name"` // "murlog"
	ServiceURL        string `json:"-" handlebars:"service_url"`  // the instance's home page
	FeedRSS           string `json:"-" handlebars:"feed_rss"`
	FeedAtom          string `json:"-" handlebars:"feed_atom"`
	SearchURL         string `json:"-" handlebars:"search_url"`
	// Menu is the persona's pages (About, Contact …), oldest first: the
	// site menu of every page (the nav partial).
	Menu []MenuLink `json:"-" handlebars:"menu"`
}

// MenuLink is a page in the site menu. Current marks the page shown.
type MenuLink struct {
	Title   string `handlebars:"title"`
	URL     string `handlebars:"url"`
	Current bool   `handlebars:"current"`
}

// ProfileView is a persona's public profile.
type ProfileView struct {
	DisplayName    string      `json:"display_name" handlebars:"display_name"`
	Username       string      `json:"username" handlebars:"username"`
	Acct           string      `json:"acct" handlebars:"acct"` // "@name@domain"
	SummaryHTML    string      `json:"summary_html" handlebars:"summary_html"`
	AvatarURL      string      `json:"avatar_url,omitempty" handlebars:"avatar_url"`
	HeaderURL      string      `json:"header_url,omitempty" handlebars:"header_url"`
	URL            string      `json:"url" handlebars:"url"`
	Fields         []FieldView `json:"fields,omitempty" handlebars:"fields"`
	PostsCount     int         `json:"posts_count" handlebars:"posts_count"`
	FollowersCount int         `json:"followers_count" handlebars:"followers_count"`
	FollowingCount int         `json:"following_count" handlebars:"following_count"`
}

// FieldView is one profile field. ValueHTML is escaped text, or a link
// with rel="me" when the value is an http(s) URL.
type FieldView struct {
	Name      string `json:"name" handlebars:"name"`
	ValueHTML string `json:"value_html" handlebars:"value_html"`
}

// PostView is one post as the blog shows it, in lists and on its page.
type PostView struct {
	ID               string    `json:"id" handlebars:"id"`
	URL              string    `json:"url" handlebars:"url"` // canonical, no query
	Kind             string    `json:"kind" handlebars:"kind"`
	IsNote           bool      `json:"is_note" handlebars:"is_note"`
	IsArticle        bool      `json:"is_article" handlebars:"is_article"`
	IsPage           bool      `json:"is_page,omitempty" handlebars:"is_page"` // a page of the site (About …): no date, no neighbours
	Title            string    `json:"title" handlebars:"title"`               // articles; "" for notes
	ListTitle        string    `json:"list_title" handlebars:"list_title"`     // title, or a note's excerpt: what a Plain list shows
	ContentHTML      string    `json:"content_html" handlebars:"content_html"` // sanitized; converted for vertical themes
	Summary          string    `json:"summary,omitempty" handlebars:"summary"` // content warning
	Sensitive        bool      `json:"sensitive" handlebars:"sensitive"`
	Description      string    `json:"description" handlebars:"description"` // excerpt of the text, ≤ 200 characters
	Image            string    `json:"image,omitempty" handlebars:"image"`   // featured image: the first image of an article
	Language         string    `json:"language,omitempty" handlebars:"language"`
	Published        string    `json:"published" handlebars:"published"`                 // RFC 3339
	PublishedDisplay string    `json:"published_display" handlebars:"published_display"` // in the page language
	Updated          string    `json:"updated,omitempty" handlebars:"updated"`           // RFC 3339 when edited after publication
	Author           string    `json:"author" handlebars:"author"`
	AuthorURL        string    `json:"author_url" handlebars:"author_url"`
	Tags             []TagLink `json:"tags,omitempty" handlebars:"tags"`
	// KWIC is set on search results in KWIC mode: the text around each hit.
	KWIC []KWICLine `json:"kwic,omitempty" handlebars:"kwic"`
	// CommentsSlot and the like are places later issues fill; the page
	// leaves them ready.
	AllowComments bool `json:"-" handlebars:"allow_comments"`
}

// PostLink is a post in a short list (sidebar, prev/next).
type PostLink struct {
	ID               string `json:"id" handlebars:"id"`
	URL              string `json:"url" handlebars:"url"`
	Title            string `json:"list_title" handlebars:"list_title"` // the list title: title, or a note's excerpt
	Published        string `json:"published" handlebars:"published"`
	PublishedDisplay string `json:"published_display" handlebars:"published_display"`
}

// TagLink is a hashtag with its page.
type TagLink struct {
	Name string `json:"name" handlebars:"name"`
	URL  string `json:"url" handlebars:"url"`
}

// KWICLine is one keyword-in-context line: Before and After are text
// around Match (all plain text, escaped by the template). Before starts
// and After ends with "…" where text was left out, so a template adds
// none of its own.
type KWICLine struct {
	Before string `json:"before" handlebars:"before"`
	Match  string `json:"match" handlebars:"match"`
	After  string `json:"after" handlebars:"after"`
}

// Pager links the pages of a list. Cursor URLs (after=<post id>) stay
// valid as new posts arrive.
type Pager struct {
	NextURL   string `json:"next_url,omitempty" handlebars:"next_url"`   // the following page in the current order, "" on the last
	FirstURL  string `json:"first_url,omitempty" handlebars:"first_url"` // the first page, "" on it
	NewestURL string `json:"-" handlebars:"newest_url"`                  // order switches
	OldestURL string `json:"-" handlebars:"oldest_url"`
	Oldest    bool   `json:"oldest" handlebars:"oldest"`
}

// ModeView is the list display mode and the URLs that switch it.
type ModeView struct {
	Name     string `handlebars:"name"` // "rich", "plain" or "kwic"
	IsRich   bool   `handlebars:"is_rich"`
	IsPlain  bool   `handlebars:"is_plain"`
	IsKWIC   bool   `handlebars:"is_kwic"`
	RichURL  string `handlebars:"rich_url"`
	PlainURL string `handlebars:"plain_url"`
	KWICURL  string `handlebars:"kwic_url"` // search pages only
}

// Share is the share area of a post page, buttons in the fixed order X,
// Facebook, LINE, Hatena (Bookmark and Star together).
type Share struct {
	URL                       string        `handlebars:"url"` // canonical, no query string
	Title                     string        `handlebars:"title"`
	URLEncoded                string        `handlebars:"url_encoded"`
	TitleEncoded              string        `handlebars:"title_encoded"`
	Buttons                   []ShareButton `handlebars:"buttons"`
	X, Facebook, LINE, Hatena bool          `handlebars:"-"`
}

// ShareButton is one enabled service.
type ShareButton struct {
	ID         string `handlebars:"id"` // "x", "facebook", "line", "hatena"
	IsX        bool   `handlebars:"is_x"`
	IsFacebook bool   `handlebars:"is_facebook"`
	IsLINE     bool   `handlebars:"is_line"`
	IsHatena   bool   `handlebars:"is_hatena"`
	Label      string `handlebars:"label"`
	// Href is the share link (compact links, and the no-script fallback
	// of the widgets).
	Href string `handlebars:"href"`
}

// Sidebar is what the post page's side column shows.
type Sidebar struct {
	Profile bool       `json:"profile" handlebars:"profile"`
	Recent  []PostLink `json:"recent,omitempty" handlebars:"recent"`
	// RecentCount is the clamped setting (0: the list is hidden).
	RecentCount int `json:"recent_count" handlebars:"recent_count"`
	// PopularCount is the clamped setting; the list itself arrives with
	// the page-view issue, and the theme leaves its slot ready.
	PopularCount int `json:"popular_count" handlebars:"popular_count"`
}

// TagView is a tag page's tag.
type TagView struct {
	Name     string `json:"name" handlebars:"name"`
	FeedRSS  string `json:"-" handlebars:"feed_rss"`
	FeedAtom string `json:"-" handlebars:"feed_atom"`
}

// SearchView is a search page's query and outcome.
type SearchView struct {
	Query  string `json:"query" handlebars:"query"`
	Action string `json:"-" handlebars:"action"` // the form's URL
	Empty  bool   `json:"-" handlebars:"empty"`  // no query given
	NoHits bool   `json:"-" handlebars:"no_hits"`
	// Refused says the query cannot be searched (the page is a 400);
	// Notice says why in the page language.
	Refused bool   `json:"-" handlebars:"refused"`
	Notice  string `json:"-" handlebars:"notice"`
}

// ErrorView is a friendly 404 or 410.
type ErrorView struct {
	Status  int    `json:"status" handlebars:"status"`
	Title   string `json:"title" handlebars:"title"`
	Message string `json:"message" handlebars:"message"`
	Gone    bool   `json:"-" handlebars:"gone"`
}

// Hydrate is the browser script's input.
type Hydrate struct {
	Username     string `json:"username"`
	PostID       string `json:"post_id,omitempty"`
	RecentCount  int    `json:"recent_count"`
	PopularCount int    `json:"popular_count"`
	PostsAPI     string `json:"posts_api"`  // /api/pub/personas/{u}/posts
	ByIDsAPI     string `json:"by_ids_api"` // /api/pub/posts/by-ids
	ConfigAPI    string `json:"config_api"`
	// Share lists the enabled widget ids, whose scripts load only after
	// hydration.
	Share []string `json:"share,omitempty"`
	Lang  string   `json:"lang"`
}

// Strings are the interface words of the themes in the page language
// (English or Japanese), by snake_case key: {{t.recent_posts}}. The keys
// are listed in strings.go.
type Strings map[string]string
