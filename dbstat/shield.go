package dbstat

import "context"

// Shield names a shield that drops requests before they cost anything
// (shield_drops_total{shield=…}): the same counter file carries its
// counts, so a CGI process's drops add up with everyone's.
type Shield uint8

// The shields, cheapest first.
const (
	ShieldInboxClient  Shield = iota // the inbox's token bucket per client address
	ShieldInboxDomain                // …and per signing domain
	ShieldSearch                     // the search shield per client address
	ShieldAnonAPI                    // anonymous API requests at once (the public read API, anonymous batches)
	ShieldWriteBreaker               // writes refused by the write breaker
	// The persistent counters per address block (httpd.BlockShield),
	// which hold across CGI processes, one per class of request.
	ShieldBlockLogin  // anonymous JSON-RPC requests: login and the other anonymous calls
	ShieldBlockInbox  // inbox POSTs
	ShieldBlockSearch // search queries
	ShieldBlockAPI    // the public JSON API (/api/pub/)
	// The inbox's limits by identity, after the signature verified.
	ShieldInboxActor  // per signing actor
	ShieldInboxSigner // per verified signing domain
	// ShieldInboxBusy is the inbox's group commit refusing more than its
	// writer can store within a second.
	ShieldInboxBusy
	numShields
)

var shieldNames = [numShields]string{"inbox_client", "inbox_domain", "search", "anon_api", "write_breaker",
	"block_login", "block_inbox", "block_search", "block_api", "inbox_actor", "inbox_signer_domain", "inbox_busy"}

func (s Shield) String() string {
	if s >= numShields {
		return "other"
	}
	return shieldNames[s]
}

// Shields lists every shield.
func Shields() []Shield {
	out := make([]Shield, numShields)
	for i := range out {
		out[i] = Shield(i)
	}
	return out
}

func parseShield(s string) (Shield, bool) {
	for i, n := range shieldNames {
		if n == s {
			return Shield(i), true
		}
	}
	return 0, false
}

// Drop counts one request dropped by s.
func (k *Counter) Drop(s Shield) {
	if k == nil || s >= numShields {
		return
	}
	k.drops[s].Add(1)
}

// DropCounts returns the drops so far, by shield.
func (k *Counter) DropCounts() map[Shield]uint64 {
	out := make(map[Shield]uint64, numShields)
	if k == nil {
		return out
	}
	for i := range k.drops {
		out[Shield(i)] = k.drops[i].Load()
	}
	return out
}

type counterKey struct{}

// WithCounter returns ctx carrying the process's Counter, so a shield deep
// in a handler counts its drops (Dropped) without being handed it.
func WithCounter(ctx context.Context, k *Counter) context.Context {
	return context.WithValue(ctx, counterKey{}, k)
}

// Dropped counts a drop by s in the Counter ctx carries, if any.
func Dropped(ctx context.Context, s Shield) {
	if k, ok := ctx.Value(counterKey{}).(*Counter); ok {
		k.Drop(s)
	}
}
