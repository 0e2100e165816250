package federation

import (
	"html"
	"sort"
	"strings"
	"time"

	xhtml "golang.org/x/net/html"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/markup"
)

// What murlog keeps of a remote document: an actor (ActorRecord) and a
// post (RemotePostOf), sanitised and held to what their server may say.
// The inbox's processing and the API's fetches of remote posts both use
// them, as the resolver uses actorOf.

// ActorRecord turns a decoded remote actor into the record murlog caches:
// the resolver's sanitized form (actorOf), held to what an actor may say
// about itself — a user name, an inbox on its own server, collections and
// keys on its own server, links only as absolute http(s) URLs — and with
// the names reduced to text (tags dropped). fetched is when the document
// was read.
func ActorRecord(o *activitypub.Object, fetched time.Time) (*murlog.RemoteActor, error) {
	if !o.IsActor() {
		return nil, murlog.Invalid("type", "%q is not an actor type", o.Type)
	}
	if activitypub.HostOf(o.ID) == "" {
		return nil, murlog.Invalid("id", "is not an http(s) URL")
	}
	if !activitypub.SameOrigin(o.Inbox, o.ID) {
		return nil, murlog.Invalid("inbox", "missing or not on the actor's server")
	}
	a := actorOf(o)
	if a.Username = plainText(a.Username, MaxDisplayName); a.Username == "" || strings.ContainsAny(a.Username, "@/ ") {
		return nil, murlog.Invalid("preferredUsername", "missing or not a user name")
	}
	a.DisplayName = plainText(a.DisplayName, MaxDisplayName)
	for i := range a.Fields {
		a.Fields[i].Name = plainText(a.Fields[i].Name, MaxDisplayName)
	}
	a.URL, a.SharedInbox, a.MovedTo = httpURL(a.URL), httpURL(a.SharedInbox), httpURL(a.MovedTo)
	a.AvatarURL, a.HeaderURL = httpURL(a.AvatarURL), httpURL(a.HeaderURL)
	a.Outbox, a.Followers = sameOrigin(a.Outbox, o.ID), sameOrigin(a.Followers, o.ID)
	a.Following, a.Featured = sameOrigin(a.Following, o.ID), sameOrigin(a.Featured, o.ID)
	if !activitypub.SameOrigin(a.KeyID, o.ID) {
		a.KeyID, a.PublicKeyPEM = "", ""
	}
	if !activitypub.SameOrigin(a.Ed25519KeyID, o.ID) {
		a.Ed25519KeyID, a.Ed25519Key = "", ""
	}
	a.FetchedAt, a.CreatedAt, a.UpdatedAt = fetched, fetched, fetched
	return a, nil
}

// sameOrigin returns iri when it is on base's server, else "".
func sameOrigin(iri, base string) string {
	if activitypub.SameOrigin(iri, base) {
		return iri
	}
	return ""
}

// textOf is the text of an HTML fragment, entities decoded.
func textOf(s string) string {
	var b strings.Builder
	z := xhtml.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return b.String()
		case xhtml.TextToken:
			b.Write(z.Text())
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken, xhtml.EndTagToken:
			b.WriteByte(' ')
		}
	}
}

// RemotePostOf turns a remote object by actor into the post murlog
// keeps: its HTML through the remote sanitizer, text fields plain and
// capped, links http(s) only, an Article, Page or the like shown as its
// linked title (Question: its text and a link to vote), and the mentions
// of this site's personas collected. It refuses an object attributed to
// someone else than actor. now dates an object with no published time.
// The inbox and the API's fetches of remote posts both use it.
func RemotePostOf(site murlog.Site, actor *murlog.RemoteActor, o *activitypub.Object, now time.Time) (*murlog.RemotePost, error) {
	if owner := o.AttributedTo.First().ID; owner != actor.URI {
		return nil, murlog.Errorf(murlog.EForbidden, "%s is attributed to %q, not to its sender %s", o.ID, owner, actor.URI)
	}
	content, lang := o.Content, ""
	if len(o.ContentMap) > 0 {
		langs := make([]string, 0, len(o.ContentMap))
		for l := range o.ContentMap {
			langs = append(langs, l)
		}
		sort.Strings(langs)
		lang = langs[0]
		if content == "" {
			content = o.ContentMap[lang]
		}
	}
	if len(lang) > 35 {
		lang = ""
	}
	post := &murlog.RemotePost{
		URI: o.ID, ActorID: actor.ID, Type: o.Type,
		URL:        httpURL(o.URL),
		Name:       plainText(o.Name, 500),
		Sensitive:  o.Sensitive,
		Visibility: activitypub.VisibilityOf(o, actor.Followers),
		InReplyTo:  o.InReplyTo,
		QuoteOf:    o.QuoteOf,
		Language:   lang,
		Mentions:   mentionsOf(site, o),
	}
	if post.URL == "" {
		post.URL = o.ID
	}
	policy := markup.RemotePolicy()
	switch o.Type {
	case "Note":
		post.Content = markup.Sanitize(content, policy)
		post.Summary = markup.Sanitize(o.Summary, policy)
	case "Question":
		post.Content = markup.Sanitize(content, policy) + linkHTML(post.URL, "")
	default:
		// An Article's summary is its description, not a content
		// warning: shown under the linked title, as Mastodon does.
		post.Content = linkHTML(post.URL, post.Name)
		if s := markup.Sanitize(o.Summary, policy); s != "" {
			if !strings.HasPrefix(s, "<p>") {
				s = "<p>" + s + "</p>"
			}
			post.Content += s
		}
	}
	for _, t := range o.Tag {
		if t.Type == "Hashtag" {
			if name := strings.TrimPrefix(plainText(t.Name, 100), "#"); name != "" {
				post.Tags = append(post.Tags, name)
			}
		}
	}
	for _, at := range o.Attachment {
		u := httpURL(at.URL)
		if u == "" || at.Type == "PropertyValue" || at.Type == "Link" {
			continue
		}
		post.Attachments = append(post.Attachments, murlog.RemoteAttachment{Type: at.Type, MediaType: plainText(at.MediaType, 100),
			URL: u, Name: plainText(at.Name, 1500), Blurhash: plainText(at.Blurhash, 100)})
	}
	post.PublishedAt = o.Published
	if post.PublishedAt.IsZero() {
		post.PublishedAt = now.UTC()
	}
	if !o.Updated.IsZero() {
		u := o.Updated
		post.UpdatedAt = &u
	}
	return post, nil
}

// maxMentions bounds the actors one post may mention that are kept.
const maxMentions = 64

// mentions lists the actors a post mentions: its Mention tags, and the
// personas it is addressed to without a tag (a direct message from a
// server that tags nobody), so each hears of it.
func mentionsOf(site murlog.Site, o *activitypub.Object) []string {
	var out []string
	seen := map[string]bool{}
	add := func(iri string) {
		if iri != "" && !seen[iri] && len(out) < maxMentions && httpURL(iri) != "" {
			seen[iri] = true
			out = append(out, iri)
		}
	}
	for _, t := range o.Tag {
		if t.Type == "Mention" {
			add(t.Href)
		}
	}
	local := site.ActorURL("")
	for _, list := range [][]string{o.To, o.Cc} {
		for _, iri := range list {
			if name, ok := strings.CutPrefix(iri, local); ok && name != "" && !strings.ContainsAny(name, "/#?") {
				add(iri)
			}
		}
	}
	return out
}

// linkHTML is a paragraph linking to url with text (the url when "").
func linkHTML(url, text string) string {
	if url == "" {
		return ""
	}
	if text == "" {
		text = url
	}
	return markup.Sanitize(`<p><a href="`+html.EscapeString(url)+`">`+html.EscapeString(text)+`</a></p>`, markup.RemotePolicy())
}

// httpURL returns u when it is an absolute http(s) URL, else "".
func httpURL(u string) string {
	if activitypub.HostOf(u) == "" {
		return ""
	}
	return u
}

// plainText reduces a remote text field (a name, a display name) to
// text: tags dropped, entities decoded, whitespace collapsed, at most max
// bytes cut on a character boundary.
func plainText(s string, max int) string {
	if strings.ContainsAny(s, "<&") {
		s = textOf(s)
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "")
	}
	return s
}
