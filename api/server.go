package api

import (
	"log/slog"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/domains"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/persona"
	"github.com/murlog/murlog/post"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/settings"
)

// Deps are the services the API exposes.
type Deps struct {
	Site     murlog.Site
	Cookies  httpd.Cookies
	Auth     *auth.Service
	Personas *persona.Service
	Posts    *post.Service
	Settings *settings.Service
	Domains  *domains.Service
	Queue    queue.Inspector
	// Now is the clock the views use to name a post's state; time.Now when nil.
	Now func() time.Time
	// Changed, when set, is called after a persona's profile or a site
	// setting changed, so rendered copies (the federation documents) are
	// dropped.
	Changed func()
}

// New returns the JSON-RPC server with every method registered. Method
// names follow murlog's published namespaces (auth.*, tokens.*, personas.*,
// posts.*, site.*), so existing scripts keep working.
func New(d Deps, log *slog.Logger) *Server {
	if d.Now == nil {
		d.Now = time.Now
	}
	s := &Server{methods: map[string]*method{}, log: log, deps: d, anonBatches: make(chan struct{}, MaxAnonBatches)}
	s.registerAuth()
	s.registerPersonas()
	s.registerPosts()
	s.registerSite()
	s.registerDomains()
	s.registerQueue()
	return s
}
