package federation

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/internal/lru"
	"github.com/murlog/murlog/store"
)

// The key-fetch budget's default sizes. A key fetch is the one thing an
// unauthenticated request can make murlog send to a third server, so the
// inbox asks for one only after every cheap check has passed (see
// inbox.Handler), and the fetches themselves are token buckets: per
// signing host, and in total.
//
// A host gets 10 fetches at once and one every 2 s after that (30 a
// minute): a new server's first deliveries name a few actors, and a boost
// wave from one big server naming hundreds of new actors is let through
// at 30 a minute while the senders retry the rest. Everything together
// gets 100 at once and 5 a second, so a flood spread over many hosts (or
// over the subdomains of one) cannot make murlog a load generator either.
const (
	DefaultFetchDomainBurst = 10
	DefaultFetchDomainRate  = 0.5
	DefaultFetchTotalBurst  = 100
	DefaultFetchTotalRate   = 5
)

// FetchBudget sizes the key-fetch token buckets: Rate tokens a second up
// to Burst, per signing host and in total. Zero fields take the Default…
// sizes.
type FetchBudget struct {
	DomainRate, DomainBurst float64
	TotalRate, TotalBurst   float64
}

// keyFetches are the Verifier's fetches of key owners: at most one at a
// time per owner (concurrent callers share it), not again for FailedFor
// after a failure nor for RefetchEvery after a success (a keyId of the
// actor fetched just now that it does not list is refused without a
// fetch), and each new fetch paid for from the budget.
type keyFetches struct {
	now    func() time.Time
	domain *httpd.Buckets
	total  *httpd.Buckets

	mu       sync.Mutex
	inflight map[string]*fetchCall // by owner URL
	recent   *lru.Cache[string, fetchResult]
}

// fetchResult is the outcome of an owner's last fetch.
type fetchResult struct {
	at  time.Time
	uri string // the actor's id, when it was fetched
	err error
}

type fetchCall struct {
	done chan struct{}
	a    *murlog.RemoteActor
	err  error
}

func (f *keyFetches) init(b FetchBudget, size int, now func() time.Time) {
	def := func(v *float64, d float64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&b.DomainRate, DefaultFetchDomainRate)
	def(&b.DomainBurst, DefaultFetchDomainBurst)
	def(&b.TotalRate, DefaultFetchTotalRate)
	def(&b.TotalBurst, DefaultFetchTotalBurst)
	f.now = now
	f.domain = &httpd.Buckets{Rate: b.DomainRate, Burst: b.DomainBurst, Max: size, Now: now}
	f.total = &httpd.Buckets{Rate: b.TotalRate, Burst: b.TotalBurst, Now: now}
	f.inflight = map[string]*fetchCall{}
	f.recent = lru.New[string, fetchResult](size)
}

// budgetHost is what a fetch of owner is counted under: its host name,
// lower case, without the port (another port is the same machine).
func budgetHost(owner string) string {
	if u, err := url.Parse(owner); err == nil {
		return strings.ToLower(u.Hostname())
	}
	return owner
}

// fetch returns the key keyID of its actor, fetched (once for concurrent
// callers) unless its owner was fetched recently. A spent budget is
// EUnavailable with RetryAfter: nothing is fetched, and the sender, told
// 503, retries later (see docs/federation.md).
func (v *Verifier) fetch(ctx context.Context, keyID string) (*cachedKey, error) {
	owner := httpsig.KeyOwnerGuess(keyID)
	a, err := v.fetchOwner(ctx, owner)
	if err != nil {
		return nil, err
	}
	return v.remember(keyID, a)
}

func (v *Verifier) fetchOwner(ctx context.Context, owner string) (*murlog.RemoteActor, error) {
	f := &v.fetches
	f.mu.Lock()
	if r, ok := f.recent.Get(owner); ok {
		age := f.now().Sub(r.at)
		switch {
		case r.err != nil && age < FailedFor:
			f.mu.Unlock()
			return nil, refusal(murlog.EUnauthorized, "actor "+SanitizeLog(owner)+" failed to fetch "+age.Round(time.Second).String()+" ago", r.err)
		case r.err == nil && age < RefetchEvery:
			f.mu.Unlock()
			return v.stored(ctx, r.uri)
		}
	}
	if c, ok := f.inflight[owner]; ok {
		f.mu.Unlock()
		select {
		case <-c.done:
			return c.a, c.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	host := budgetHost(owner)
	if ok, retry := f.domain.Allow(host); !ok {
		f.mu.Unlock()
		return nil, budgetSpent("signing host "+host, retry)
	}
	if ok, retry := f.total.Allow(""); !ok {
		f.mu.Unlock()
		return nil, budgetSpent("all signing hosts", retry)
	}
	c := &fetchCall{done: make(chan struct{})}
	f.inflight[owner] = c
	f.mu.Unlock()

	c.a, c.err = v.d.Resolver.Refresh(ctx, owner)
	if c.err != nil {
		c.err = refusal(murlog.EUnauthorized, "fetching key owner "+SanitizeLog(owner), c.err)
	}
	r := fetchResult{at: f.now(), err: c.err}
	if c.a != nil {
		r.uri = c.a.URI
	}
	f.mu.Lock()
	delete(f.inflight, owner)
	f.recent.Put(owner, r)
	f.mu.Unlock()
	close(c.done)
	return c.a, c.err
}

// stored is the actor uri as its last fetch stored it.
func (v *Verifier) stored(ctx context.Context, uri string) (*murlog.RemoteActor, error) {
	var a *murlog.RemoteActor
	err := v.d.Store.View(ctx, func(tx store.Tx) (err error) { a, err = tx.RemoteActors().GetByURI(uri); return err })
	if murlog.ErrorCode(err) == murlog.ENotFound {
		return nil, refusal(murlog.EUnauthorized, "actor "+SanitizeLog(uri)+" is gone", nil)
	}
	return a, err
}

// budgetSpent is the refusal of a key fetch over budget.
func budgetSpent(what string, retry time.Duration) error {
	return &murlog.Error{Code: murlog.EUnavailable, Message: "too many key fetches; try again later", RetryAfter: retry,
		Err: murlog.Errorf(murlog.EUnavailable, "key fetch budget of %s spent", what)}
}
