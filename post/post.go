// Package post writes and reads the owner's notes and articles. It renders
// the source to safe HTML on write, keeps the persona's post counter and
// the post.publish job of a scheduled post in the same transaction (see
// jobs.go), and applies the publication predicate to every read made for
// an anonymous audience.
package post

import (
	"context"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/markup"
	"github.com/murlog/murlog/store"
)

// Limits, in characters.
const (
	MaxNote     = 3000
	MaxArticle  = 100000
	MaxTitle    = 200
	MaxSummary  = 1000
	DefaultPage = 20
	MaxPage     = 100
	// MaxPublicPage is the largest page an anonymous reader may ask for:
	// a page of posts is the most expensive answer the API gives, and
	// anonymous callers are the ones who could ask for it in a loop.
	MaxPublicPage = 20
)

// Publish says what to do with published_at.
type Publish int

const (
	PublishNow   Publish = iota // published_at = the transaction's now
	PublishDraft                // published_at = NULL
	PublishAt                   // published_at = the given time (future: scheduled; past: back-dated)
)

// Schedule is a published_at instruction.
type Schedule struct {
	Mode Publish
	At   time.Time
}

// Service is the post service.
type Service struct {
	store    store.Store
	renderer *markup.Renderer
	site     murlog.Site
	mentions Mentions // nil: mentions are not resolved
}

// New returns a Service rendering links for site.
func New(st store.Store, site murlog.Site) *Service {
	return &Service{store: st, site: site, renderer: markup.New(markup.Options{
		TagURL:     site.TagURL,
		MentionURL: site.MentionURL,
	})}
}

// CreateInput is a new post.
type CreateInput struct {
	PersonaID  string // "" for the primary persona
	Kind       murlog.PostKind
	Title      string
	Content    string // source: plain text for notes, Markdown for articles
	Summary    string
	Sensitive  bool
	Visibility murlog.Visibility // "" for public
	Language   string
	// AsNote federates an article as a Note (see murlog.Post.AsNote).
	AsNote      bool
	PublishedAt Schedule
	// InReplyTo is the id (IRI) of the post this one answers, "" for
	// none: the reply is delivered to the parent's author too.
	InReplyTo string
	// Slug is an article's address under its persona (see
	// murlog.Post.Slug); "" makes one from the title when it is published.
	Slug string
	// Page makes an article a page of the site (murlog.Post.Page).
	Page bool
}

// Create validates, renders and stores a post.
func (s *Service) Create(ctx context.Context, in CreateInput) (*murlog.Post, error) {
	if in.Kind == "" {
		in.Kind = murlog.KindNote
	}
	if in.Visibility == "" {
		in.Visibility = murlog.VisibilityPublic
	}
	p := &murlog.Post{ID: murlog.NewID(), Kind: in.Kind, Title: strings.TrimSpace(in.Title),
		Source: in.Content, Summary: strings.TrimSpace(in.Summary), Sensitive: in.Sensitive,
		Visibility: in.Visibility, Language: strings.TrimSpace(in.Language), InReplyTo: strings.TrimSpace(in.InReplyTo),
		AsNote: in.AsNote, Slug: in.Slug, Page: in.Page}
	if err := validIRI("in_reply_to", p.InReplyTo); err != nil {
		return nil, err
	}
	if err := s.prepare(p, s.resolveMentions(ctx, p.Kind, p.Source)); err != nil {
		return nil, err
	}
	if in.PersonaID != "" && !murlog.ValidID(in.PersonaID) {
		return nil, murlog.Invalid("persona_id", "is not a valid id")
	}
	if err := validSchedule(in.PublishedAt); err != nil {
		return nil, err
	}
	err := s.store.Update(ctx, func(tx store.Tx) error {
		pid, err := personaID(tx, in.PersonaID)
		if err != nil {
			return err
		}
		p.PersonaID = pid
		p.CreatedAt, p.UpdatedAt = tx.Now(), tx.Now()
		p.PublishedAt = resolve(in.PublishedAt, tx.Now())
		if err := settleSlug(tx, p, "", in.Slug != ""); err != nil {
			return err
		}
		if err := tx.Posts().Create(p); err != nil {
			return err
		}
		if err := published(tx, p.PersonaID, p.ID, nil, p); err != nil {
			return err
		}
		return s.federate(tx, nil, p)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// UpdateInput is a partial edit: nil fields keep their value.
type UpdateInput struct {
	ID          string
	Title       *string
	Content     *string
	Summary     *string
	Sensitive   *bool
	Visibility  *murlog.Visibility
	Language    *string
	AsNote      *bool
	PublishedAt *Schedule
	// Slug sets the article's slug; "" makes a new one from the title.
	Slug *string
	Page *bool
}

// Update edits a post and re-renders it when its source changed.
func (s *Service) Update(ctx context.Context, in UpdateInput) (*murlog.Post, error) {
	if !murlog.ValidID(in.ID) {
		return nil, murlog.Invalid("id", "is not a valid id")
	}
	if in.PublishedAt != nil {
		if err := validSchedule(*in.PublishedAt); err != nil {
			return nil, err
		}
	}
	// New text gets its mentions looked up before the write transaction:
	// the lookups go to remote servers.
	var resolved mentionSet
	if in.Content != nil && s.mentions != nil {
		var kind murlog.PostKind
		err := s.store.View(ctx, func(tx store.Tx) error {
			p, err := tx.Posts().Get(in.ID)
			if err == nil {
				kind = p.Kind
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		resolved = s.resolveMentions(ctx, kind, *in.Content)
	}
	var p *murlog.Post
	err := s.store.Update(ctx, func(tx store.Tx) error {
		var err error
		p, err = tx.Posts().Get(in.ID)
		if err != nil {
			return err
		}
		before := *p
		was := p.PublishedAt
		if in.Title != nil {
			p.Title = strings.TrimSpace(*in.Title)
		}
		if in.Content != nil {
			p.Source = *in.Content
		}
		if in.Summary != nil {
			p.Summary = strings.TrimSpace(*in.Summary)
			if p.Summary == "" && in.Sensitive == nil {
				p.Sensitive = false // clearing the warning clears what it forced
			}
		}
		if in.Sensitive != nil {
			p.Sensitive = *in.Sensitive
		}
		if in.Visibility != nil {
			p.Visibility = *in.Visibility
		}
		if in.Language != nil {
			p.Language = strings.TrimSpace(*in.Language)
		}
		if in.AsNote != nil {
			p.AsNote = *in.AsNote
		}
		if in.Slug != nil {
			p.Slug = *in.Slug
		}
		if in.Page != nil {
			p.Page = *in.Page
		}
		known := resolved
		if known == nil {
			known = keptMentions(p)
		}
		if err := s.prepare(p, known); err != nil {
			return err
		}
		if in.PublishedAt != nil {
			p.PublishedAt = resolve(*in.PublishedAt, tx.Now())
		}
		if err := settleSlug(tx, p, before.Slug, in.Slug != nil && *in.Slug != ""); err != nil {
			return err
		}
		p.UpdatedAt = tx.Now()
		if err := tx.Posts().Update(p); err != nil {
			return err
		}
		if err := published(tx, p.PersonaID, p.ID, was, p); err != nil {
			return err
		}
		return s.federate(tx, &before, p)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Delete removes a post.
func (s *Service) Delete(ctx context.Context, id string) error {
	if !murlog.ValidID(id) {
		return murlog.Invalid("id", "is not a valid id")
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		p, err := tx.Posts().Get(id)
		if err != nil {
			return err
		}
		if err := tx.Posts().Delete(id); err != nil {
			return err
		}
		if err := published(tx, p.PersonaID, p.ID, p.PublishedAt, nil); err != nil {
			return err
		}
		return s.federate(tx, p, nil)
	})
}

// published keeps the persona's post counter and the post's publish job
// in step with a change of its published_at from was to p's (p is nil
// when the post was deleted; was is nil for a new post or a draft). It
// runs in the write's transaction and keeps nothing outside it, so an
// adapter that re-runs the transaction gets the same result.
//
// The counter counts posts published at or before now. A post published
// now or back-dated counts at once (+1). A scheduled post counts when its
// post.publish job runs at its time; editing it to another time moves the
// job (a new id, the old one cancelled), making it a draft or deleting it
// cancels the job. When a post that counted by its time stops counting or
// moves, whether the counter already includes it depends on whether its
// publish job has run — on a CGI host with no traffic it may not have — so
// the counter is recounted rather than decremented.
func published(tx store.Tx, personaID, id string, was *time.Time, p *murlog.Post) error {
	var is *time.Time
	if p != nil {
		is = p.PublishedAt
	}
	if sameTime(was, is) {
		return nil // an edit that leaves publication alone
	}
	now := tx.Now()
	if was != nil {
		// The old schedule's job, if it had one and it has not run: once
		// due it would find the time changed and do nothing anyway.
		if err := tx.Jobs().Cancel(PublishJobID(id, *was)); err != nil {
			return err
		}
	}
	if is != nil && is.After(now) {
		if err := tx.Jobs().Enqueue(publishJob(p)); err != nil {
			return err
		}
	}
	switch {
	case was != nil && !was.After(now):
		_, err := tx.Personas().RecountPosts(personaID, now)
		return err
	case is != nil && !is.After(now):
		return tx.Personas().AddPostsCount(personaID, 1)
	}
	return nil
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// Get returns a post as audience may see it. A post the audience may not
// see is reported as not found, so drafts do not reveal that they exist.
func (s *Service) Get(ctx context.Context, id string, audience murlog.Audience) (*murlog.Post, error) {
	if !murlog.ValidID(id) {
		return nil, murlog.Invalid("id", "is not a valid id")
	}
	var p *murlog.Post
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		p, err = tx.Posts().Get(id)
		if err == nil && audience != murlog.AudienceOwner && !p.PublicAt(tx.Now()) {
			return murlog.NotFound("post")
		}
		return err
	})
	return p, err
}

// ListInput selects a page of posts.
type ListInput struct {
	PersonaID string // "" for the primary persona
	Cursor    string // the last id of the previous page
	Limit     int    // 0 for DefaultPage
	Audience  murlog.Audience
}

// List returns a page of posts, newest first, and the cursor for the next
// page ("" at the end).
func (s *Service) List(ctx context.Context, in ListInput) ([]*murlog.Post, string, error) {
	if err := validList(&in); err != nil {
		return nil, "", err
	}
	if in.Cursor != "" && !murlog.ValidID(in.Cursor) {
		return nil, "", murlog.Invalid("cursor", "is not a valid cursor")
	}
	if in.PersonaID != "" && !murlog.ValidID(in.PersonaID) {
		return nil, "", murlog.Invalid("persona_id", "is not a valid id")
	}
	var out []*murlog.Post
	err := s.store.View(ctx, func(tx store.Tx) error {
		pid, err := personaID(tx, in.PersonaID)
		if err != nil {
			return err
		}
		// One extra row tells whether another page exists.
		out, err = tx.Posts().List(store.PostQuery{PersonaID: pid, Audience: in.Audience,
			Now: tx.Now(), Before: in.Cursor, Limit: in.Limit + 1})
		return err
	})
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > in.Limit {
		out = out[:in.Limit]
		next = out[len(out)-1].ID
	}
	return out, next, nil
}

// validList applies the default page size and the page limits, which are
// lower for anonymous readers.
func validList(in *ListInput) error {
	if in.Limit == 0 {
		in.Limit = DefaultPage
	}
	if in.Audience != murlog.AudienceOwner && (in.Limit < 1 || in.Limit > MaxPublicPage) {
		return murlog.Invalid("limit", "must be between 1 and %d when not logged in (the owner may ask for up to %d)", MaxPublicPage, MaxPage)
	}
	if in.Limit < 1 || in.Limit > MaxPage {
		return murlog.Invalid("limit", "must be between 1 and %d", MaxPage)
	}
	return nil
}

// personaID resolves "" to the primary persona and checks that an explicit
// id exists.
func personaID(tx store.Tx, id string) (string, error) {
	if id == "" {
		return tx.Personas().PrimaryID()
	}
	p, err := tx.Personas().Get(id)
	if err != nil {
		return "", err
	}
	return p.ID, nil
}

// prepare validates p's editable fields and renders its content, linking
// the mentions in known to their profile pages and keeping them as p's
// mentions.
func (s *Service) prepare(p *murlog.Post, known mentionSet) error {
	if err := checkTexts(p); err != nil {
		return err
	}
	limit, err := contentLimit(p.Kind)
	if err != nil {
		return err
	}
	if p.Kind == murlog.KindNote {
		if p.Title != "" {
			return murlog.Invalid("title", "only articles have a title")
		}
		if p.AsNote {
			return murlog.Invalid("federate_as", "only an article can be federated as a note; a note is one already")
		}
		if p.Slug != "" {
			return murlog.Invalid("slug", "only articles have a slug; a note's address is its id")
		}
		if p.Page {
			return murlog.Invalid("page", "only an article can be a page")
		}
	} else {
		if p.Title == "" {
			return murlog.Invalid("title", "is required for an article")
		}
		if utf8.RuneCountInString(p.Title) > MaxTitle {
			return murlog.Invalid("title", "must be at most %d characters", MaxTitle)
		}
	}
	if strings.TrimSpace(p.Source) == "" {
		return murlog.Invalid("content", "is required")
	}
	if n := contentChars(p.Source); n > limit {
		return murlog.Invalid("content", "is %d characters; %s may have at most %d", n, aKind(p.Kind), limit)
	}
	if utf8.RuneCountInString(p.Summary) > MaxSummary {
		return murlog.Invalid("summary", "must be at most %d characters", MaxSummary)
	}
	if p.Summary != "" {
		p.Sensitive = true // a content warning always hides the post
	}
	if !p.Visibility.Valid() {
		return murlog.Invalid("visibility", "must be public, unlisted, followers or direct")
	}
	if p.Page && p.Visibility != murlog.VisibilityPublic && p.Visibility != murlog.VisibilityUnlisted {
		return murlog.Invalid("visibility", "a page is part of the public site: it must be public or unlisted")
	}
	if p.Slug != "" {
		if err := CheckSlug(p.Slug); err != nil {
			return err
		}
	}
	if p.Language != "" && !murlog.ValidLanguage(p.Language) {
		return murlog.Invalid("language", "must be a language tag such as ja or en-US")
	}
	r := render(s.rendererFor(known), p.Kind, p.Source)
	p.Content, p.Tags, p.Mentions = r.HTML, r.Tags, mentioned(r, known)
	p.Excerpt, p.Image = markup.PlainTextPrefix(r.HTML, murlog.ExcerptLen), ""
	if p.Kind == murlog.KindArticle {
		p.Image = markup.FirstImage(r.HTML)
	}
	return nil
}

// contentLimit is how many characters a post of kind may have (as
// contentChars counts them); an unknown kind is invalid.
func contentLimit(kind murlog.PostKind) (int, error) {
	switch kind {
	case murlog.KindNote:
		return MaxNote, nil
	case murlog.KindArticle:
		return MaxArticle, nil
	}
	return 0, murlog.Invalid("kind", "must be note or article")
}

// contentChars is the length of a post's source (line breaks already
// normalised by murlog.CheckText) as its limit counts it: Unicode code
// points, as Mastodon counts a status.
func contentChars(src string) int { return utf8.RuneCountInString(src) }

func aKind(kind murlog.PostKind) string {
	if kind == murlog.KindArticle {
		return "an article"
	}
	return "a note"
}

// render renders a post's source as its kind is rendered: a note's text
// linkified, an article's Markdown; both sanitized.
func render(rd *markup.Renderer, kind murlog.PostKind, src string) markup.Result {
	if kind == murlog.KindArticle {
		return rd.Article(src)
	}
	return rd.Note(src)
}

// Preview is a post's text as Create would store it: its HTML, its
// length as the limit counts it, and the limit of its kind.
type Preview struct {
	HTML  string
	Chars int
	Limit int
}

// Preview renders content as a post of kind ("" for a note) would be
// rendered when written, storing nothing, for the owner's editor to show
// beside the text. Mentions are not looked up (that asks remote servers,
// and the editor previews at every pause in typing): they link to the
// guessed https://host/@user. A text over the limit is no error here, the
// editor shows the counter; text Create refuses at any length (invalid
// UTF-8, control characters) and an unknown kind are invalid.
func (s *Service) Preview(kind murlog.PostKind, content string) (Preview, error) {
	if kind == "" {
		kind = murlog.KindNote
	}
	limit, err := contentLimit(kind)
	if err != nil {
		return Preview{}, err
	}
	src, err := murlog.CheckText("content", content)
	if err != nil {
		return Preview{}, err
	}
	return Preview{HTML: render(s.renderer, kind, src).HTML, Chars: contentChars(src), Limit: limit}, nil
}

// checkTexts runs the text check over every text field of p, keeping the
// normalised line breaks, before anything measures or renders them.
func checkTexts(p *murlog.Post) error {
	for _, f := range []struct {
		name string
		v    *string
	}{{"content", &p.Source}, {"title", &p.Title}, {"summary", &p.Summary}, {"language", &p.Language}, {"slug", &p.Slug}} {
		v, err := murlog.CheckText(f.name, *f.v)
		if err != nil {
			return err
		}
		*f.v = v
	}
	return nil
}

// MaxIRI bounds an IRI the owner gives (in_reply_to).
const MaxIRI = 2048

// validIRI accepts "" or an absolute http(s) URL with a host.
func validIRI(field, s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || len(s) > MaxIRI || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return murlog.Invalid(field, "must be the http or https URL of a post, at most %d characters", MaxIRI)
	}
	return nil
}

// The range of accepted publication times: far enough back to import an
// old blog, far enough ahead for any real schedule.
var (
	minPublish = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	maxPublish = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

func validSchedule(s Schedule) error {
	if s.Mode == PublishAt && (s.At.Before(minPublish) || s.At.After(maxPublish)) {
		return murlog.Invalid("published_at", "must be between 1970 and 9999")
	}
	return nil
}

func resolve(s Schedule, now time.Time) *time.Time {
	switch s.Mode {
	case PublishDraft:
		return nil
	case PublishAt:
		t := s.At.UTC().Truncate(time.Microsecond)
		return &t
	default:
		return &now
	}
}
