// Package deliver runs the outbound jobs of package delivery: it
// registers every topic with its policy, builds each activity with the
// federation builders, POSTs it through the outbound client signed by
// the persona's key, and records the outcome (the circuit breaker, the
// post's Deliveries). The fan-outs make one job per distinct inbox.
//
// It is apart from package delivery, the vocabulary the services enqueue
// with, because it needs package federation, and federation's own
// processing (and its tests) use the services that enqueue: delivery
// itself depends on nothing above the queue.
package deliver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/worker"
)

// Poster sends one signed POST; *outbound.Client implements it (SSRF
// guard, limits, double-knock).
type Poster interface {
	Post(ctx context.Context, url, contentType string, body []byte, s outbound.Signer) (*outbound.Response, error)
}

// Signers gives a persona's outbound signer; *federation.Keys implements
// it and parses each private key once.
type Signers interface {
	Signer(p *murlog.Persona) (outbound.Signer, error)
}

// Deps are what the delivery jobs use. Store, Site, Out and Keys are
// required.
type Deps struct {
	Store   store.Store
	Site    murlog.Site
	Out     Poster
	Keys    Signers
	Domains *domains.Service // the circuit breaker; domains.New(Store) when nil
	Log     *slog.Logger     // discarded when nil
	// PageSize is the fan-out's page; fanout.DefaultPageSize when 0.
	PageSize int
}

// FanoutPolicy is the policy of the fan-out parents (deliver_post,
// deliver_delete, update_actor, send_announce, send_undo_announce). They
// touch only the local database — one short transaction per page, which
// resumes where it stopped — so they retry as quickly as post.publish
// does: DeliveryPolicy's first wait of 30 s would only hold back every
// delivery of the post behind a busy database.
var FanoutPolicy = queue.DefaultPolicy

// Register registers every topic of this package: the one-recipient jobs
// with queue.DeliveryPolicy, the fan-outs with FanoutPolicy.
func Register(r *worker.Registry, d Deps) {
	h := newHandlers(d)
	pol := queue.DeliveryPolicy
	worker.Register(r, delivery.TopicDeliverPost, FanoutPolicy, h.deliverPost)
	worker.Register(r, delivery.TopicDeliverDelete, FanoutPolicy, h.deliverDelete)
	worker.Register(r, delivery.TopicUpdateActor, FanoutPolicy, h.updateActor)
	worker.Register(r, delivery.TopicSendAnnounce, FanoutPolicy, h.sendAnnounce)
	worker.Register(r, delivery.TopicSendUndoAnnounce, FanoutPolicy, h.sendAnnounce)

	worker.Register(r, delivery.TopicDeliverNote, pol, h.deliverNote)
	worker.Register(r, delivery.TopicDeliverDeleteNote, pol, h.deliverDeleteNote)
	worker.Register(r, delivery.TopicDeliverUpdate, pol, h.deliverUpdate)
	worker.Register(r, delivery.TopicDeliverAnnounce, pol, h.deliverAnnounce)
	for _, t := range []string{delivery.TopicAcceptFollow, delivery.TopicRejectFollow, delivery.TopicSendFollow, delivery.TopicSendUndoFollow,
		delivery.TopicSendLike, delivery.TopicSendUndoLike, delivery.TopicSendBlock, delivery.TopicSendUndoBlock} {
		worker.Register(r, t, pol, h.activity(t))
	}
}

// handlers hold the jobs' dependencies and the cache of post documents.
type handlers struct {
	d        Deps
	log      *slog.Logger
	dom      *domains.Service
	settings *settings.Service // allow_quotes
	docs     docCache
}

func newHandlers(d Deps) *handlers {
	h := &handlers{d: d, log: d.Log, dom: d.Domains, settings: settings.New(d.Store)}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.dom == nil {
		h.dom = domains.New(d.Store)
	}
	h.docs.m = map[string][]byte{}
	return h
}

// docCache keeps the encoded activities of the posts being fanned out,
// so the thousand deliver_note jobs of one post marshal it once. Its key
// names the post's version (updated_at), so an edit is never served
// stale; it is bounded by dropping everything when full.
type docCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

const maxDocs = 64

func (c *docCache) get(key string, build func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	b, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := build()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= maxDocs {
		clear(c.m)
	}
	c.m[key] = b
	c.mu.Unlock()
	return b, nil
}

// record says where to write a post delivery's outcome: the post's id as
// the Deliveries key, "" for deliveries not tracked per post.
type record struct {
	key  string
	last bool // the job's last attempt: a failure now is final
}

// send POSTs body to inbox signed by p and records the outcome: the
// circuit breaker hears of every success and of every failure that says
// the server is unwell (no answer, 5xx, 408, 429), and a tracked post
// delivery gets its row set. An outbound.Permanent failure (410 Gone,
// 404, a refused private address, a bad URL…) ends the job at once.
func (h *handlers) send(ctx context.Context, p *murlog.Persona, inbox string, body []byte, rec record) error {
	s, err := h.d.Keys.Signer(p)
	if err != nil {
		return err
	}
	_, err = h.d.Out.Post(ctx, inbox, activitypub.MediaType, body, s)
	domain, derr := domains.FromURL(inbox)
	switch {
	case derr != nil:
	case err == nil:
		if e := h.dom.Success(ctx, domain); e != nil {
			h.log.Warn("delivery: recording a success failed", "domain", domain, "err", e)
		}
	case unwell(err):
		if e := h.dom.Failure(ctx, domain, err); e != nil {
			h.log.Warn("delivery: recording a failure failed", "domain", domain, "err", e)
		}
	}
	if rec.key != "" {
		state, msg := murlog.DeliveryDelivered, ""
		switch {
		case err == nil:
		case rec.last || outbound.Permanent(err):
			state, msg = murlog.DeliveryFailed, err.Error()
		default:
			// It will be tried again: still pending, with why the last
			// try failed, so the owner sees both.
			state, msg = murlog.DeliveryPending, err.Error()
		}
		if e := h.d.Store.Update(ctx, func(tx store.Tx) error {
			return tx.Deliveries().Set(rec.key, inbox, state, msg, tx.Now())
		}); e != nil && err == nil {
			// Delivered but not recorded: the row stays pending. Not worth
			// a second POST to the remote.
			h.log.Warn("delivery: recording a delivery failed", "key", rec.key, "inbox", inbox, "err", e)
		}
	}
	if err == nil {
		return nil
	}
	err = fmt.Errorf("deliver to %s: %w", inbox, err)
	if outbound.Permanent(err) {
		return queue.Permanent(err)
	}
	var se *outbound.StatusError
	if errors.As(err, &se) && se.RetryAfter > 0 {
		// A 429 or 503 that says when to come back is taken at its word
		// (when that is later than the backoff would wait).
		return queue.RetryAfter(err, se.RetryAfter)
	}
	return err
}

// unwell reports whether a failed delivery says the remote server is
// down or overloaded, which is what the circuit breaker counts; a 4xx
// answer comes from a live server refusing one request.
func unwell(err error) bool {
	var se *outbound.StatusError
	if errors.As(err, &se) {
		return se.Status >= 500 || se.Status == http.StatusRequestTimeout || se.Status == http.StatusTooManyRequests
	}
	return !outbound.Permanent(err)
}

// persona reads a persona; a persona that no longer exists ends the job.
func persona(tx store.Tx, id string) (*murlog.Persona, error) {
	if !murlog.ValidID(id) {
		return nil, queue.Permanent(fmt.Errorf("persona_id %q is not a valid id", id))
	}
	p, err := tx.Personas().Get(id)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil, errGone
	}
	return p, err
}

// errGone ends a job whose subject is gone: it has nothing left to do.
var errGone = errors.New("delivery: the subject is gone")

// view runs fn in a read transaction.
func (h *handlers) view(ctx context.Context, fn func(tx store.Tx) error) error {
	return h.d.Store.View(ctx, fn)
}

// done maps errGone to success.
func done(err error) error {
	if errors.Is(err, errGone) {
		return nil
	}
	return err
}
