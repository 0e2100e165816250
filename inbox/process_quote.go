package inbox

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/store"
)

// FEP-044f quote requests. A server about to publish a quote of a local
// post asks first with a QuoteRequest (object: our post, instrument: the
// quoting post). The answer follows the policy the post declares
// (PostObject's interactionPolicy.canQuote: while the owner's allow_quotes
// setting is on, public and unlisted posts are quotable by anyone, others
// by nobody; with it off, nothing is): an Accept whose result is a
// QuoteAuthorization, or a Reject. Answers go out as the delivery jobs
// accept_quote and reject_quote registered here.

// Quote answer topics.
const (
	TopicAcceptQuote = "accept_quote"
	TopicRejectQuote = "reject_quote"
)

// QuoteAnswerPayload is accept_quote and reject_quote: the answer (ID) of
// persona PersonaID to the QuoteRequest Request of Actor, who asked to
// quote our post Quoted in their post Quoting; sent to Inbox.
type QuoteAnswerPayload struct {
	PersonaID string `json:"persona_id"`
	ID        string `json:"id"`
	Request   string `json:"request"`
	Actor     string `json:"actor"`
	Inbox     string `json:"inbox"`
	Quoted    string `json:"quoted"`
	Quoting   string `json:"quoting"`
}

// quoteRequest answers a QuoteRequest of a local post: Accept when the
// owner allows quotes, the post is published and public or unlisted, the
// quoting post is on the requester's server and the requester is not
// blocked; else Reject.
func (p *Processor) quoteRequest(ctx context.Context, a *activity) error {
	quoted := a.Object.Object.First().ID
	post, owner, err := p.localPost(ctx, quoted)
	if err != nil {
		return err
	}
	if post == nil {
		return p.ignore(ctx, a, "asks to quote no local post")
	}
	// activitypub does not decode instrument; the body is capped and
	// already valid JSON, so reading one more field is cheap.
	var w struct {
		Instrument activitypub.Ref `json:"instrument"`
	}
	if err := json.Unmarshal(a.body, &w); err != nil {
		return murlog.Invalid("instrument", "does not decode")
	}
	quoting := w.Instrument.ID
	if quoting == "" {
		return murlog.Invalid("instrument", "missing: which post quotes")
	}
	site, err := settings.New(p.d.Store).Get(ctx)
	if err != nil {
		return err
	}
	allowed := site.AllowQuotes && activitypub.SameOrigin(quoting, a.actor.URI)
	topic := TopicAcceptQuote
	return p.d.Store.Update(ctx, func(tx store.Tx) error {
		if allowed = allowed && post.PublicAt(tx.Now()); allowed {
			blocked, err := tx.DomainBlocks().Has(a.actor.Domain)
			if err != nil {
				return err
			}
			if !blocked {
				if _, err := tx.Blocks().Get(owner.ID, a.actor.ID); err == nil {
					blocked = true
				} else if !ignorable(err) {
					return err
				}
			}
			allowed = !blocked
		}
		if !allowed {
			topic = TopicRejectQuote
		} else if err := tx.QuoteAuthorizations().Put(&store.QuoteAuthorization{ID: federation.QuoteKey("authorization", quoting),
			PersonaID: owner.ID, PostID: post.ID, Quoting: quoting, CreatedAt: tx.Now()}); err != nil {
			// Kept so that its id answers: a server checks the consent by
			// fetching it.
			return err
		}
		pl := QuoteAnswerPayload{PersonaID: owner.ID, ID: federation.QuoteID(p.d.Site, owner.Username, topic, a.ID), Request: a.ID,
			Actor: a.actor.URI, Inbox: a.actor.Inbox, Quoted: quoted, Quoting: quoting}
		b, err := json.Marshal(pl)
		if err != nil {
			return err
		}
		j := queue.NewJob(topic, b)
		j.ID = federation.QuoteKey(topic, a.ID)
		return tx.Jobs().Enqueue(j)
	})
}

// quoteAnswer is the Accept (accept true) or Reject of a QuoteRequest by
// persona username. The Accept's result is the QuoteAuthorization,
// embedded with its id: Mastodon reads the id and keeps it as the
// quote's approval.
func quoteAnswer(site murlog.Site, username string, pl QuoteAnswerPayload, accept bool) *activitypub.QuoteDocument {
	me := site.ActorURL(username)
	d := &activitypub.QuoteDocument{Context: json.RawMessage(activitypub.QuoteContext), ID: pl.ID, Type: "Reject", Actor: me, To: []string{pl.Actor},
		Object: &activitypub.QuoteDocument{ID: pl.Request, Type: "QuoteRequest", Actor: pl.Actor, Object: pl.Quoted, Instrument: pl.Quoting}}
	if accept {
		d.Type = "Accept"
		d.Result = &activitypub.QuoteDocument{ID: federation.QuoteAuthorizationID(site, username, pl.Quoting), Type: "QuoteAuthorization",
			AttributedTo: me, InteractingObject: pl.Quoting, InteractionTarget: pl.Quoted}
	}
	return d
}

// answerQuote sends an accept_quote or reject_quote.
func (p *Processor) answerQuote(ctx context.Context, pl QuoteAnswerPayload, j *queue.Job) error {
	var pe *murlog.Persona
	err := p.d.Store.View(ctx, func(tx store.Tx) (err error) { pe, err = tx.Personas().Get(pl.PersonaID); return err })
	if ignorable(err) {
		return nil // the persona is gone: nobody answers
	}
	if err != nil {
		return err
	}
	body, err := activitypub.Marshal(quoteAnswer(p.d.Site, pe.Username, pl, j.Topic == TopicAcceptQuote))
	if err != nil {
		return queue.Permanent(err)
	}
	s, err := p.d.Keys.Signer(pe)
	if err != nil {
		return queue.Permanent(fmt.Errorf("signer of %s: %w", pe.Username, err))
	}
	if _, err := p.d.Out.Post(ctx, pl.Inbox, activitypub.MediaType, body, s); err != nil {
		if outbound.Permanent(err) {
			return queue.Permanent(err)
		}
		return err
	}
	return nil
}
