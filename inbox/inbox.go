// Package inbox is what happens to an activity that arrives: the inbox
// endpoint (POST /inbox and POST /@name/inbox) checks it cheapest first,
// stores it with its inbox.process job in one group-committed transaction
// and answers 202; the job (Processor) turns it into changes through the
// social service. The answers to quote requests and the daily prune of
// old items are its jobs too.
//
// It builds on package federation — the personas' documents, the
// signature Verifier, the Resolver's signed fetches and sanitisers, the
// signers — through the small interfaces declared here, and calls social
// directly.
package inbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/federation"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/trace"
)

// TopicProcess is the job that processes one accepted inbox
// activity. The inbox endpoint enqueues it in the transaction that stores
// the activity's body (store.InboxItems), so an activity is processed
// exactly when its acceptance commits.
const TopicProcess = "inbox.process"

// Job is the payload of TopicProcess. A queue payload is at most
// queue.MaxPayload (64 KB) and an activity may be 1 MB, so the job names
// the stored item rather than carrying the body: the processor reads it
// with tx.InboxItems().Get(Item) and calls Done(Item) when finished.
type Job struct {
	Item string `json:"item"`
}

// ItemID is the id of the inbox item of an activity: a hash of the
// activity's id, so a second delivery of the activity finds the first.
func ItemID(activityID string) string {
	h := sha256.Sum256([]byte(activityID))
	return hex.EncodeToString(h[:16])
}

// The inbox's rate limits, per client address and per signing domain.
// Mastodon sends a post to one shared inbox per server; a busy server
// boosting a thread sends a few per second, and a relay more.
const (
	DefaultClientRate  = 100
	DefaultClientBurst = 400
	DefaultDomainRate  = 100
	DefaultDomainBurst = 400
)

// The inbox's limits by identity, taken once the signature verified: per
// signing actor, so that one noisy account cannot spend its server's
// whole allowance, and per verified signing domain, so that one server
// cannot spend the site's. Unlike the domain bucket before verification,
// which anyone can charge by claiming a keyId on a host, these count only
// what the host's own keys signed. An excess answers 503 with
// Retry-After, which senders retry: nothing is lost.
const (
	DefaultActorRate   = 25
	DefaultActorBurst  = 100
	DefaultSignerRate  = 100
	DefaultSignerBurst = 400
)

// forgeryPenalty is how many requests' worth of tokens a signature that
// fails to verify costs its client and its signing domain: a server whose
// key rotated loses a few deliveries' worth and retries later; a forger
// is held to a tenth of the rate.
const forgeryPenalty = 10

// Personas finds the persona of a "/@name/inbox" (*federation.Handler,
// from its in-memory documents): ENotFound when there is none.
type Personas interface {
	Persona(ctx context.Context, name string) (*murlog.Persona, error)
}

// Verifier is the signature checking the endpoint does in steps, cheap
// checks first (*federation.Verifier).
type Verifier interface {
	// Parse reads the signature without crypto, the body or the database.
	Parse(r *http.Request, hasBody bool) (*httpsig.Signature, error)
	DomainBlocked(ctx context.Context, host string) (bool, error)
	// KnownActor is the cached owner of keyID, nil when unknown; it
	// fetches nothing.
	KnownActor(ctx context.Context, keyID string) *murlog.RemoteActor
	ActorBlocked(ctx context.Context, personaID, actorID string) (bool, error)
	CheckDigest(r *http.Request, body []byte) error
	// Check verifies the signature with its key, fetching it if needed.
	Check(ctx context.Context, sig *httpsig.Signature) (*murlog.RemoteActor, error)
}

// Deps are what the inbox needs; Personas, Store and Verifier are
// required.
type Deps struct {
	Personas Personas
	Store    store.Store
	Verifier Verifier
	Log      *slog.Logger
	// TrustedProxies are the networks whose X-Forwarded-For names the
	// client (config trusted_proxy).
	TrustedProxies []netip.Prefix
	// OneShot writes each accepted activity in its own transaction (CGI:
	// one request per process, nothing to group).
	OneShot bool
	// ClientRate/Burst and DomainRate/Burst are the token buckets; the
	// Default… constants when 0.
	ClientRate, ClientBurst, DomainRate, DomainBurst float64
	// ActorRate/Burst and SignerRate/Burst are the limits by identity
	// after verification (per signing actor, per its domain); the
	// Default… constants when 0.
	ActorRate, ActorBurst, SignerRate, SignerBurst float64
	// Blocks, when set, is the persistent shield per address block
	// (CGI, where the buckets hold nothing across processes), taken after
	// the client bucket and before the signature is parsed. Its refusals
	// should be EUnavailable: senders retry a 503.
	Blocks *httpd.BlockShield
	// Identities, when set, counts the limits by identity in state every
	// process shares (CGI), per minute (httpd.BlockWindow) at 60 times
	// the rates; a resident server leaves it nil and its buckets hold.
	Identities httpd.BlockCounter
	// Now is the clock of the persistent limits; time.Now when nil.
	Now func() time.Time
	// Batch tunes the group commit; zero values take the defaults.
	Batch BatchOptions
	// Intake, when set, says whether the owner's kill switch lets
	// activities in now; while it does not, every POST answers 503 with
	// Retry-After (IntakeRetry) before anything else is looked at, and
	// senders retry later: nothing is lost.
	Intake func(ctx context.Context) bool
}

// IntakeRetry is the Retry-After of a POST refused by the inbox switch.
const IntakeRetry = 5 * time.Minute

// Handler serves POST /inbox (the shared inbox) and POST /@name/inbox.
// Every refusal comes as early and as cheaply as it can: size, content
// type and persona, the client's rate, the signature's form, the signing
// domain's rate and blocks — all before the body is read — then the
// body, its digest and the activity's shape and actor, and only then the
// key (fetched within a budget) and the signature.
// An accepted activity is stored with its inbox.process job and answered
// 202; the processing happens in the worker.
type Handler struct {
	d       Deps
	log     *slog.Logger
	clients *httpd.Buckets
	domains *httpd.Buckets
	actors  *httpd.Buckets // by identity, after verification
	signers *httpd.Buckets
	batch   *batcher
	// verifying caps the activities decoded and verified at once (the
	// CPU's part of a POST), so a burst past what the cores verify is
	// refused at once instead of queueing until senders time out.
	verifying *httpd.Slots
}

// MaxVerifying is how many POSTs a process decodes and verifies at once;
// one waits VerifyWait for a turn, then is refused with 503.
const (
	MaxVerifying = 64
	VerifyWait   = 100 * time.Millisecond
)

// New returns the inbox endpoint.
func New(d Deps) *Handler {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	def := func(v *float64, d float64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&d.ClientRate, DefaultClientRate)
	def(&d.ClientBurst, DefaultClientBurst)
	def(&d.DomainRate, DefaultDomainRate)
	def(&d.DomainBurst, DefaultDomainBurst)
	def(&d.ActorRate, DefaultActorRate)
	def(&d.ActorBurst, DefaultActorBurst)
	def(&d.SignerRate, DefaultSignerRate)
	def(&d.SignerBurst, DefaultSignerBurst)
	if d.Now == nil {
		d.Now = time.Now
	}
	in := &Handler{d: d, log: d.Log,
		clients: &httpd.Buckets{Rate: d.ClientRate, Burst: d.ClientBurst, Now: d.Now},
		domains: &httpd.Buckets{Rate: d.DomainRate, Burst: d.DomainBurst, Now: d.Now},
		actors:  &httpd.Buckets{Rate: d.ActorRate, Burst: d.ActorBurst, Now: d.Now},
		signers: &httpd.Buckets{Rate: d.SignerRate, Burst: d.SignerBurst, Now: d.Now}}
	in.batch = newBatcher(d.Store, d.Batch)
	in.verifying = httpd.NewSlots(MaxVerifying, VerifyWait, "inbox activities being verified").Counting(dbstat.ShieldInboxBusy)
	return in
}

// IsPath reports whether a POST to path goes to an inbox.
func IsPath(path string) bool {
	_, ok := inboxName(path)
	return path == "/inbox" || ok
}

// inboxName is the persona name of a persona's inbox path: "/@name/inbox",
// or "/users/name/inbox", where murlog 0.8.1 had it and where servers that
// followed a persona before the upgrade still deliver. The old path is
// served rather than redirected: the signature covers the path the
// request was sent to, and a POST is not re-sent to a redirect's target
// with a new one.
func inboxName(path string) (string, bool) {
	rest, ok := strings.CutSuffix(path, "/inbox")
	if !ok {
		return "", false
	}
	name, ok := strings.CutPrefix(rest, "/@")
	if !ok {
		name, ok = strings.CutPrefix(rest, "/users/")
	}
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", false
	}
	return name, true
}

// refuse answers a refusal with its status and logs one line naming the
// reason; nothing has been written.
func (in *Handler) refuse(w http.ResponseWriter, r *http.Request, status int, reason string, attrs ...any) {
	in.log.Info("inbox refused", append([]any{"status", status, "reason", reason, "path", r.URL.Path}, attrs...)...)
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		if w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", "1")
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, http.StatusText(status)+"\n")
}

// fromErr refuses with err's status; the log carries err's detail.
func (in *Handler) fromErr(w http.ResponseWriter, r *http.Request, err error, attrs ...any) {
	if murlog.ErrorCode(err) == murlog.EInternal {
		in.log.Error("inbox failed", append([]any{"path", r.URL.Path, "err", err}, attrs...)...)
	}
	httpd.SetRetryAfter(w, err)
	in.refuse(w, r, httpd.Status(err), err.Error(), attrs...)
}

func (in *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	// 1. Method, size, content type, persona.
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		in.refuse(w, r, http.StatusMethodNotAllowed, "method "+r.Method)
		return
	}
	if in.d.Intake != nil && !in.d.Intake(ctx) {
		w.Header().Set("Retry-After", strconv.Itoa(int(IntakeRetry.Seconds())))
		in.refuse(w, r, http.StatusServiceUnavailable, "inbox switched off by the owner")
		return
	}
	// A writer behind (the group commit's queue is full) refuses before
	// anything is read: each refusal then costs next to nothing, where
	// verifying first would spend the cores on activities that cannot
	// be stored anyway.
	if !in.d.OneShot && in.batch.full() {
		dbstat.Dropped(ctx, dbstat.ShieldInboxBusy)
		w.Header().Set("Retry-After", strconv.Itoa(int(BusyRetry.Seconds())))
		in.refuse(w, r, http.StatusServiceUnavailable, "the inbox's writer is behind")
		return
	}
	if r.ContentLength > activitypub.MaxBody {
		in.refuse(w, r, http.StatusRequestEntityTooLarge, "Content-Length "+strconv.FormatInt(r.ContentLength, 10)+" over 1 MB")
		return
	}
	if ct := r.Header.Get("Content-Type"); !activitypub.IsActivityContentType(ct) {
		in.refuse(w, r, http.StatusUnsupportedMediaType, "content type "+federation.SanitizeLog(ct))
		return
	}
	personaID, ok := in.persona(w, r)
	if !ok {
		return
	}
	// 2. The client's rate.
	client := httpd.ClientKey(httpd.ClientAddr(r, in.d.TrustedProxies))
	if ok, retry := in.clients.Allow(client); !ok {
		dbstat.Dropped(ctx, dbstat.ShieldInboxClient)
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(retry.Seconds()+0.999))))
		in.refuse(w, r, http.StatusTooManyRequests, "client rate limit", "client", client)
		return
	}
	if in.d.Blocks != nil {
		if err := in.d.Blocks.Allow(r); err != nil {
			in.fromErr(w, r, err, "client", client)
			return
		}
	}
	// 3. The signature's form, the signing domain's rate and blocks.
	sig, err := in.d.Verifier.Parse(r, true)
	if err != nil {
		in.fromErr(w, r, err, "client", client)
		return
	}
	domain := activitypub.HostOf(sig.KeyID)
	if ok, retry := in.domains.Allow(domain); !ok {
		dbstat.Dropped(ctx, dbstat.ShieldInboxDomain)
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(retry.Seconds()+0.999))))
		in.refuse(w, r, http.StatusTooManyRequests, "signing domain rate limit", "domain", domain)
		return
	}
	if blocked, err := in.d.Verifier.DomainBlocked(ctx, domain); err != nil {
		in.fromErr(w, r, err)
		return
	} else if blocked {
		in.refuse(w, r, http.StatusForbidden, "signing domain is blocked", "domain", domain)
		return
	}
	// 4. Body, digest, key, signature.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, activitypub.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			in.refuse(w, r, http.StatusRequestEntityTooLarge, "body over 1 MB", "domain", domain)
			return
		}
		in.refuse(w, r, http.StatusBadRequest, "body unreadable: "+err.Error(), "domain", domain)
		return
	}
	if err := in.d.Verifier.CheckDigest(r, body); err != nil {
		in.fromErr(w, r, err, "key_id", federation.SanitizeLog(sig.KeyID))
		return
	}
	// 5. The activity, still without a key: well-formed, and by an actor
	// on the keyId's host (the key must be its actor's, so anything else
	// cannot verify and is not worth a fetch). Decoding and verifying
	// take a turn of the process's cores.
	if !in.verifying.Acquire(ctx) {
		in.fromErr(w, r, in.verifying.Busy(), "domain", domain)
		return
	}
	released := false
	release := func() {
		if !released {
			released = true
			in.verifying.Release()
		}
	}
	defer release()
	act, err := activitypub.Decode(body)
	if err != nil {
		in.refuse(w, r, http.StatusBadRequest, "activity: "+err.Error(), "key_id", federation.SanitizeLog(sig.KeyID))
		return
	}
	if !activitypub.SameOrigin(act.Actor.ID, sig.KeyID) {
		in.refuse(w, r, http.StatusUnauthorized, "activity actor "+federation.SanitizeLog(act.Actor.ID)+" is not on the keyId's host", "key_id", federation.SanitizeLog(sig.KeyID))
		return
	}
	// 6. The key and the signature.
	known := in.d.Verifier.KnownActor(ctx, sig.KeyID)
	if known != nil {
		// A blocked actor is always a known one: its activity is dropped
		// before its signature is checked, so not even a rotated key of
		// it is fetched.
		if blocked, err := in.d.Verifier.ActorBlocked(ctx, personaID, known.ID); err != nil {
			in.fromErr(w, r, err)
			return
		} else if blocked {
			in.log.Info("inbox dropped", "reason", "actor is blocked", "actor", known.URI, "key_id", federation.SanitizeLog(sig.KeyID))
			w.WriteHeader(http.StatusAccepted)
			return
		}
	}
	if known == nil && act.Type == "Delete" && act.Actor.ID != "" && act.Object.First().ID == act.Actor.ID {
		// A deleted account's server tells every server it ever reached;
		// its key is gone with it, and we never knew it: nothing to
		// verify, nothing to delete, no fetch (Mastodon drops these too).
		in.log.Info("inbox dropped", "reason", "Delete of an actor never seen", "key_id", federation.SanitizeLog(sig.KeyID))
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// The key may be fetched now, within the Verifier's key-fetch budget:
	// a spent budget is 503 with Retry-After, which Mastodon and
	// GoToSocial retry later, where a 401 is final for GoToSocial.
	signer, err := in.d.Verifier.Check(ctx, sig)
	if err != nil {
		if se := (*httpsig.Error)(nil); errors.As(err, &se) {
			// A signature that does not verify against the key cost a
			// public-key operation: the client and the domain it claims
			// pay for it, so a stream of forgeries is soon refused by the
			// buckets. (A key that cannot be fetched costs no such check.)
			in.clients.Charge(client, forgeryPenalty)
			in.domains.Charge(domain, forgeryPenalty)
		}
		in.fromErr(w, r, err, "key_id", federation.SanitizeLog(sig.KeyID))
		return
	}
	release()
	// 7. By the signer, within its limits, not blocked.
	if act.Actor.ID != signer.URI {
		in.refuse(w, r, http.StatusUnauthorized, "activity actor "+federation.SanitizeLog(act.Actor.ID)+" is not the signer "+signer.URI, "key_id", federation.SanitizeLog(sig.KeyID))
		return
	}
	if err := in.identityLimits(ctx, signer); err != nil {
		in.fromErr(w, r, err, "actor", signer.URI)
		return
	}
	if !activitypub.SameOrigin(act.ID, signer.URI) {
		// The id is the dedupe key: an actor must not be able to take
		// another server's activity ids before that server sends them.
		in.refuse(w, r, http.StatusBadRequest, "activity id "+federation.SanitizeLog(act.ID)+" is not on its actor's host", "key_id", federation.SanitizeLog(sig.KeyID))
		return
	}
	if blocked, err := in.d.Verifier.ActorBlocked(ctx, personaID, signer.ID); err != nil {
		in.fromErr(w, r, err)
		return
	} else if blocked {
		// As Mastodon: the sender is not told.
		in.log.Info("inbox dropped", "reason", "actor is blocked", "actor", signer.URI, "activity", federation.SanitizeLog(act.ID))
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// 8. Dedupe and enqueue in one transaction, grouped with others.
	it := &pending{id: ItemID(act.ID), actorID: signer.ID, personaID: personaID, body: body, traceparent: traceparent(ctx)}
	if in.d.OneShot {
		err = in.batch.write(ctx, []*pending{it})
	} else {
		err = in.batch.submit(ctx, it)
	}
	if err != nil {
		in.fromErr(w, r, err, "activity", federation.SanitizeLog(act.ID))
		return
	}
	if !it.isNew {
		in.log.Info("inbox duplicate", "activity", federation.SanitizeLog(act.ID), "actor", signer.URI)
	}
	w.WriteHeader(http.StatusAccepted)
}

// persona resolves the inbox's persona: "" for the shared inbox.
func (in *Handler) persona(w http.ResponseWriter, r *http.Request) (string, bool) {
	if r.URL.Path == "/inbox" {
		return "", true
	}
	name, _ := inboxName(r.URL.Path)
	p, err := in.d.Personas.Persona(r.Context(), name)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		in.refuse(w, r, http.StatusNotFound, "no persona "+federation.SanitizeLog(name))
		return "", false
	}
	if err != nil {
		in.fromErr(w, r, err)
		return "", false
	}
	return p.ID, true
}

func traceparent(ctx context.Context) string {
	if tc, ok := trace.From(ctx); ok {
		return tc.Child().String()
	}
	return ""
}

// inboxJob is the job of an accepted item.
func inboxJob(p *pending) (queue.Job, error) {
	payload, err := json.Marshal(Job{Item: p.id})
	if err != nil {
		return queue.Job{}, err
	}
	j := queue.NewJob(TopicProcess, payload)
	if p.traceparent != "" {
		j.Headers = map[string]string{trace.Header: p.traceparent}
	}
	return j, nil
}

// BatchOptions tune the group commit.
type BatchOptions struct {
	MaxItems int           // items in one transaction; 200 when 0
	MaxWait  time.Duration // how long the first item waits for company; 2 ms when 0
	Queue    int           // items waiting at most before submitters block; 4096 when 0
}
