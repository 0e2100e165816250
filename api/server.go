package api

import (
	"context"
	"log/slog"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/controls"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/persona"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/siteconfig"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/store"
)

// Deps are the services the API exposes.
type Deps struct {
	Site     murlog.Site
	Cookies  httpd.Cookies
	Auth     *auth.Service
	Personas *persona.Service
	Posts    *post.Service
	Settings *settings.Service
	// SiteConfig holds the personas' public-site settings, shown and
	// edited under "publication" by site.get_settings and
	// site.update_settings; nil leaves them out.
	SiteConfig *siteconfig.Service
	Domains    *domains.Service
	Queue      queue.Inspector
	// Now is the clock the views use to name a post's state; time.Now when nil.
	Now func() time.Time
	// Changed, when set, is called after a post, a persona's profile or a
	// site setting changed, so rendered copies (the federation documents,
	// the blog's cached lists) are dropped.
	Changed func()
	// Social is the federation's domain service; with it nil the social
	// methods (methods_social*.go) answer unavailable.
	Social *social.Service
	// Store is read for what the social views show beyond the service's
	// answers: cached actors and posts, relationships, deliveries.
	Store Viewer
	// Artifacts is the public site's rendering (site.artifacts.*); nil
	// when the site keeps none.
	Artifacts Republisher
	// OwnerWrites, when set, is called as an owner's request begins,
	// before any of its calls runs; the func it returns is called once as
	// the request ends, before its answer is written, with whether one of
	// its mutating calls succeeded: the app renders the public pages the
	// request changed there, and its rebuild job waits meanwhile rather
	// than render the same pages at once.
	OwnerWrites func(ctx context.Context) (end func(wrote bool))
	// Remote looks up remote actors and fetches remote objects (the
	// federation resolver); nil makes the methods that need it answer
	// unavailable "federation is not configured".
	Remote Remote
	// Controls are the kill switches and lockdown (site.controls.*);
	// while lockdown is active mutating methods answer 423. Nil: no
	// lockdown, and the methods answer unavailable.
	Controls *controls.Service
}

// Viewer runs read transactions; store.Store implements it.
type Viewer interface {
	View(ctx context.Context, fn func(store.Tx) error) error
}

// Remote is what the API needs of the federation resolver. Resolve takes
// "@user@host", "user@host" or an actor or profile URL and returns the
// actor stored in the cache (ID set), fetching it (WebFinger, signed GET)
// when it is unknown or was fetched more than a day ago. FetchObject is a
// signed GET of any object. Both answer a failure as EUnavailable naming
// the remote host and the reason.
type Remote interface {
	Resolve(ctx context.Context, q string) (*murlog.RemoteActor, error)
	FetchObject(ctx context.Context, uri string) (*activitypub.Object, error)
}

// New returns the JSON-RPC server with every method registered. Method
// names follow murlog's published namespaces (auth.*, tokens.*, personas.*,
// posts.*, site.*), so existing scripts keep working.
func New(d Deps, log *slog.Logger) *Server {
	if d.Now == nil {
		d.Now = time.Now
	}
	s := &Server{methods: map[string]*method{}, log: log, deps: d, anonBatches: httpd.NewSlots(MaxAnonBatches, anonBatchWait, "anonymous batch requests").Counting(dbstat.ShieldAnonAPI)}
	s.registerAuth()
	s.registerSessions()
	s.registerTOTP()
	s.registerPersonas()
	s.registerPosts()
	s.registerSite()
	s.registerControls()
	s.registerArtifacts()
	s.registerDomains()
	s.registerQueue()
	s.registerSocial()
	s.registerNotifications()
	return s
}
