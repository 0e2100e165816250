package inbox

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/worker"
)

// The inbox job: the inbox endpoint (inbox.go) verifies an activity,
// stores its body as an inbox item and enqueues TopicProcess naming
// the item; Process turns the activity into changes through the social
// service. The sender is verified and cached before the job runs, so the
// job trusts the item's actor and checks everything else: who owns what
// is updated or deleted, what an Announce points at, what a Move claims.

// Items is the inbox items the endpoint stored: the body of an accepted
// activity, who signed it and which persona's inbox received it ("" for
// the shared inbox). Done clears the body once processed.
type Items interface {
	Get(ctx context.Context, id string) (actorURI, personaID string, body []byte, err error)
	Done(ctx context.Context, id string) error
}

// StoreItems is Items over the store's inbox_items, where the inbox
// endpoint keeps the signer by its local id.
type StoreItems struct{ Store store.Store }

// Get returns an item not yet done; a done or pruned one is ENotFound.
func (s StoreItems) Get(ctx context.Context, id string) (actorURI, personaID string, body []byte, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		it, err := tx.InboxItems().Get(id)
		if err != nil {
			return err
		}
		if it.Done {
			return murlog.NotFound("inbox item")
		}
		a, err := tx.RemoteActors().Get(it.ActorID)
		if err != nil {
			return err
		}
		actorURI, personaID, body = a.URI, it.PersonaID, it.Body
		return nil
	})
	return actorURI, personaID, body, err
}

// Done clears the item's body.
func (s StoreItems) Done(ctx context.Context, id string) error {
	return s.Store.Update(ctx, func(tx store.Tx) error { return tx.InboxItems().Done(id) })
}

// Fetcher makes the signed GETs processing needs: an Announce's original,
// a quoted post, a Move's target. Resolve returns the cached actor, or
// fetches, sanitizes and stores it.
type Fetcher interface {
	FetchObject(ctx context.Context, uri string) (*activitypub.Object, error)
	Resolve(ctx context.Context, uri string) (*murlog.RemoteActor, error)
}

// Social is what processing asks of the social service: the methods of
// *social.Service that record what a remote actor did.
type Social interface {
	Requested(ctx context.Context, personaID, actorID, followURI string) (*murlog.Follower, error)
	Undone(ctx context.Context, actorID, followURI string) error
	Accepted(ctx context.Context, actorID string, ref social.FollowRef) error
	Rejected(ctx context.Context, actorID string, ref social.FollowRef) error
	Store(ctx context.Context, p *murlog.RemotePost) error
	Update(ctx context.Context, actorID string, p *murlog.RemotePost) error
	Delete(ctx context.Context, actorID, uri string) error
	DeleteActor(ctx context.Context, actorID string) error
	Liked(ctx context.Context, actorID, postID, activityURI, reaction string) error
	Unliked(ctx context.Context, actorID, activityURI, postID string) error
	Announced(ctx context.Context, actorID, postID, activityURI string) error
	Unannounced(ctx context.Context, actorID, activityURI, postID string) error
	Boosted(ctx context.Context, actorID, announceURI, remotePostID string) error
	Unboosted(ctx context.Context, actorID, announceURI string) error
	BlockedBy(ctx context.Context, actorID, personaID, activityURI string) error
	UnblockedBy(ctx context.Context, actorID, personaID string) error
	Moved(ctx context.Context, actorID, target string) error
}

var _ Social = (*social.Service)(nil)

// Poster sends a signed POST; *outbound.Client is one.
type Poster interface {
	Post(ctx context.Context, url, contentType string, body []byte, s outbound.Signer) (*outbound.Response, error)
}

// Signers gives a persona's outbound signer (*federation.Keys).
type Signers interface {
	Signer(p *murlog.Persona) (outbound.Signer, error)
}

// ProcessDeps is what the inbox job needs.
type ProcessDeps struct {
	Site    murlog.Site
	Store   store.Store
	Social  Social
	Items   Items
	Fetcher Fetcher
	// Out and Keys send the answers to QuoteRequests (accept_quote,
	// reject_quote).
	Out  Poster
	Keys Signers
	Log  *slog.Logger
	// Now is the clock for times a remote document leaves out; time.Now
	// when nil.
	Now func() time.Time
}

// Policy retries inbox.process. Processing is local work — a busy
// database clears in seconds — except the signed GETs of an Announce's
// original, a quoted post or a Move's target, which wait on a remote
// server: 5 s → 20 s → 80 s → 320 s, five runs over about seven minutes,
// rides out a restart without keeping a failing item around for long.
// Refusals (malformed, forbidden) are queue.Permanent and never retried.
var Policy = queue.Policy{MaxAttempts: 5, Timeout: queue.DefaultTimeout, Backoff: func(attempt int) time.Duration {
	d := 5 * time.Second
	for i := 1; i < attempt; i++ {
		d *= 4
	}
	return d
}, Concurrency: Concurrency}

// Concurrency is how many inbox.process jobs one worker runs at once.
// Each is a few short write transactions on the database's one writer,
// so more at once only queue for it; two keep the writer busy while the
// rest of the machine answers requests and delivers (a boosted post
// brings a burst of activities, which the queue absorbs).
const Concurrency = 1

// RegisterProcess registers inbox.process (Policy) and the
// answers to quote requests, accept_quote and reject_quote (deliveries:
// queue.DeliveryPolicy).
func RegisterProcess(r *worker.Registry, d ProcessDeps) {
	p := NewProcessor(d)
	worker.Register(r, TopicProcess, Policy, func(ctx context.Context, j Job, _ *queue.Job) error {
		return p.Process(ctx, j.Item)
	})
	worker.Register(r, TopicAcceptQuote, queue.DeliveryPolicy, p.answerQuote)
	worker.Register(r, TopicRejectQuote, queue.DeliveryPolicy, p.answerQuote)
}

// Processor processes inbox items.
type Processor struct {
	d   ProcessDeps
	log *slog.Logger
}

// NewProcessor returns a Processor over d.
func NewProcessor(d ProcessDeps) *Processor {
	if d.Now == nil {
		d.Now = time.Now
	}
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Processor{d: d, log: log}
}

// Process handles inbox item id. A refused activity (malformed, not
// allowed) is marked done and returned as queue.Permanent; a temporary
// failure (a remote fetch, the database) is returned as is, the body kept
// for the retry. Processing an item again changes nothing.
func (p *Processor) Process(ctx context.Context, id string) error {
	actorURI, personaID, body, err := p.d.Items.Get(ctx, id)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		p.log.DebugContext(ctx, "inbox item gone; nothing to process", "item", id)
		return nil
	}
	if err != nil {
		return fmt.Errorf("inbox item %s: %w", id, err)
	}
	err = p.process(ctx, actorURI, personaID, body)
	if err != nil && !permanent(err) {
		return err
	}
	if derr := p.d.Items.Done(ctx, id); derr != nil {
		return fmt.Errorf("inbox item %s done: %w", id, derr)
	}
	if err != nil {
		p.log.WarnContext(ctx, "inbox activity refused", "item", id, "actor", actorURI, "reason", err.Error())
		return queue.Permanent(err)
	}
	return nil
}

// permanent reports whether err will be the same on every retry: a
// refusal, bad input, or a remote answer that will not change (404, 410).
func permanent(err error) bool {
	switch murlog.ErrorCode(err) {
	case murlog.EInvalid, murlog.EForbidden, murlog.ENotFound, murlog.EConflict, murlog.EUnauthorized:
		return true
	}
	return outbound.Permanent(err)
}

// activity is one activity being processed.
type activity struct {
	*activitypub.Object
	actor     *murlog.RemoteActor // the verified sender
	personaID string              // the persona whose inbox received it, "" for the shared inbox
	body      []byte
}

// refuse is a permanent refusal naming its reason.
func refuse(format string, args ...any) error {
	return murlog.Errorf(murlog.EForbidden, format, args...)
}

// ignore acknowledges an activity that changes nothing here.
func (p *Processor) ignore(ctx context.Context, a *activity, reason string) error {
	p.log.DebugContext(ctx, "inbox activity ignored", "type", a.Type, "id", a.ID, "actor", a.actor.URI, "reason", reason)
	return nil
}

func (p *Processor) process(ctx context.Context, actorURI, personaID string, body []byte) error {
	o, err := activitypub.Decode(body)
	if err != nil {
		return err
	}
	if o.Actor.ID != actorURI {
		return refuse("the activity's actor %s is not its signer %s", o.Actor.ID, actorURI)
	}
	actor, err := p.actor(ctx, actorURI)
	if err != nil {
		return err
	}
	a := &activity{Object: o, actor: actor, personaID: personaID, body: body}
	switch o.Type {
	case "Follow":
		return p.follow(ctx, a)
	case "Accept", "Reject":
		return p.answered(ctx, a)
	case "Undo":
		return p.undo(ctx, a)
	case "Create":
		return p.create(ctx, a)
	case "Update":
		return p.update(ctx, a)
	case "Delete":
		return p.delete(ctx, a)
	case "Like", "EmojiReact":
		return p.like(ctx, a)
	case "Announce":
		return p.announce(ctx, a)
	case "Block":
		return p.block(ctx, a)
	case "Move":
		return p.move(ctx, a)
	case "QuoteRequest":
		return p.quoteRequest(ctx, a)
	}
	return p.ignore(ctx, a, "type not handled")
}

// actor returns the cached actor uri, resolving it when it is not cached
// (the endpoint stores the signer, but the cache may have been pruned
// since).
func (p *Processor) actor(ctx context.Context, uri string) (*murlog.RemoteActor, error) {
	var a *murlog.RemoteActor
	err := p.d.Store.View(ctx, func(tx store.Tx) (err error) { a, err = tx.RemoteActors().GetByURI(uri); return err })
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return p.d.Fetcher.Resolve(ctx, uri)
	}
	return a, err
}

// localPersona returns the persona whose actor id is iri, or nil.
func (p *Processor) localPersona(ctx context.Context, iri string) (*murlog.Persona, error) {
	prefix := p.d.Site.ActorURL("")
	name, ok := strings.CutPrefix(iri, prefix)
	if !ok || name == "" || strings.ContainsAny(name, "/#?") {
		return nil, nil
	}
	var pe *murlog.Persona
	err := p.d.Store.View(ctx, func(tx store.Tx) (err error) { pe, err = tx.Personas().GetByUsername(name); return err })
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil, nil
	}
	return pe, err
}

// localPost returns the published local post whose id is iri
// (Site.PostURL), or nil.
func (p *Processor) localPost(ctx context.Context, iri string) (*murlog.Post, *murlog.Persona, error) {
	rest, ok := strings.CutPrefix(iri, p.d.Site.ActorURL(""))
	if !ok {
		return nil, nil, nil
	}
	name, id, ok := strings.Cut(rest, "/")
	if !ok || !murlog.ValidID(id) {
		return nil, nil, nil
	}
	var (
		post  *murlog.Post
		owner *murlog.Persona
		now   time.Time
	)
	err := p.d.Store.View(ctx, func(tx store.Tx) error {
		var err error
		if post, err = tx.Posts().Get(id); err != nil {
			return err
		}
		now = tx.Now()
		owner, err = tx.Personas().Get(post.PersonaID)
		return err
	})
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	// Drafts and scheduled posts do not exist for the fediverse.
	if !strings.EqualFold(owner.Username, name) || post.PublishedAt == nil || post.PublishedAt.After(now) {
		return nil, nil, nil
	}
	return post, owner, nil
}

// ignorable reports whether a social call's error means "nothing to do"
// (the thing is unknown here), which is acknowledged, not refused.
func ignorable(err error) bool { return murlog.ErrorCode(err) == murlog.ENotFound }

// object returns the activity's object: embedded when the sender is its
// origin, else fetched by a signed GET (never trusting a copy embedded by
// another server).
func (p *Processor) object(ctx context.Context, a *activity) (*activitypub.Object, error) {
	ref := a.Object.Object.First()
	if ref.ID == "" {
		return nil, murlog.Invalid("object", "missing")
	}
	if ref.Object != nil && ref.Object.Type != "" && activitypub.SameOrigin(ref.ID, a.actor.URI) {
		return ref.Object, nil
	}
	return p.fetch(ctx, ref.ID)
}

// fetch GETs uri and checks the answer is the object asked for.
func (p *Processor) fetch(ctx context.Context, uri string) (*activitypub.Object, error) {
	o, err := p.d.Fetcher.FetchObject(ctx, uri)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", uri, err)
	}
	if o.ID != uri && !activitypub.SameOrigin(o.ID, uri) {
		return nil, refuse("fetched %s but got %s from another server", uri, o.ID)
	}
	return o, nil
}
