// Package social is the federation's domain logic: the follow state
// machines both ways, likes and boosts, blocks, received posts and what
// they notify, the home timeline, pins and pruning. It knows no HTTP and
// no JSON-LD: the inbox processing, the API and the delivery jobs hand it
// decoded values and ids. Every change and the delivery jobs it causes
// (package delivery's constructors) commit in one transaction.
//
// Idempotence: an inbound activity may arrive twice (retries, several
// shared inboxes), so repeating one is a no-op, never a second row or
// notification. Outbound actions repeated by the owner are idempotent too
// (liking a liked post changes nothing), except Follow, which answers
// EConflict so the API can say "already following".
package social

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// Service is the social service.
type Service struct {
	store store.Store
	site  murlog.Site
}

// New returns a Service for the local site.
func New(st store.Store, site murlog.Site) *Service { return &Service{store: st, site: site} }

// Page sizes.
const (
	DefaultPage = 20
	MaxPage     = 100
)

func limit(n int) int {
	switch {
	case n <= 0:
		return DefaultPage
	case n > MaxPage:
		return MaxPage
	}
	return n
}

// checkID validates a required id argument.
func checkID(field, id string) error {
	if !murlog.ValidID(id) {
		return murlog.Invalid(field, "is not a valid id")
	}
	return nil
}

// checkCursor validates an optional id cursor.
func checkCursor(field, id string) error {
	if id != "" && !murlog.ValidID(id) {
		return murlog.Invalid(field, "is not a valid id")
	}
	return nil
}

// checkIRI validates an activity or object id handed in by a caller.
func checkIRI(field, iri string) error {
	if !strings.HasPrefix(iri, "https://") && !strings.HasPrefix(iri, "http://") || len(iri) > 2048 {
		return murlog.Invalid(field, "is not an http(s) IRI")
	}
	return nil
}

// persona loads a persona; "" is the primary persona.
func persona(tx store.Tx, id string) (*murlog.Persona, error) {
	if id == "" {
		id2, err := tx.Personas().PrimaryID()
		if err != nil {
			return nil, err
		}
		id = id2
	} else if err := checkID("persona_id", id); err != nil {
		return nil, err
	}
	return tx.Personas().Get(id)
}

// activityID is a fresh id for an activity persona p sends.
func (s *Service) activityID(p *murlog.Persona) string {
	return s.site.ActivityURL(p.Username, murlog.NewID())
}

// answerNS namespaces the ids of Accepts and Rejects, which derive from
// the Follow they answer so that answering twice is one activity.
var answerNS = uuid.MustParse("a3c5e1f2-7b9d-4e08-8c6a-1d2f3e4b5a69")

func (s *Service) answerID(p *murlog.Persona, kind, followURI string) string {
	return s.site.ActivityURL(p.Username, uuid.NewSHA1(answerNS, []byte(kind+"\n"+followURI)).String())
}

// localPersona returns the persona whose actor id is iri, or nil when iri
// is not a local actor.
func (s *Service) localPersona(tx store.Tx, iri string) (*murlog.Persona, error) {
	prefix := s.site.ActorURL("")
	if !strings.HasPrefix(iri, prefix) {
		return nil, nil
	}
	name := iri[len(prefix):]
	if name == "" || strings.ContainsAny(name, "/#?") {
		return nil, nil
	}
	p, err := tx.Personas().GetByUsername(name)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil, nil
	}
	return p, err
}

// localPost returns the local post whose id IRI is iri (Site.PostURL), or
// nil when iri is not one.
func (s *Service) localPost(tx store.Tx, iri string) (*murlog.Post, error) {
	prefix := s.site.ActorURL("")
	if iri == "" || !strings.HasPrefix(iri, prefix) {
		return nil, nil
	}
	name, id, ok := strings.Cut(iri[len(prefix):], "/")
	if !ok || !murlog.ValidID(id) {
		return nil, nil
	}
	p, err := tx.Posts().Get(id)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	owner, err := tx.Personas().Get(p.PersonaID)
	if err != nil {
		return nil, err
	}
	// Drafts and scheduled posts do not exist for the fediverse.
	if !strings.EqualFold(owner.Username, name) || p.PublishedAt == nil || p.PublishedAt.After(tx.Now()) {
		return nil, nil
	}
	return p, nil
}

// refused reports whether persona p must ignore actor a: p blocks it or
// its domain is blocked.
func refused(tx store.Tx, personaID string, a *murlog.RemoteActor) (bool, error) {
	if blocked, err := tx.DomainBlocks().Has(a.Domain); err != nil || blocked {
		return blocked, err
	}
	if personaID == "" {
		return false, nil
	}
	return murlog.Found(tx.Blocks().Get(personaID, a.ID))
}

func notify(tx store.Tx, personaID string, kind murlog.NotificationKind, actorID, postID, remotePostID string) error {
	return tx.Notifications().Create(&murlog.Notification{ID: murlog.NewID(), PersonaID: personaID, Kind: kind,
		ActorID: actorID, PostID: postID, RemotePostID: remotePostID, CreatedAt: tx.Now()})
}

// personaActor loads a persona ("" for the primary) and a remote actor.
func personaActor(tx store.Tx, personaID, actorID string) (*murlog.Persona, *murlog.RemoteActor, error) {
	p, err := persona(tx, personaID)
	if err != nil {
		return nil, nil, err
	}
	a, err := actor(tx, actorID)
	if err != nil {
		return nil, nil, err
	}
	return p, a, nil
}

// actor loads a remote actor by a validated id.
func actor(tx store.Tx, id string) (*murlog.RemoteActor, error) {
	if err := checkID("actor_id", id); err != nil {
		return nil, err
	}
	return tx.RemoteActors().Get(id)
}

// view runs fn in a read transaction with the persona loaded ("" for the
// primary persona).
func view[T any](s *Service, ctx context.Context, personaID string, fn func(store.Tx, *murlog.Persona) (T, error)) (T, error) {
	return inTx(ctx, s.store.View, personaID, fn)
}

// update is view in a write transaction.
func update[T any](s *Service, ctx context.Context, personaID string, fn func(store.Tx, *murlog.Persona) (T, error)) (T, error) {
	return inTx(ctx, s.store.Update, personaID, fn)
}

func inTx[T any](ctx context.Context, run func(context.Context, func(store.Tx) error) error, personaID string, fn func(store.Tx, *murlog.Persona) (T, error)) (T, error) {
	var out T
	err := run(ctx, func(tx store.Tx) error {
		p, err := persona(tx, personaID)
		if err != nil {
			return err
		}
		out, err = fn(tx, p)
		return err
	})
	return out, err
}

// updatePersona is update for what returns only an error.
func (s *Service) updatePersona(ctx context.Context, personaID string, fn func(store.Tx, *murlog.Persona) error) error {
	_, err := update(s, ctx, personaID, func(tx store.Tx, p *murlog.Persona) (struct{}, error) { return struct{}{}, fn(tx, p) })
	return err
}
