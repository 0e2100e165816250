// Package blog is the public site: the pages readers see at /, /@name,
// /@name/<id>, /tags/<tag> and /search, their feeds, the sitemap, robots.txt
// and the public read API under /api/pub/.
//
// It is three layers kept apart so the read-path issue can write the same
// bytes as artifacts without a request: the Loader reads the store into a
// page model (load.go, views.go, search.go, api.go), pure functions render
// a model to bytes (render.go), and the Handler parses requests and writes
// responses (handler.go).
package blog

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/internal/lru"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/siteconfig"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/theme"
)

// Page sizes of the list modes: a Rich page carries whole posts, a Plain
// (and KWIC) page one line or a few per post.
const (
	RichPageSize  = 5
	PlainPageSize = 20
)

// Display modes of lists.
const (
	ModeRich  = "rich"
	ModePlain = "plain"
	ModeKWIC  = "kwic"
)

// Loader reads the store into page models. Each page is read in one
// store.View transaction, so it shows one consistent state. The zero Log
// discards; Now defaults to the transaction's clock. A Loader must not be
// copied after first use.
type Loader struct {
	Site   murlog.Site
	Store  store.Store
	Themes *theme.Set
	Log    *slog.Logger
	Now    func() time.Time
	// TextCache is how many posts' derived texts (list title,
	// description, featured image) to keep between pages; 0 keeps none
	// (CGI: one page per process).
	TextCache int
	// SiteTTL is how long a persona, its site settings and the site-wide
	// settings are reused without reading them again (Invalidate drops
	// them at once; the TTL lets several processes over one database
	// converge); 0 reads them on every page.
	SiteTTL time.Duration
	// SearchBudget is how long a search may run before its page says it
	// is too expensive; store.SearchBudget when 0.
	SearchBudget time.Duration

	textsOnce sync.Once
	textCache *lru.Cache[textKey, postText]
	sites     siteCache
	posts     postCache
}

// SiteQuery selects a site page.
type SiteQuery struct {
	Username string // "" for the primary persona (the page at /)
	Mode     string // ModeRich (default) or ModePlain
	Oldest   bool
	After    string // cursor: the last post id of the previous page
}

// scope is what every page of one persona reads first, inside the page's
// transaction.
type scope struct {
	tx      store.Tx
	now     time.Time
	persona *murlog.Persona
	primary bool // the page is served at the root (/, /search)
	cfg     *murlog.PubConfig
	ext     siteconfig.Extensions
	menu    []store.MenuEntry // the persona's pages, for the site menu
	lang    string            // page language: "en" or "ja"
	langTag string            // the site_language setting as stored
	noIndex bool
	noAI    bool
	info    theme.Info
	t       Strings
	// authors caches the shown author of other personas' posts (tag
	// pages, by-ids).
	authors map[string]author
}

type author struct{ username, name string }

func (l *Loader) log() *slog.Logger {
	if l.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.Log
}

func (l *Loader) now(tx store.Tx) time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return tx.Now()
}

// view runs fn in one read transaction. The caches' generation is taken
// before the transaction begins and travels with it (viewTx): what the
// transaction reads is then at least as new as every change announced
// (Invalidate) before that generation, so keeping it under that
// generation is right — and a read taken from a snapshot older than the
// latest Invalidate is never kept under the new generation (a render
// whose transaction began before an edit committed would otherwise keep
// the old post for the whole epoch).
func (l *Loader) view(ctx context.Context, fn func(tx store.Tx) error) error {
	gen := l.generation()
	return l.Store.View(ctx, func(tx store.Tx) error { return fn(viewTx{tx, gen}) })
}

// viewTx is a read transaction with the caches' generation taken before
// it began.
type viewTx struct {
	store.Tx
	gen uint64
}

// genOf is the generation what tx reads may be kept under.
func (l *Loader) genOf(tx store.Tx) uint64 {
	if v, ok := tx.(viewTx); ok {
		return v.gen
	}
	return ^uint64(0) // not from view: matches no generation, so nothing read is kept
}

// open reads the persona (the primary for ""), its settings and the site
// settings, or takes them from the site cache. An unknown username is
// ENotFound.
func (l *Loader) open(tx store.Tx, username string) (*scope, error) {
	key := "u:" + strings.ToLower(username)
	if username == "" {
		key = "primary"
	}
	ps := l.cached(key)
	gen := l.genOf(tx)
	if ps != nil {
		return l.scopeFrom(tx, ps, username == ""), nil
	}
	var p *murlog.Persona
	var err error
	if username == "" {
		p, err = tx.Personas().Primary()
	} else {
		p, err = tx.Personas().GetByUsername(username)
	}
	if err != nil {
		return nil, err
	}
	ps, err = l.readSite(tx, p)
	if err != nil {
		return nil, err
	}
	l.keep(key, ps, gen)
	return l.scopeFrom(tx, ps, username == ""), nil
}

// openPage is open for a themed page of a persona: an unknown username
// gives the site's 404 page instead of a scope (s is nil then; err is
// only a store failure).
func (l *Loader) openPage(tx store.Tx, username string) (s *scope, missing *Page, err error) {
	s, err = l.open(tx, username)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		missing, err = l.errorPage(tx, nil, 404)
		return nil, missing, err
	}
	if err != nil {
		return nil, nil, err
	}
	return s, nil, nil
}

// scopeOf is open for a persona already read (by id).
func (l *Loader) scopeOf(tx store.Tx, p *murlog.Persona, primary bool) (*scope, error) {
	ps, err := l.readSite(tx, p)
	if err != nil {
		return nil, err
	}
	return l.scopeFrom(tx, ps, primary), nil
}

// personaSite is what a persona's pages read before their posts: the
// persona, its site settings and the site-wide ones. The site cache keeps
// it; nothing in it is ever modified once read.
type personaSite struct {
	persona *murlog.Persona
	cfg     *murlog.PubConfig
	ext     siteconfig.Extensions
	menu    []store.MenuEntry
	langTag string
	noIndex bool
	noAI    bool
}

// MaxMenu is how many pages the site menu lists.
const MaxMenu = 20

func (l *Loader) readSite(tx store.Tx, p *murlog.Persona) (*personaSite, error) {
	cfg, ext, err := siteconfig.Load(tx, p.ID)
	if cfg == nil {
		return nil, err
	}
	if err != nil {
		l.log().Error("site settings unreadable; using what could be read", "persona", p.Username, "err", err)
	}
	m, err := tx.Settings().GetMany(settings.KeyLanguage, settings.KeyRobotsNoindex, settings.KeyRobotsNoAI)
	if err != nil {
		return nil, err
	}
	menu, err := tx.PublicPosts().Pages(p.ID, l.now(tx), MaxMenu)
	if err != nil {
		return nil, err
	}
	return &personaSite{persona: p, cfg: cfg, ext: ext, menu: menu, langTag: m[settings.KeyLanguage],
		noIndex: m[settings.KeyRobotsNoindex] == "1", noAI: m[settings.KeyRobotsNoAI] != "0"}, nil
}

func (l *Loader) scopeFrom(tx store.Tx, ps *personaSite, primary bool) *scope {
	s := &scope{tx: tx, now: l.now(tx), persona: ps.persona, primary: primary, cfg: ps.cfg, ext: ps.ext,
		menu: ps.menu, langTag: ps.langTag, noIndex: ps.noIndex, noAI: ps.noAI}
	s.lang = pageLang(s.langTag)
	s.t = stringsFor(s.lang)
	name := ps.cfg.DesignTheme
	if name == "" {
		name = theme.Default // never chosen (a new site): the default, not a fallback to log
	}
	s.info = l.Themes.Info(name)
	return s
}

// siteURL is the persona's site page: / for the primary persona's root
// pages, /@name otherwise.
func (l *Loader) siteURL(s *scope) string {
	if s.primary {
		return l.Site.Base() + "/"
	}
	return l.Site.PersonaURL(s.persona.Username)
}

func (l *Loader) searchURL(s *scope) string {
	if s.primary {
		return l.Site.Base() + "/search"
	}
	return l.Site.PersonaURL(s.persona.Username) + "/search"
}

// SitePage loads a persona's site page: its profile and a page of its
// listed posts.
func (l *Loader) SitePage(ctx context.Context, q SiteQuery) (*Page, error) {
	var page *Page
	err := l.view(ctx, func(tx store.Tx) error {
		s, missing, err := l.openPage(tx, q.Username)
		if s == nil {
			page = missing
			return err
		}
		page, err = l.sitePage(s, q)
		return err
	})
	return page, err
}

func (l *Loader) sitePage(s *scope, q SiteQuery) (*Page, error) {
	mode := listMode(q.Mode)
	lq := store.PublicQuery{PersonaID: s.persona.ID, Oldest: q.Oldest, After: q.After}
	posts, more, after, err := l.list(s, lq, mode)
	if err != nil {
		return nil, err
	}
	transient, err := l.transient(s, lq, mode, after)
	if err != nil {
		return nil, err
	}
	page := l.base(s, "site")
	page.Transient = transient
	page.Profile = l.profile(s)
	page.Posts = l.postViews(s, posts, mode)
	base := l.siteURL(s)
	page.Mode = modeView(base, url.Values{}, mode, q.Oldest, false)
	page.Pager = l.pager(s, base, url.Values{}, mode, q.Oldest, after, posts, more)
	page.Meta = l.meta(s, page, "site", nil, page.Site.Name, l.description(s), "", base)
	l.finish(page)
	return page, nil
}

// listMode is a list page's mode: unknown values read as the default.
func listMode(m string) string {
	if m == ModePlain {
		return ModePlain
	}
	return ModeRich
}

func pageSize(mode string) int {
	if mode == ModeRich {
		return RichPageSize
	}
	return PlainPageSize
}

// list reads one page of listed posts (and whether another follows). A
// cursor the store refuses (unknown, unlisted, garbage) reads as the
// first page, never an error page; after is the cursor actually used.
func (l *Loader) list(s *scope, q store.PublicQuery, mode string) (posts []*murlog.Post, more bool, after string, err error) {
	q.Now, q.Limit = s.now, pageSize(mode)+1
	posts, err = s.tx.PublicPosts().List(q)
	if murlog.ErrorCode(err) == murlog.EInvalid && q.After != "" {
		q.After = ""
		posts, err = s.tx.PublicPosts().List(q)
	}
	if err != nil {
		return nil, false, "", err
	}
	if len(posts) > pageSize(mode) {
		posts, more = posts[:pageSize(mode)], true
	}
	return posts, more, q.After, nil
}

// MaxCursorPages is how many pages after the first a list keeps as
// artifacts, in each mode: the pages a reader reaches by following
// "older" from the first. Deeper ones, and those of the oldest-first
// order (whose last page every new post changes), are rendered on each
// read.
const MaxCursorPages = 10

// transient reports whether the page of q (asked for q.After; after is
// the cursor actually used, "" when the store refused it and the first
// page was read) is no artifact's (Page.Transient): a cursor page other
// than the first MaxCursorPages that the list's own links lead to —
// those continue after a post of the list standing at a multiple of the
// page size. One bounded walk of the list's index.
func (l *Loader) transient(s *scope, q store.PublicQuery, mode, after string) (bool, error) {
	switch {
	case q.After == "":
		return false, nil
	case after == "" || q.Oldest:
		return true, nil
	}
	size := pageSize(mode)
	q.Now, q.After = s.now, after
	n, in, err := s.tx.PublicPosts().Position(q, size*MaxCursorPages)
	if err != nil {
		return false, err
	}
	return !in || n%size != 0 || n > size*MaxCursorPages, nil
}

// base fills what every themed page of a persona shows.
func (l *Loader) base(s *scope, kind string) *Page {
	p := &Page{Kind: kind, IsSite: kind == "site", IsPost: kind == "post", IsTag: kind == "tag",
		IsSearch: kind == "search", IsError: kind == "error", Lang: s.lang, Dir: "ltr", T: s.t,
		Theme: NewThemeView(s.info)}
	u := s.persona.Username
	p.Site = SiteView{Name: siteName(s), Subtitle: s.cfg.Subtitle, Introduction: s.cfg.Introduction,
		URL: l.siteURL(s), Username: u, ShowServiceHeader: s.cfg.ShowServiceHeader, ShowSiteName: s.cfg.ShowSiteName,
		ShowPagination: s.cfg.ShowPagination, ServiceName: "murlog", ServiceURL: l.Site.Base() + "/",
		FeedRSS: l.Site.PersonaURL(u) + "/feed.rss", FeedAtom: l.Site.PersonaURL(u) + "/feed.atom", SearchURL: l.searchURL(s)}
	for _, e := range s.menu {
		p.Site.Menu = append(p.Site.Menu, MenuLink{Title: e.Title, URL: l.Site.PageURL(u, e.ID, e.Slug)})
	}
	api := l.Site.Base() + "/api/pub/"
	p.Hydrate = Hydrate{Username: u, PostsAPI: api + "personas/" + url.PathEscape(u) + "/posts", ByIDsAPI: api + "posts/by-ids",
		ConfigAPI: api + "personas/" + url.PathEscape(u) + "/config", Lang: s.lang}
	return p
}

// finish completes a page: the analytics script when the page sends a
// page_view, and the encoded hydration data.
func (l *Loader) finish(p *Page) {
	if p.Meta.GA != nil {
		a := l.Themes.Asset(p.Theme.Name, "analytics.js")
		p.Theme.Analytics, p.Theme.AnalyticsIntegrity = a.URL, a.Integrity
	}
	p.HydrateJSON = hydrateJSON(p.Hydrate)
}

// siteName is the name the header shows: the configured site name, or the
// display name, or the username.
func siteName(s *scope) string { return siteconfig.Name(s.cfg, s.persona) }

// authorName is the author shown on a persona's posts.
func authorName(cfg *murlog.PubConfig, p *murlog.Persona) string {
	switch {
	case cfg.Author != "":
		return cfg.Author
	case p.DisplayName != "":
		return p.DisplayName
	}
	return p.Username
}

// description is the site page's description (and its feed's): the
// introduction, the subtitle or the persona's summary, whichever is set
// first ("" for none: the page's metadata then says "Posts by <name>").
func (l *Loader) description(s *scope) string {
	for _, d := range []string{s.cfg.Introduction, s.cfg.Subtitle, s.persona.Summary} {
		if d = strings.TrimSpace(d); d != "" {
			return cut(d, 200)
		}
	}
	return ""
}

// cut shortens s to n characters with "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// pager links the pages of a list; nil when the persona hides pagination.
func (l *Loader) pager(s *scope, base string, keep url.Values, mode string, oldest bool, after string,
	posts []*murlog.Post, more bool) *Pager {
	if !s.cfg.ShowPagination {
		return nil
	}
	pg := &Pager{Oldest: oldest}
	v := cloneValues(keep)
	if mode != ModeRich && mode != "" {
		v.Set("mode", mode)
	}
	pg.NewestURL = withQuery(base, v)
	v.Set("order", "oldest")
	pg.OldestURL = withQuery(base, v)
	if !oldest {
		v.Del("order")
	}
	if after != "" {
		pg.FirstURL = withQuery(base, v)
	}
	if more && len(posts) > 0 {
		v.Set("after", posts[len(posts)-1].ID)
		pg.NextURL = withQuery(base, v)
	}
	return pg
}

// modeView names the mode and the URLs that switch it (keeping the order
// and the other parameters in keep, starting from the first page).
func modeView(base string, keep url.Values, mode string, oldest, search bool) ModeView {
	m := ModeView{Name: mode, IsRich: mode == ModeRich, IsPlain: mode == ModePlain, IsKWIC: mode == ModeKWIC}
	v := cloneValues(keep)
	if oldest {
		v.Set("order", "oldest")
	}
	link := func(name string, dflt bool) string {
		if dflt {
			v.Del("mode")
		} else {
			v.Set("mode", name)
		}
		return withQuery(base, v)
	}
	m.RichURL = link(ModeRich, !search)
	m.PlainURL = link(ModePlain, false)
	if search {
		m.KWICURL = link(ModeKWIC, true)
	}
	return m
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v)+2)
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

func withQuery(base string, v url.Values) string {
	if len(v) == 0 {
		return base
	}
	return base + "?" + v.Encode()
}

// TagPage loads a tag page: every persona's listed posts with the tag,
// themed with the primary persona's settings. A tag of no posts is a page
// saying so (tags are open: any name may have posts tomorrow).
func (l *Loader) TagPage(ctx context.Context, tag, mode string, oldest bool, after string) (*Page, error) {
	tag = strings.TrimPrefix(strings.TrimSpace(tag), "#")
	var page *Page
	err := l.view(ctx, func(tx store.Tx) error {
		s, err := l.open(tx, "")
		if err != nil {
			return err
		}
		if !validTag(tag) {
			page = l.errorOf(s, 404)
			return nil
		}
		mode := listMode(mode)
		lq := store.PublicQuery{Tag: tag, Oldest: oldest, After: after}
		posts, more, after, err := l.list(s, lq, mode)
		if err != nil {
			return err
		}
		transient, err := l.transient(s, lq, mode, after)
		if err != nil {
			return err
		}
		page = l.base(s, "tag")
		page.Transient = transient
		base := l.Site.TagURL(tag)
		page.Tag = &TagView{Name: tag, FeedRSS: base + "/feed.rss", FeedAtom: base + "/feed.atom"}
		page.Posts = l.postViews(s, posts, mode)
		page.Mode = modeView(base, url.Values{}, mode, oldest, false)
		page.Pager = l.pager(s, base, url.Values{}, mode, oldest, after, posts, more)
		page.Meta = l.meta(s, page, "tag", nil, "", "", "", base)
		l.finish(page)
		return nil
	})
	return page, err
}

// MaxTag bounds a tag name in a URL (characters).
const MaxTag = 100

func validTag(tag string) bool {
	if tag == "" || utf8.RuneCountInString(tag) > MaxTag || !utf8.ValidString(tag) {
		return false
	}
	return !strings.ContainsAny(tag, "/#?\x00 \t\r\n")
}

// ErrorPage loads a themed 404, 410 or 503 page in the primary persona's
// theme.
func (l *Loader) ErrorPage(ctx context.Context, status int) (*Page, error) {
	var page *Page
	err := l.view(ctx, func(tx store.Tx) error {
		var err error
		page, err = l.errorPage(tx, nil, status)
		return err
	})
	return page, err
}

// errorPage is an error page of s, or of the primary persona when s is nil.
func (l *Loader) errorPage(tx store.Tx, s *scope, status int) (*Page, error) {
	if s == nil {
		var err error
		if s, err = l.open(tx, ""); err != nil {
			return nil, err
		}
	}
	return l.errorOf(s, status), nil
}

func (l *Loader) errorOf(s *scope, status int) *Page {
	p := l.base(s, "error")
	e := &ErrorView{Status: status, Title: s.t["page_not_found"], Message: s.t["page_not_found_message"]}
	switch status {
	case 410:
		e.Title, e.Message, e.Gone = s.t["gone"], s.t["gone_message"], true
	case 503:
		e.Title, e.Message = s.t["unavailable"], s.t["unavailable_message"]
	}
	p.Error = e
	p.Meta = l.meta(s, p, "error", nil, e.Title, "", "", "")
	noindex(&p.Meta)
	l.finish(p)
	return p
}

// Status is the HTTP status a page is served with.
func (p *Page) Status() int {
	if p.Error != nil {
		return p.Error.Status
	}
	if p.Search != nil && p.Search.Refused {
		return 400
	}
	return 200
}
