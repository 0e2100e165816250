package inbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/httpd"
)

// identityLimits takes one request of the verified signer and of its
// domain: from the in-memory buckets, and, when Identities is set (CGI),
// from the per-minute counts every process shares. A refusal is
// EUnavailable with Retry-After, counted as the drop of the limit that
// refused. A counter that fails lets the activity through: it is signed,
// and its write meets the write breaker anyway.
func (in *Handler) identityLimits(ctx context.Context, signer *murlog.RemoteActor) error {
	actor, domain := signer.URI, activitypub.HostOf(signer.URI)
	if ok, retry := in.actors.Allow(actor); !ok {
		return in.identityRefusal(ctx, dbstat.ShieldInboxActor, retry, "this actor")
	}
	if ok, retry := in.signers.Allow(domain); !ok {
		return in.identityRefusal(ctx, dbstat.ShieldInboxSigner, retry, "this server")
	}
	if in.d.Identities == nil {
		return nil
	}
	t := in.d.Now()
	w := t.Truncate(httpd.BlockWindow)
	retry := w.Add(httpd.BlockWindow).Sub(t)
	for _, l := range []struct {
		key   string
		limit float64
		drop  dbstat.Shield
		who   string
	}{
		{counterKey("actor:", actor), perWindow(in.d.ActorRate), dbstat.ShieldInboxActor, "this actor"},
		{counterKey("signer:", domain), perWindow(in.d.SignerRate), dbstat.ShieldInboxSigner, "this server"},
	} {
		n, err := in.d.Identities.Hit(ctx, l.key, w, 1)
		if err != nil {
			in.log.Warn("inbox identity counter failed; activity let through", "actor", actor, "err", err.Error())
			return nil
		}
		if float64(n) > l.limit {
			return in.identityRefusal(ctx, l.drop, retry, l.who)
		}
	}
	return nil
}

func (in *Handler) identityRefusal(ctx context.Context, drop dbstat.Shield, retry time.Duration, who string) error {
	dbstat.Dropped(ctx, drop)
	return &murlog.Error{Code: murlog.EUnavailable, RetryAfter: max(time.Second, retry),
		Message: "too many activities from " + who + " at once; retry later"}
}

// perWindow is a rate per second as a whole count per BlockWindow.
func perWindow(rate float64) float64 {
	return max(1, math.Round(rate*httpd.BlockWindow.Seconds()))
}

// counterKey is a persistent counter's key for an identity: prefix and
// the identity itself when it is short, else its hash, so a key stays
// within store.MaxShieldKey whatever a remote server names itself.
func counterKey(prefix, id string) string {
	if len(prefix)+len(id) <= 96 {
		return prefix + id
	}
	h := sha256.Sum256([]byte(id))
	return prefix + "#" + hex.EncodeToString(h[:16])
}
