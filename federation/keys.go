package federation

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"github.com/murlog/murlog/internal/lru"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/store"
)

// The Verifier's defaults.
const (
	// DefaultBlockTTL is how long the block lists are used from memory
	// before they are read again (InvalidateBlocks drops them at once).
	DefaultBlockTTL = 5 * time.Second
	// DefaultKeyCache is how many remote keys are kept parsed in memory.
	DefaultKeyCache = 10_000
	// keyTTL bounds how long a cached key is used without looking at the
	// store again, where the inbox processing records an actor's Update.
	keyTTL = time.Hour
	// refetchEvery is the least time between two fetches of one actor
	// for a failed verification. A rotated key is found at the first
	// failure after that (the sender retries a refused delivery later),
	// while forged signatures naming a real key cost at most one fetch
	// per key in that time. Mastodon also holds off for 5 minutes, per
	// client address, after a failed key refresh.
	refetchEvery = 5 * time.Minute
	// failedFor is how long a key that could not be fetched is not tried
	// again.
	failedFor = time.Minute
)

// VerifierDeps are what a Verifier needs; Store and Resolver are
// required.
type VerifierDeps struct {
	Site      murlog.Site
	Store     store.Store
	Resolver  *Resolver
	Log       *slog.Logger
	Now       func() time.Time
	BlockTTL  time.Duration // DefaultBlockTTL when 0
	CacheSize int           // DefaultKeyCache when 0
}

// Verifier checks inbound HTTP signatures: cheap checks first (parse,
// blocks), then the key from memory, the store or a fetch of its actor,
// refetched once when the signature does not verify (a key rotation).
type Verifier struct {
	d VerifierDeps

	keys   *lru.Cache[string, *cachedKey]
	blocks atomic.Pointer[blockSet]
	bmu    sync.Mutex // one reload of the block lists at a time

	fmu      sync.Mutex
	inflight map[string]*fetchCall // by keyId
	failed   map[string]time.Time  // keyId → when its fetch failed
}

// NewVerifier returns a Verifier.
func NewVerifier(d VerifierDeps) *Verifier {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.BlockTTL <= 0 {
		d.BlockTTL = DefaultBlockTTL
	}
	if d.CacheSize <= 0 {
		d.CacheSize = DefaultKeyCache
	}
	return &Verifier{d: d, keys: lru.New[string, *cachedKey](d.CacheSize),
		inflight: map[string]*fetchCall{}, failed: map[string]time.Time{}}
}

// refusal is a refused signature: a client-safe message and the reason,
// which may carry remote input, for the log.
func refusal(code murlog.Code, reason string, err error) error {
	msg := "the request's signature is invalid"
	if code == murlog.EForbidden {
		msg = "requests from this server or actor are refused"
	}
	if err == nil {
		err = errors.New(reason)
	} else {
		err = fmt.Errorf("%s: %w", reason, err)
	}
	return &murlog.Error{Code: code, Message: msg, Err: err}
}

// Verify checks the signature of r (body is nil for a GET) and returns the
// key's owner. Refusals are EUnauthorized, or EForbidden for a blocked
// signing domain; a key that cannot be fetched is EUnauthorized too.
func (v *Verifier) Verify(ctx context.Context, r *http.Request, body []byte) (*murlog.RemoteActor, error) {
	sig, err := v.Parse(r, body != nil)
	if err != nil {
		return nil, err
	}
	if blocked, err := v.DomainBlocked(ctx, activitypub.HostOf(sig.KeyID)); err != nil {
		return nil, err
	} else if blocked {
		return nil, refusal(murlog.EForbidden, "signing domain "+activitypub.HostOf(sig.KeyID)+" is blocked", nil)
	}
	if body != nil {
		if err := v.CheckDigest(r, body); err != nil {
			return nil, err
		}
	}
	return v.Check(ctx, sig)
}

// CheckDigest checks that the digest r's signature covers is body's:
// EUnauthorized when it is not.
func (v *Verifier) CheckDigest(r *http.Request, body []byte) error {
	if err := httpsig.VerifyDigest(r, body); err != nil {
		return refusal(murlog.EUnauthorized, "digest", err)
	}
	return nil
}

// Parse reads r's signature without crypto, the body or the database:
// required components signed, time in the window, keyId an http(s) URL.
func (v *Verifier) Parse(r *http.Request, hasBody bool) (*httpsig.Signature, error) {
	sig, err := httpsig.Parse(r, hasBody, httpsig.VerifyOptions{Now: v.d.Now(), Base: v.d.Site.Base()})
	if err != nil {
		return nil, refusal(murlog.EUnauthorized, "signature", err)
	}
	if activitypub.HostOf(sig.KeyID) == "" || len(sig.KeyID) > activitypub.MaxIRI {
		return nil, refusal(murlog.EUnauthorized, "keyId "+SanitizeLog(sig.KeyID)+" is not an http(s) URL", nil)
	}
	return sig, nil
}

// Check verifies a parsed signature with its key and returns the key's
// owner. The body's digest must have been checked already.
func (v *Verifier) Check(ctx context.Context, sig *httpsig.Signature) (*murlog.RemoteActor, error) {
	k, fetched, err := v.key(ctx, sig.KeyID, false)
	if err != nil {
		return nil, err
	}
	if err := sig.Verify(k.pub); err == nil {
		return k.actor, nil
	} else if fetched || v.d.Now().Sub(k.actor.FetchedAt) < refetchEvery {
		return nil, refusal(murlog.EUnauthorized, "signature by "+SanitizeLog(sig.KeyID), err)
	}
	// The actor may have rotated its key since we fetched it.
	if k, _, err = v.key(ctx, sig.KeyID, true); err != nil {
		return nil, err
	}
	if err := sig.Verify(k.pub); err != nil {
		return nil, refusal(murlog.EUnauthorized, "signature by "+SanitizeLog(sig.KeyID)+" (key refetched)", err)
	}
	return k.actor, nil
}

// KnownActor returns the actor owning keyID when murlog already has it
// (the key cache, else the store), nil otherwise. It fetches nothing, so
// the inbox can drop a blocked actor's activity before any key fetch.
func (v *Verifier) KnownActor(ctx context.Context, keyID string) *murlog.RemoteActor {
	if k, _ := v.keys.Get(keyID); k != nil && v.d.Now().Sub(k.at) < keyTTL {
		return k.actor
	}
	var found *murlog.RemoteActor
	v.d.Store.View(ctx, func(tx store.Tx) error {
		for _, id := range keyForms(keyID) {
			if a, err := tx.RemoteActors().GetByKeyID(id); err == nil {
				found = a
				return nil
			}
		}
		return nil
	})
	return found
}

// Requester implements the Requester port of the federation handler: the
// verified signer of a GET (authorized fetch, followers-only posts).
func (v *Verifier) Requester(r *http.Request) (string, error) {
	a, err := v.Verify(r.Context(), r, nil)
	if err != nil {
		return "", err
	}
	return a.URI, nil
}

// cachedKey is a parsed public key and the actor that owns it.
type cachedKey struct {
	pub   crypto.PublicKey
	actor *murlog.RemoteActor
	at    time.Time // when it entered the cache
}

// key returns the key keyID from memory, the store or (force, or neither
// has it) by fetching its actor. fetched says it was fetched just now.
func (v *Verifier) key(ctx context.Context, keyID string, force bool) (*cachedKey, bool, error) {
	now := v.d.Now()
	if !force {
		if k, _ := v.keys.Get(keyID); k != nil && now.Sub(k.at) < keyTTL {
			return k, false, nil
		}
		var a *murlog.RemoteActor
		err := v.d.Store.View(ctx, func(tx store.Tx) error {
			var err error
			for _, id := range keyForms(keyID) {
				if a, err = tx.RemoteActors().GetByKeyID(id); murlog.ErrorCode(err) != murlog.ENotFound {
					return err
				}
			}
			return err
		})
		switch {
		case err == nil:
			if k, err := v.remember(keyID, a); err == nil {
				return k, false, nil
			}
		case murlog.ErrorCode(err) != murlog.ENotFound:
			return nil, false, err
		}
	}
	k, err := v.fetch(ctx, keyID)
	return k, err == nil, err
}

// fetch fetches the actor owning keyID, once for concurrent callers, and
// not again for failedFor after a failure.
func (v *Verifier) fetch(ctx context.Context, keyID string) (*cachedKey, error) {
	v.fmu.Lock()
	if at, ok := v.failed[keyID]; ok && v.d.Now().Sub(at) < failedFor {
		v.fmu.Unlock()
		return nil, refusal(murlog.EUnauthorized, "key "+SanitizeLog(keyID)+" failed to fetch recently", nil)
	}
	if c, ok := v.inflight[keyID]; ok {
		v.fmu.Unlock()
		<-c.done
		return c.k, c.err
	}
	c := &fetchCall{done: make(chan struct{})}
	v.inflight[keyID] = c
	v.fmu.Unlock()

	c.k, c.err = v.fetchKey(ctx, keyID)
	v.fmu.Lock()
	delete(v.inflight, keyID)
	if c.err != nil {
		if len(v.failed) >= v.d.CacheSize {
			clear(v.failed)
		}
		v.failed[keyID] = v.d.Now()
	}
	v.fmu.Unlock()
	close(c.done)
	return c.k, c.err
}

type fetchCall struct {
	done chan struct{}
	k    *cachedKey
	err  error
}

func (v *Verifier) fetchKey(ctx context.Context, keyID string) (*cachedKey, error) {
	a, err := v.d.Resolver.Refresh(ctx, httpsig.KeyOwnerGuess(keyID))
	if err != nil {
		return nil, refusal(murlog.EUnauthorized, "fetching key "+SanitizeLog(keyID), err)
	}
	if !activitypub.SameOrigin(a.URI, keyID) {
		return nil, refusal(murlog.EUnauthorized, "key "+SanitizeLog(keyID)+" is not on its actor's host", nil)
	}
	return v.remember(keyID, a)
}

// remember parses the key keyID of actor a and caches it.
func (v *Verifier) remember(keyID string, a *murlog.RemoteActor) (*cachedKey, error) {
	var pub crypto.PublicKey
	var err error
	switch want := keyForm(keyID); {
	case a.Ed25519Key != "" && keyForm(a.Ed25519KeyID) == want:
		pub, err = httpsig.ParseMultikey(a.Ed25519Key)
	case a.PublicKeyPEM != "" && (keyForm(a.KeyID) == want || keyID == a.URI):
		pub, err = httpsig.ParsePublicKeyPEM(a.PublicKeyPEM)
	default:
		return nil, refusal(murlog.EUnauthorized, "actor "+SanitizeLog(a.URI)+" does not list key "+SanitizeLog(keyID), nil)
	}
	if err != nil {
		return nil, refusal(murlog.EUnauthorized, "key "+SanitizeLog(keyID), err)
	}
	k := &cachedKey{pub: pub, actor: a, at: v.d.Now()}
	v.keys.Put(keyID, k)
	return k, nil
}

// keyForm maps the "#main-key" and "/main-key" spellings of a key id to
// one form, as servers disagree on which they publish and sign with.
func keyForm(id string) string {
	if i := strings.LastIndexByte(id, '#'); i >= 0 {
		return id[:i] + "/" + id[i+1:]
	}
	return id
}

// keyForms is keyID and its other spelling, for looking it up.
func keyForms(keyID string) []string {
	if i := strings.LastIndexByte(keyID, '#'); i >= 0 {
		return []string{keyID, keyID[:i] + "/" + keyID[i+1:]}
	}
	if i := strings.LastIndexByte(keyID, '/'); i >= 0 {
		return []string{keyID, keyID[:i] + "#" + keyID[i+1:]}
	}
	return []string{keyID}
}

// blockSet is the block lists in memory: blocked domains, and which
// persona blocks which actor (local ids).
type blockSet struct {
	at      time.Time
	domains map[string]bool
	pairs   map[[2]string]bool // {persona id, actor id}
	actors  map[string]bool    // blocked by some persona
}

// InvalidateBlocks drops the block lists from memory: the social service
// calls it after a block or domain block changes.
func (v *Verifier) InvalidateBlocks() { v.blocks.Store(nil) }

func (v *Verifier) blockSet(ctx context.Context) (*blockSet, error) {
	if b := v.blocks.Load(); b != nil && v.d.Now().Sub(b.at) < v.d.BlockTTL {
		return b, nil
	}
	v.bmu.Lock()
	defer v.bmu.Unlock()
	if b := v.blocks.Load(); b != nil && v.d.Now().Sub(b.at) < v.d.BlockTTL {
		return b, nil
	}
	b := &blockSet{at: v.d.Now(), domains: map[string]bool{}, pairs: map[[2]string]bool{}, actors: map[string]bool{}}
	err := v.d.Store.View(ctx, func(tx store.Tx) error {
		ds, err := tx.DomainBlocks().List()
		if err != nil {
			return err
		}
		for _, d := range ds {
			b.domains[strings.ToLower(d.Domain)] = true
		}
		ps, err := tx.Personas().List()
		if err != nil {
			return err
		}
		for _, p := range ps {
			bs, err := tx.Blocks().List(p.ID)
			if err != nil {
				return err
			}
			for _, x := range bs {
				b.pairs[[2]string{p.ID, x.ActorID}] = true
				b.actors[x.ActorID] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("federation: read block lists: %w", err)
	}
	v.blocks.Store(b)
	return b, nil
}

// DomainBlocked reports whether host (host[:port]) is blocked: the host
// itself, the host without its port, or a parent domain, as a Mastodon
// domain block covers its subdomains.
func (v *Verifier) DomainBlocked(ctx context.Context, host string) (bool, error) {
	b, err := v.blockSet(ctx)
	if err != nil || len(b.domains) == 0 {
		return false, err
	}
	host = strings.ToLower(host)
	if b.domains[host] {
		return true, nil
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		host = host[:i]
	}
	for h := host; h != ""; {
		if b.domains[h] {
			return true, nil
		}
		_, rest, ok := strings.Cut(h, ".")
		if !ok {
			break
		}
		h = rest
	}
	return false, nil
}

// ActorBlocked reports whether the persona (any persona for "", the
// shared inbox) blocks the remote actor with local id actorID.
func (v *Verifier) ActorBlocked(ctx context.Context, personaID, actorID string) (bool, error) {
	b, err := v.blockSet(ctx)
	if err != nil {
		return false, err
	}
	if personaID == "" {
		return b.actors[actorID], nil
	}
	return b.pairs[[2]string{personaID, actorID}], nil
}
