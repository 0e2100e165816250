package federation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/markup"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/store"
)

// ActorMaxAge is how long a fetched remote actor is used without
// fetching it again.
const ActorMaxAge = 24 * time.Hour

// FetchAccept is the Accept header of every fetch of ActivityPub JSON.
const FetchAccept = `application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"`

// MaxDisplayName caps a remote display name, in characters.
const MaxDisplayName = 200

// ResolverDeps are what a Resolver needs; Store and Client are required.
type ResolverDeps struct {
	Site  murlog.Site
	Store store.Store
	// Primary returns the primary persona, whose key signs every fetch
	// (Handler.Primary); fetches are unsigned while it is nil or returns
	// nil.
	Primary func(context.Context) (*murlog.Persona, error)
	Keys    *Keys
	Client  *outbound.Client
	Log     *slog.Logger
	Now     func() time.Time
}

// Resolver finds remote actors and objects: by WebFinger handle or URL,
// through signed GETs of the one outbound client, sanitised and cached in
// the store.
type Resolver struct {
	d ResolverDeps

	mu      sync.Mutex
	handles map[string]string // "user@host" → actor id, bounded by maxHandles
}

const maxHandles = 10_000

// NewResolver returns a Resolver.
func NewResolver(d ResolverDeps) *Resolver {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Keys == nil {
		d.Keys = NewKeys(d.Site, d.Now)
	}
	return &Resolver{d: d, handles: map[string]string{}}
}

// Resolve returns the remote actor named by q: "@user@host", "user@host"
// (through WebFinger) or the URL of an actor or of its profile page. An
// actor fetched less than ActorMaxAge ago comes from the store.
func (rv *Resolver) Resolve(ctx context.Context, q string) (*murlog.RemoteActor, error) {
	q = strings.TrimSpace(q)
	if strings.HasPrefix(q, "https://") || strings.HasPrefix(q, "http://") {
		return rv.byURI(ctx, q, false)
	}
	user, host, ok := strings.Cut(strings.TrimPrefix(q, "@"), "@")
	if !ok || user == "" || host == "" || strings.ContainsAny(user+host, "@/?# ") || len(q) > 500 {
		return nil, murlog.Invalid("q", "is neither @user@host nor an http(s) URL")
	}
	handle := strings.ToLower(user + "@" + host)
	rv.mu.Lock()
	uri := rv.handles[handle]
	rv.mu.Unlock()
	if uri != "" {
		if a, err := rv.cached(ctx, uri); err != nil || a != nil {
			return a, err
		}
	}
	uri, err := rv.webfinger(ctx, user, host)
	if err != nil {
		return nil, err
	}
	a, err := rv.byURI(ctx, uri, false)
	if err != nil {
		return nil, err
	}
	rv.mu.Lock()
	if len(rv.handles) >= maxHandles {
		clear(rv.handles)
	}
	rv.handles[handle] = a.URI
	rv.mu.Unlock()
	return a, nil
}

// Refresh fetches the actor uri again, whatever its age.
func (rv *Resolver) Refresh(ctx context.Context, uri string) (*murlog.RemoteActor, error) {
	return rv.byURI(ctx, uri, true)
}

// cached returns the stored actor uri when it is fresh, nil when it is
// stale or unknown.
func (rv *Resolver) cached(ctx context.Context, uri string) (*murlog.RemoteActor, error) {
	var a *murlog.RemoteActor
	err := rv.d.Store.View(ctx, func(tx store.Tx) (err error) { a, err = tx.RemoteActors().GetByURI(uri); return err })
	switch {
	case murlog.ErrorCode(err) == murlog.ENotFound:
		return nil, nil
	case err != nil:
		return nil, err
	case rv.d.Now().Sub(a.FetchedAt) < ActorMaxAge:
		return a, nil
	}
	return nil, nil
}

func (rv *Resolver) byURI(ctx context.Context, uri string, force bool) (*murlog.RemoteActor, error) {
	if !force {
		if a, err := rv.cached(ctx, uri); err != nil || a != nil {
			return a, err
		}
	}
	o, err := rv.fetchActor(ctx, uri)
	if err != nil {
		return nil, err
	}
	a := actorOf(o)
	if err := holdToHost(a, rv.d.Log); err != nil {
		return nil, fmt.Errorf("the actor %s: %w", SanitizeLog(o.ID), err)
	}
	err = rv.d.Store.Update(ctx, func(tx store.Tx) error {
		a.FetchedAt = tx.Now()
		return tx.RemoteActors().Upsert(a)
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// fetchActor fetches and decodes the actor at uri. A profile page that
// answers HTML is searched for its rel=alternate ActivityPub link, once.
func (rv *Resolver) fetchActor(ctx context.Context, uri string) (*activitypub.Object, error) {
	resp, err := rv.get(ctx, uri)
	if err != nil {
		return nil, err
	}
	if isHTML(resp.Header.Get("Content-Type")) {
		alt := alternateLink(resp.Body, resp.URL)
		if alt == "" {
			return nil, unavailable(uri, "the page is HTML and links no ActivityPub actor")
		}
		if resp, err = rv.get(ctx, alt); err != nil {
			return nil, err
		}
	}
	o, err := activitypub.Decode(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("actor %s: %w", resp.URL, err)
	}
	if !o.IsActor() {
		return nil, murlog.Errorf(murlog.EInvalid, "%s is a %s, not an actor", SanitizeLog(resp.URL), SanitizeLog(o.Type))
	}
	if !activitypub.SameOrigin(o.ID, resp.URL) {
		// An actor speaks only for its own server.
		return nil, murlog.Errorf(murlog.EForbidden, "the actor fetched from %s claims the id %s on another host", activitypub.HostOf(resp.URL), SanitizeLog(o.ID))
	}
	return o, nil
}

// FetchObject fetches any ActivityPub object with a signed GET. The
// object's id must be on the host that served it.
func (rv *Resolver) FetchObject(ctx context.Context, uri string) (*activitypub.Object, error) {
	resp, err := rv.get(ctx, uri)
	if err != nil {
		return nil, err
	}
	o, err := activitypub.Decode(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", resp.URL, err)
	}
	if !activitypub.SameOrigin(o.ID, resp.URL) {
		return nil, murlog.Errorf(murlog.EForbidden, "the object fetched from %s claims the id %s on another host", activitypub.HostOf(resp.URL), SanitizeLog(o.ID))
	}
	return o, nil
}

// get is a GET signed by the primary persona.
func (rv *Resolver) get(ctx context.Context, uri string) (*outbound.Response, error) {
	var s outbound.Signer
	if p, err := rv.primary(ctx); err != nil {
		return nil, err
	} else if p != nil {
		if s, err = rv.d.Keys.Signer(p); err != nil {
			return nil, err
		}
	}
	resp, err := rv.d.Client.Get(ctx, uri, FetchAccept, s)
	if err != nil {
		return nil, remoteError(uri, err)
	}
	return resp, nil
}

func (rv *Resolver) primary(ctx context.Context) (*murlog.Persona, error) {
	if rv.d.Primary == nil {
		return nil, nil
	}
	return rv.d.Primary(ctx)
}

// Primary returns the primary persona from the handler's in-memory
// snapshot (no database read in the steady state); nil before setup.
func (h *Handler) Primary(ctx context.Context) (*murlog.Persona, error) {
	s, err := h.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	for _, pd := range s.personas {
		if pd.p.Primary {
			return pd.p, nil
		}
	}
	return nil, nil
}

// webfinger finds the actor id of user@host.
func (rv *Resolver) webfinger(ctx context.Context, user, host string) (string, error) {
	scheme := "https"
	if rv.d.Site.Scheme == "http" {
		scheme = "http"
	}
	u := scheme + "://" + host + "/.well-known/webfinger?resource=" + url.QueryEscape("acct:"+user+"@"+host)
	resp, err := rv.d.Client.Get(ctx, u, "application/jrd+json, application/json", nil)
	if err != nil {
		return "", remoteError(u, err)
	}
	var jrd struct {
		Links []struct {
			Rel, Type, Href string
		} `json:"links"`
	}
	if err := json.Unmarshal(resp.Body, &jrd); err != nil {
		return "", unavailable(u, "WebFinger answer is not JSON")
	}
	for _, l := range jrd.Links {
		if l.Rel == "self" && activitypub.IsActivityContentType(l.Type) && activitypub.HostOf(l.Href) != "" {
			return l.Href, nil
		}
	}
	return "", murlog.Errorf(murlog.ENotFound, "%s@%s has no ActivityPub actor", SanitizeLog(user), SanitizeLog(host))
}

// actorOf turns a decoded actor into the stored form, sanitised: plain
// text names, remote HTML through markup's remote policy.
func actorOf(o *activitypub.Object) *murlog.RemoteActor {
	a := &murlog.RemoteActor{
		URI: o.ID, Username: plain(o.PreferredUsername, MaxDisplayName), Domain: activitypub.HostOf(o.ID),
		DisplayName: plain(o.Name, MaxDisplayName),
		Summary:     markup.Sanitize(o.Summary, markup.RemotePolicy()),
		URL:         o.URL, Inbox: o.Inbox, SharedInbox: o.Endpoints.SharedInbox, Outbox: o.Outbox,
		Followers: o.Followers, Following: o.Following, Featured: o.Featured,
		Type: o.Type, Locked: o.ManuallyApprovesFollowers, Discoverable: o.Discoverable, MovedTo: o.MovedTo,
	}
	if o.Icon != nil {
		a.AvatarURL = o.Icon.URL
	}
	if o.Image != nil {
		a.HeaderURL = o.Image.URL
	}
	for _, f := range o.Fields() {
		a.Fields = append(a.Fields, murlog.Field{Name: plain(f.Name, MaxDisplayName), Value: markup.Sanitize(f.Value, markup.RemotePolicy())})
	}
	for _, k := range o.PublicKey {
		if k.PublicKeyPem != "" && (k.Owner == "" || k.Owner == o.ID) {
			a.KeyID, a.PublicKeyPEM = k.ID, k.PublicKeyPem
			break
		}
	}
	for _, k := range o.AssertionMethod {
		if k.PublicKeyMultibase != "" && (k.Controller == "" || k.Controller == o.ID) {
			a.Ed25519KeyID, a.Ed25519Key = k.ID, k.PublicKeyMultibase
			break
		}
	}
	return a
}

// plain makes remote text safe as plain text: valid UTF-8, no control
// characters, at most max characters.
func plain(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if murlog.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max])
	}
	return strings.TrimSpace(s)
}

// SanitizeLog makes a remote value safe to quote in an error or a log
// line: valid UTF-8, no control characters, at most 200 characters.
func SanitizeLog(s string) string { return plain(s, 200) }

func isHTML(ct string) bool {
	ct = strings.ToLower(strings.TrimSpace(ct))
	return strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml+xml")
}

// linkTag and attr are compiled on first use: only a fetch of an HTML
// page needs them, and every CGI process would pay for them at start-up.
var (
	linkTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<link\b[^>]*>`) })
	attr    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?is)\b(rel|type|href)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)`)
	})
)

// alternateLink finds <link rel="alternate" type="application/activity+json"
// href="…"> in an HTML page, resolved against base.
func alternateLink(page []byte, base string) string {
	if i := bytes.Index(bytes.ToLower(page), []byte("</head>")); i >= 0 {
		page = page[:i]
	}
	for _, tag := range linkTag().FindAll(page, 100) {
		var rel, typ, href string
		for _, m := range attr().FindAllSubmatch(tag, -1) {
			v := strings.Trim(string(m[2]), `"'`)
			switch strings.ToLower(string(m[1])) {
			case "rel":
				rel = strings.ToLower(v)
			case "type":
				typ = v
			case "href":
				href = strings.ReplaceAll(v, "&amp;", "&")
			}
		}
		if rel == "alternate" && activitypub.IsActivityContentType(typ) && href != "" {
			b, err := url.Parse(base)
			if err != nil {
				return ""
			}
			h, err := b.Parse(href)
			if err != nil {
				return ""
			}
			return h.String()
		}
	}
	return ""
}

// remoteError names the host and the reason of a failed fetch, as
// EUnavailable unless the failure is already in murlog's vocabulary.
func remoteError(uri string, err error) error {
	var se *outbound.StatusError
	if errors.As(err, &se) {
		return &murlog.Error{Code: murlog.EUnavailable, Message: fmt.Sprintf("%s answered %d", activitypub.HostOf(uri), se.Status), Err: err}
	}
	if c := murlog.ErrorCode(err); c == murlog.EUnavailable || c == murlog.EInternal {
		return &murlog.Error{Code: murlog.EUnavailable, Message: fmt.Sprintf("%s is unreachable: %s", hostOrURL(uri), murlog.AsError(err).Message), Err: err}
	}
	return err
}

func unavailable(uri, reason string) error {
	return murlog.Errorf(murlog.EUnavailable, "%s: %s", hostOrURL(uri), reason)
}

func hostOrURL(uri string) string {
	if h := activitypub.HostOf(uri); h != "" {
		return h
	}
	return SanitizeLog(uri)
}
