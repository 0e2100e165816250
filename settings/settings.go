// Package settings holds the site options the owner edits from the API:
// default language, robots and federation preferences. They live in the
// settings table beside the ledger, never in murlog.ini. The site's name
// and introduction are the primary persona's public-site settings
// (siteconfig), not a second copy here.
package settings

import (
	"context"
	"strconv"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// Site is the owner-editable site configuration.
type Site struct {
	Domain string `json:"domain"` // read-only: set at setup, it names every federated object
	// Language is the pages' language, a BCP 47 tag; setup stores the
	// language the wizard was shown in, "" reads as English.
	Language      string `json:"language"`
	RobotsNoindex bool   `json:"robots_noindex"` // ask search engines not to index
	RobotsNoAI    bool   `json:"robots_noai"`    // ask AI crawlers not to train on the content
	// AuthorizedFetch makes the ActivityPub JSON answer only signed GETs
	// (Mastodon's "secure mode"); the actor's key stays readable.
	AuthorizedFetch bool `json:"authorized_fetch"`
	// AllowQuotes lets other servers quote public and unlisted posts
	// (FEP-044f canQuote); default true.
	AllowQuotes bool `json:"allow_quotes"`
}

const (
	keyLanguage      = "site_language"
	keyRobotsNoindex = "robots_noindex"
	keyRobotsNoAI    = "robots_noai"
	keyAllowQuotes   = "allow_quotes"
)

// Keys the public blog reads in its own page transaction (the site's
// language and robots preferences), exported so their names live here.
const (
	KeyLanguage      = keyLanguage
	KeyRobotsNoindex = keyRobotsNoindex
	KeyRobotsNoAI    = keyRobotsNoAI
)

// Service reads and writes site settings.
type Service struct{ store store.Store }

// New returns a Service.
func New(st store.Store) *Service { return &Service{store: st} }

// Get returns the current settings; unset options have their defaults
// (robots_noai defaults to true: the owner opts in to AI training, not out).
func (s *Service) Get(ctx context.Context) (*Site, error) {
	var out *Site
	err := s.store.View(ctx, func(tx store.Tx) error {
		m, err := tx.Settings().GetMany(murlog.SettingDomain, keyLanguage, keyRobotsNoindex, keyRobotsNoAI,
			murlog.SettingAuthorizedFetch, keyAllowQuotes)
		if err != nil {
			return err
		}
		out = &Site{Domain: m[murlog.SettingDomain], Language: m[keyLanguage], RobotsNoindex: m[keyRobotsNoindex] == "1", RobotsNoAI: m[keyRobotsNoAI] != "0",
			AuthorizedFetch: m[murlog.SettingAuthorizedFetch] == "1", AllowQuotes: m[keyAllowQuotes] != "0"}
		return nil
	})
	return out, err
}

// Update is a partial edit; nil fields stay as they are.
type Update struct {
	Language        *string
	RobotsNoindex   *bool
	RobotsNoAI      *bool
	AuthorizedFetch *bool
	AllowQuotes     *bool
}

// Update validates u, stores it and returns the new settings.
func (s *Service) Update(ctx context.Context, u Update) (*Site, error) {
	set := map[string]string{}
	if u.Language != nil {
		v, err := murlog.CheckText("language", strings.TrimSpace(*u.Language))
		if err != nil {
			return nil, err
		}
		if v != "" && !murlog.ValidLanguage(v) {
			return nil, murlog.Invalid("language", "must be a language tag such as ja or en-US")
		}
		set[keyLanguage] = v
	}
	if u.RobotsNoindex != nil {
		set[keyRobotsNoindex] = boolStr(*u.RobotsNoindex)
	}
	if u.RobotsNoAI != nil {
		set[keyRobotsNoAI] = boolStr(*u.RobotsNoAI)
	}
	if u.AuthorizedFetch != nil {
		set[murlog.SettingAuthorizedFetch] = boolStr(*u.AuthorizedFetch)
	}
	if u.AllowQuotes != nil {
		set[keyAllowQuotes] = boolStr(*u.AllowQuotes)
	}
	err := s.store.Update(ctx, func(tx store.Tx) error {
		for k, v := range set {
			if err := tx.Settings().Set(k, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx)
}

func boolStr(b bool) string { return strconv.Itoa(map[bool]int{false: 0, true: 1}[b]) }
