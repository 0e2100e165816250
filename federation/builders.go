package federation

import (
	"encoding/json"
	"html"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/markup"
)

// The builders turn local personas and posts into the ActivityPub JSON
// murlog serves and sends. They are pure functions of their arguments, so
// the endpoints, the delivery jobs and the tests build byte-identical
// documents. Each top-level document carries its @context; an object
// embedded in another (a Note in a Create, a Follow in an Accept) has none.

// ActorObject is the full Person for p: the document at Site.ActorURL
// (and, by content negotiation, what /@u/main-key answers).
func ActorObject(site murlog.Site, p *murlog.Persona) *activitypub.Actor {
	a := KeyActor(site, p)
	a.Name = p.DisplayName
	a.Summary = summaryHTML(site, p.Summary)
	a.URL = site.PersonaURL(p.Username)
	a.Featured = site.FeaturedURL(p.Username)
	a.ManuallyApprovesFollowers = ptr(p.Locked)
	a.Discoverable = ptr(p.Discoverable)
	a.Published = activitypub.FormatTime(p.CreatedAt)
	for _, f := range p.Fields {
		a.Attachment = append(a.Attachment, activitypub.PropertyValue{Type: "PropertyValue", Name: f.Name, Value: fieldHTML(site, f.Value)})
	}
	a.Icon = mediaImage(site, p.AvatarPath)
	a.Image = mediaImage(site, p.HeaderPath)
	return a
}

// KeyActor is the Person with only its technical attributes — id, inbox,
// outbox, collections, endpoints and publicKey — which is what an
// unsigned fetch gets when authorized fetch is on: Mastodon's secure mode
// does the same (mastodon#11269), so that a server can always verify a
// signature by this persona without a signed fetch of its own.
func KeyActor(site murlog.Site, p *murlog.Persona) *activitypub.Actor {
	u := p.Username
	return &activitypub.Actor{
		Context:           json.RawMessage(activitypub.ActorContext),
		ID:                site.ActorURL(u),
		Type:              "Person",
		PreferredUsername: u,
		Inbox:             site.InboxURL(u),
		Outbox:            site.OutboxURL(u),
		Followers:         site.FollowersURL(u),
		Following:         site.FollowingURL(u),
		Endpoints:         activitypub.Endpoints{SharedInbox: site.SharedInboxURL()},
		PublicKey:         activitypub.PublicKey{ID: site.KeyID(u), Owner: site.ActorURL(u), PublicKeyPem: p.PublicKeyPEM},
	}
}

// ActorJSON is ActorObject encoded.
func ActorJSON(site murlog.Site, p *murlog.Persona) ([]byte, error) {
	return activitypub.Marshal(ActorObject(site, p))
}

// summaryHTML renders the plain-text bio as Mastodon renders one:
// escaped, paragraphs, links for URLs, hashtags and mentions.
func summaryHTML(site murlog.Site, s string) string {
	return renderer(site).Note(s).HTML
}

// fieldHTML renders a field's value like a bio but without the paragraph,
// as Mastodon sends field values: a URL becomes a link.
func fieldHTML(site murlog.Site, s string) string {
	h := renderer(site).Note(strings.ReplaceAll(s, "\n", " ")).HTML
	if strings.HasPrefix(h, "<p>") && strings.HasSuffix(h, "</p>") && strings.Count(h, "<p>") == 1 {
		h = h[len("<p>") : len(h)-len("</p>")]
	}
	return h
}

func renderer(site murlog.Site) *markup.Renderer {
	return markup.New(markup.Options{TagURL: site.TagURL, MentionURL: site.MentionURL})
}

// MediaURL is where a stored media reference (avatars/abc.png) is served.
func MediaURL(site murlog.Site, ref string) string { return site.Base() + "/media/" + ref }

func mediaImage(site murlog.Site, ref string) *activitypub.Image {
	if ref == "" {
		return nil
	}
	img := &activitypub.Image{Type: "Image", URL: MediaURL(site, ref)}
	switch strings.ToLower(path.Ext(ref)) {
	case ".png":
		img.MediaType = "image/png"
	case ".jpg", ".jpeg":
		img.MediaType = "image/jpeg"
	case ".gif":
		img.MediaType = "image/gif"
	case ".webp":
		img.MediaType = "image/webp"
	case ".avif":
		img.MediaType = "image/avif"
	}
	return img
}

func ptr[T any](v T) *T { return &v }

// Mention is an actor a post mentions: its id and "@user@host".
type Mention struct {
	Href string
	Name string
}

// PostOptions is what a post's document needs beyond the post row.
type PostOptions struct {
	// Mentions are the resolved mentioned actors (WebFinger at post
	// time); a direct post is addressed to them only.
	Mentions []Mention
	// InReplyTo is the id of the post replied to, "" for none.
	InReplyTo string
	// Replies is the number of known replies (the replies collection's
	// totalItems).
	Replies int
	// NoQuotes withholds consent to quote the post (the owner turned
	// allow_quotes off); by default public and unlisted posts are
	// quotable by anyone.
	NoQuotes bool
}

// OptionsOf are the document options of a local post: its resolved
// mentions, the post it replies to, and whether the owner lets others
// quote (settings' allow_quotes). The note served at the post's URL and
// the one delivered are built from the same options, so they agree.
func OptionsOf(post *murlog.Post, allowQuotes bool) PostOptions {
	o := PostOptions{InReplyTo: post.InReplyTo, NoQuotes: !allowQuotes}
	for _, m := range post.Mentions {
		o.Mentions = append(o.Mentions, Mention{Href: m.URI, Name: m.Name})
	}
	return o
}

// PostObject is the Note (KindNote) or Article (KindArticle) for post,
// written by p: the document at Site.PostURL and the object of its
// Create and Update. An article is an Article with its title as name and
// the full HTML as content (or, when the owner chose AsNote, a Note
// opening with its title); its description is never put in summary,
// which Mastodon shows as a content warning (mastodon#8609) — summary
// carries only post.Summary, a real content warning.
func PostObject(site murlog.Site, p *murlog.Persona, post *murlog.Post, o PostOptions) *activitypub.Post {
	u := p.Username
	mentions := make([]string, len(o.Mentions))
	for i, m := range o.Mentions {
		mentions[i] = m.Href
	}
	to, cc := activitypub.Addressing(post.Visibility, site.FollowersURL(u), mentions)
	obj := &activitypub.Post{
		Context:      json.RawMessage(activitypub.ObjectContext),
		ID:           site.PostURL(u, post.ID),
		Type:         "Note",
		AttributedTo: site.ActorURL(u),
		InReplyTo:    o.InReplyTo,
		Summary:      post.Summary,
		Content:      post.Content,
		URL:          site.PageURL(u, post.ID, post.Slug), // Mastodon links to url, Article or Note
		To:           to,
		Cc:           cc,
		Sensitive:    ptr(post.Sensitive || post.Summary != ""),
	}
	switch {
	case post.Kind == murlog.KindArticle && post.AsNote:
		// The owner's choice for a short titled post: a Note whose first
		// paragraph is the title, shown in full by Mastodon.
		obj.Content = "<p><strong>" + html.EscapeString(post.Title) + "</strong></p>" + post.Content
	case post.Kind == murlog.KindArticle:
		obj.Type = "Article"
		obj.Name = post.Title
	}
	if post.PublishedAt != nil {
		obj.Published = activitypub.FormatTime(*post.PublishedAt)
		// An edit after publication is an update; the first save of a
		// scheduled post is not.
		if post.UpdatedAt.After(*post.PublishedAt) {
			obj.Updated = activitypub.FormatTime(post.UpdatedAt)
		}
	}
	if post.Language != "" {
		obj.ContentMap = map[string]string{post.Language: post.Content}
	}
	for _, t := range post.Tags {
		obj.Tag = append(obj.Tag, activitypub.Tag{Type: "Hashtag", Href: site.TagURL(t), Name: "#" + t})
	}
	for _, m := range o.Mentions {
		obj.Tag = append(obj.Tag, activitypub.Tag{Type: "Mention", Href: m.Href, Name: m.Name})
	}
	obj.Replies = RepliesCollection(site, u, post.ID, o.Replies, false)
	// FEP-044f: without a policy Mastodon 4.5 treats a post as unquotable.
	quote := []string{}
	if !o.NoQuotes && (post.Visibility == murlog.VisibilityPublic || post.Visibility == murlog.VisibilityUnlisted) {
		quote = []string{activitypub.Public}
	}
	obj.InteractionPolicy = &activitypub.InteractionPolicy{CanQuote: activitypub.Approval{AutomaticApproval: quote}}
	return obj
}

// RepliesCollection is a post's replies: an OrderedCollection whose first
// page is embedded (empty for now: replies are not listed yet). top adds
// the @context, for serving it on its own.
func RepliesCollection(site murlog.Site, username, postID string, total int, top bool) *activitypub.Collection {
	id := site.RepliesURL(username, postID)
	c := &activitypub.Collection{ID: id, Type: "OrderedCollection", TotalItems: ptr(total),
		First: &activitypub.Collection{ID: id + "?page=true", Type: "OrderedCollectionPage", PartOf: id, OrderedItems: []string{}}}
	if top {
		c.Context = json.RawMessage(activitypub.ASContext)
	}
	return c
}

// Tombstone is what a deleted post's id answers (with 410 Gone).
func Tombstone(site murlog.Site, username, postID string, deletedAt time.Time) *activitypub.Post {
	return &activitypub.Post{Context: json.RawMessage(activitypub.ASContext), ID: site.PostURL(username, postID), Type: "Tombstone",
		Deleted: activitypub.FormatTime(deletedAt)}
}

// CreateID is the id of the Create of a post: one per post.
func CreateID(site murlog.Site, username, postID string) string {
	return site.ActivityURL(username, postID)
}

// CreateActivity wraps PostObject in its Create, addressed like the post.
func CreateActivity(site murlog.Site, p *murlog.Persona, post *murlog.Post, o PostOptions) *activitypub.Activity {
	obj := PostObject(site, p, post, o)
	obj.Context = nil
	return &activitypub.Activity{Context: json.RawMessage(activitypub.ObjectContext), ID: CreateID(site, p.Username, post.ID), Type: "Create",
		Actor: obj.AttributedTo, Published: obj.Published, To: obj.To, Cc: obj.Cc, Object: obj}
}

// UpdateActivity is the Update of an edited post. Its object always
// carries updated (Mastodon ignores an Update without it,
// writefreely#781) — post.UpdatedAt, or the publication time when the
// post was never edited after it. The id differs per version, so each
// edit is a distinct activity, and is the same for a retried delivery.
func UpdateActivity(site murlog.Site, p *murlog.Persona, post *murlog.Post, o PostOptions) *activitypub.Activity {
	obj := PostObject(site, p, post, o)
	obj.Context = nil
	if obj.Updated == "" {
		obj.Updated = activitypub.FormatTime(post.UpdatedAt)
	}
	return &activitypub.Activity{Context: json.RawMessage(activitypub.ObjectContext),
		ID:   CreateID(site, p.Username, post.ID) + "#updates/" + strconv.FormatInt(post.UpdatedAt.Unix(), 10),
		Type: "Update", Actor: obj.AttributedTo, Published: obj.Updated, Updated: obj.Updated,
		To: obj.To, Cc: obj.Cc, Object: obj}
}

// DeleteActivity is the Delete of a post, its object a Tombstone, sent to
// activitypub.Public as Mastodon sends it (the recipients are the inboxes it goes to).
func DeleteActivity(site murlog.Site, p *murlog.Persona, postID string, deletedAt time.Time) *activitypub.Activity {
	t := Tombstone(site, p.Username, postID, deletedAt)
	t.Context = nil
	return &activitypub.Activity{Context: json.RawMessage(activitypub.ASContext), ID: CreateID(site, p.Username, postID) + "#delete",
		Type: "Delete", Actor: site.ActorURL(p.Username), To: []string{activitypub.Public}, Object: t}
}

// UpdateActorActivity is the Update of p's profile, its object the full
// actor; the id is per version (p.UpdatedAt).
func UpdateActorActivity(site murlog.Site, p *murlog.Persona) *activitypub.Activity {
	a := ActorObject(site, p)
	a.Context = nil
	return &activitypub.Activity{Context: json.RawMessage(activitypub.ActorContext),
		ID:   site.ActorURL(p.Username) + "#updates/" + strconv.FormatInt(p.UpdatedAt.Unix(), 10),
		Type: "Update", Actor: a.ID, Updated: activitypub.FormatTime(p.UpdatedAt), To: []string{activitypub.Public}, Object: a}
}

// FollowActivity is p's Follow (id: Site.ActivityURL of the follow row) of
// the remote actor object.
func FollowActivity(site murlog.Site, p *murlog.Persona, id, object string) *activitypub.Activity {
	return simple(site, p, id, "Follow", object, object)
}

// AcceptActivity accepts the remote follower's Follow followID, embedding
// that Follow as Mastodon does (some servers match on the embedded
// object, others on its id).
func AcceptActivity(site murlog.Site, p *murlog.Persona, id, followID, follower string) *activitypub.Activity {
	return answer(site, p, id, "Accept", followID, follower)
}

// RejectActivity rejects (or, after an accept, removes) the remote
// follower's Follow followID.
func RejectActivity(site murlog.Site, p *murlog.Persona, id, followID, follower string) *activitypub.Activity {
	return answer(site, p, id, "Reject", followID, follower)
}

func answer(site murlog.Site, p *murlog.Persona, id, typ, followID, follower string) *activitypub.Activity {
	follow := &activitypub.Activity{ID: followID, Type: "Follow", Actor: follower, Object: site.ActorURL(p.Username)}
	return simple(site, p, id, typ, follow, follower)
}

// LikeActivity is p's Like of the remote post object; to its author when
// known ("" for none).
func LikeActivity(site murlog.Site, p *murlog.Persona, id, object, author string) *activitypub.Activity {
	return simple(site, p, id, "Like", object, author)
}

// BlockActivity is p's Block of the remote actor object.
func BlockActivity(site murlog.Site, p *murlog.Persona, id, object string) *activitypub.Activity {
	return simple(site, p, id, "Block", object, object)
}

// AnnounceActivity is p's boost of object (written by author), addressed
// as Mastodon addresses a public boost: to activitypub.Public, cc the booster's
// followers and the author.
func AnnounceActivity(site murlog.Site, p *murlog.Persona, id, object, author string, published time.Time) *activitypub.Activity {
	a := simple(site, p, id, "Announce", object, "")
	a.Published = activitypub.FormatTime(published)
	a.To = []string{activitypub.Public}
	a.Cc = []string{site.FollowersURL(p.Username)}
	if author != "" {
		a.Cc = append(a.Cc, author)
	}
	return a
}

// UndoActivity undoes undone (a Follow, Like, Announce or Block built by
// the functions above with its original id), embedding it without its
// @context and addressed as it was.
func UndoActivity(site murlog.Site, p *murlog.Persona, id string, undone *activitypub.Activity) *activitypub.Activity {
	inner := *undone
	inner.Context = nil
	return &activitypub.Activity{Context: json.RawMessage(activitypub.ASContext), ID: id, Type: "Undo", Actor: site.ActorURL(p.Username),
		To: undone.To, Cc: undone.Cc, Object: &inner}
}

// simple is an activity of p about object, to one recipient ("" for none).
func simple(site murlog.Site, p *murlog.Persona, id, typ string, object any, to string) *activitypub.Activity {
	a := &activitypub.Activity{Context: json.RawMessage(activitypub.ASContext), ID: id, Type: typ, Actor: site.ActorURL(p.Username), Object: object}
	if to != "" {
		a.To = []string{to}
	}
	return a
}
