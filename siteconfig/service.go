package siteconfig

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// Limits of the text fields, in characters (the seed's VARCHAR sizes).
const (
	MaxShort        = 50 // site_name, subtitle, author, design_theme
	MaxIntroduction = 1000
)

// Options configure a Service.
type Options struct {
	// ThemeExists reports whether a theme of that name is installed
	// (theme.Set.Exists); "" (the default theme) is accepted without
	// asking. Nil accepts only "".
	ThemeExists func(name string) bool
	// ThemeNames lists the installed themes for the owner's form
	// (theme.Set.Names); nil lists none.
	ThemeNames func() []string
	// OnChange is called after a persona's settings changed, so the app
	// drops the pages it rendered with the old ones.
	OnChange func()
	// Log receives the stored extensions that Get had to refuse.
	Log *slog.Logger
}

// Service reads and edits the personas' public-site settings.
type Service struct {
	store store.Store
	o     Options
}

// New returns a Service.
func New(st store.Store, o Options) *Service {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: st, o: o}
}

// Themes lists the installed themes, sorted as ThemeNames returns them;
// never nil.
func (s *Service) Themes() []string {
	if s.o.ThemeNames == nil {
		return []string{}
	}
	if names := s.o.ThemeNames(); names != nil {
		return names
	}
	return []string{}
}

// Get returns the settings of a persona ("" for the primary one): its
// stored row or the defaults. Stored extensions that no longer validate
// are logged and read as "{}".
func (s *Service) Get(ctx context.Context, personaID string) (*murlog.PubConfig, Extensions, error) {
	var c *murlog.PubConfig
	var ext Extensions
	err := s.store.View(ctx, func(tx store.Tx) error {
		id, err := resolvePersona(tx, personaID)
		if err != nil {
			return err
		}
		var bad error
		c, ext, bad = Load(tx, id)
		if c == nil {
			return bad
		}
		if bad != nil {
			s.o.Log.Error("site settings: stored extensions refused", "persona", id, "err", bad)
		}
		return nil
	})
	if err != nil {
		return nil, Extensions{}, err
	}
	return c, ext, nil
}

// resolvePersona returns the id of the persona named by id ("" for the
// primary one), or an error when there is none.
func resolvePersona(tx store.Tx, id string) (string, error) {
	if id == "" {
		return tx.Personas().PrimaryID()
	}
	if !murlog.ValidID(id) {
		return "", murlog.Invalid("persona_id", "is not a valid id")
	}
	if _, err := tx.Personas().Get(id); err != nil {
		if murlog.ErrorCode(err) == murlog.ENotFound {
			return "", murlog.NotFound("persona")
		}
		return "", err
	}
	return id, nil
}

// Update is a partial edit: nil fields stay as they are. Extensions, when
// set, replaces the whole object (it is not merged).
type Update struct {
	SiteName          *string
	Subtitle          *string
	Author            *string
	Introduction      *string
	DesignTheme       *string
	ShowServiceHeader *bool
	ShowSiteName      *bool
	ShowPagination    *bool
	ShowSideProfile   *bool
	SideRecent        *int
	SidePopular       *int
	Extensions        *json.RawMessage
}

// checked is an Update after validation: the values to store.
type checked struct {
	u   Update
	ext *string // the canonical extensions text
}

// Check validates u without touching the store and returns the first
// problem, an EInvalid naming the field ("site_name",
// "extensions.shareButtons[2]" …). Update calls it too; the API calls it
// first when one request edits more than this service's settings.
func (s *Service) Check(u Update) error {
	_, err := s.check(u)
	return err
}

func (s *Service) check(u Update) (*checked, error) {
	out := &checked{u: u}
	for _, f := range []struct {
		name   string
		v      **string
		max    int
		isName bool // a name: one line, nothing invisible (murlog.CheckName)
	}{
		{"site_name", &out.u.SiteName, MaxShort, true},
		{"subtitle", &out.u.Subtitle, MaxShort, false},
		{"author", &out.u.Author, MaxShort, true},
		{"introduction", &out.u.Introduction, MaxIntroduction, false},
	} {
		if *f.v == nil {
			continue
		}
		check := CheckText
		if f.isName {
			check = CheckName
		}
		v, err := check(f.name, **f.v, f.max)
		if err != nil {
			return nil, err
		}
		*f.v = &v
	}
	if u.DesignTheme != nil {
		v := strings.TrimSpace(*u.DesignTheme)
		if err := s.checkTheme(v); err != nil {
			return nil, err
		}
		out.u.DesignTheme = &v
	}
	for _, f := range []struct {
		name string
		v    *int
	}{{"show_side_recent", u.SideRecent}, {"show_side_popular", u.SidePopular}} {
		if f.v != nil && (*f.v < math.MinInt32 || *f.v > math.MaxInt32) {
			return nil, murlog.Invalid(f.name, "must be between %d and %d (0 or less hides the list)", math.MinInt32, math.MaxInt32)
		}
	}
	if u.Extensions != nil {
		text, _, err := checkExtensions(*u.Extensions)
		if err != nil {
			return nil, err
		}
		out.ext = &text
	}
	return out, nil
}

// CheckName is CheckText for a name (the site's name, its author), with
// murlog.CheckName's rule on top. The setup wizard checks the site name
// with it.
func CheckName(field, v string, max int) (string, error) {
	v, err := CheckText(field, v, max)
	if err == nil {
		err = murlog.CheckName(field, v)
	}
	if err != nil {
		return "", err
	}
	return v, nil
}

// CheckText is the check of one text field: murlog.CheckText, trimmed,
// at most max characters.
func CheckText(field, v string, max int) (string, error) {
	v, err := murlog.CheckText(field, strings.TrimSpace(v))
	if err != nil {
		return "", err
	}
	if n := utf8.RuneCountInString(v); n > max {
		return "", murlog.TooLong(field, "must be at most %d characters, not %d", max, n)
	}
	return v, nil
}

func (s *Service) checkTheme(name string) error {
	if name == "" {
		return nil
	}
	if !ValidThemeName(name) {
		if len(name) > MaxShort && idChars(name) {
			return murlog.Invalid("design_theme", "must be at most %d characters", MaxShort)
		}
		return murlog.Invalid("design_theme", "%s is not a theme name: only A–Z, a–z, 0–9, _ and - are allowed", quote(name))
	}
	if s.o.ThemeExists == nil || !s.o.ThemeExists(name) {
		return murlog.Invalid("design_theme", "there is no theme %s; installed: %s", quote(name), strings.Join(s.Themes(), ", "))
	}
	return nil
}

// Update validates u, then applies it to the persona's settings ("" for
// the primary persona) in one transaction, and returns the new settings.
// Nothing is written when any field is refused.
func (s *Service) Update(ctx context.Context, personaID string, u Update) (*murlog.PubConfig, Extensions, error) {
	ck, err := s.check(u)
	if err != nil {
		return nil, Extensions{}, err
	}
	var c *murlog.PubConfig
	err = s.store.Update(ctx, func(tx store.Tx) error {
		id, err := resolvePersona(tx, personaID)
		if err != nil {
			return err
		}
		// A stored extensions value that no longer validates reads as
		// "{}", so this write repairs it.
		if c, _, err = Load(tx, id); c == nil {
			return err
		}
		ck.apply(c)
		c.UpdatedAt = tx.Now()
		return tx.PubConfigs().Put(c)
	})
	if err != nil {
		return nil, Extensions{}, err
	}
	if s.o.OnChange != nil {
		s.o.OnChange()
	}
	ext, err := ParseExtensions(c.Extensions)
	if err != nil {
		return nil, Extensions{}, murlog.Internal(err)
	}
	return c, ext, nil
}

func (ck *checked) apply(c *murlog.PubConfig) {
	u := ck.u
	for _, f := range []struct {
		v   *string
		dst *string
	}{
		{u.SiteName, &c.SiteName}, {u.Subtitle, &c.Subtitle}, {u.Author, &c.Author},
		{u.Introduction, &c.Introduction}, {u.DesignTheme, &c.DesignTheme}, {ck.ext, &c.Extensions},
	} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	for _, f := range []struct {
		v   *bool
		dst *bool
	}{
		{u.ShowServiceHeader, &c.ShowServiceHeader}, {u.ShowSiteName, &c.ShowSiteName},
		{u.ShowPagination, &c.ShowPagination}, {u.ShowSideProfile, &c.ShowSideProfile},
	} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	if u.SideRecent != nil {
		c.SideRecent = *u.SideRecent
	}
	if u.SidePopular != nil {
		c.SidePopular = *u.SidePopular
	}
}

// Name returns the site name a persona's pages show ("" for the primary
// persona's: the name of the whole site), as Name derives it.
func (s *Service) Name(ctx context.Context, personaID string) (string, error) {
	var name string
	err := s.store.View(ctx, func(tx store.Tx) error {
		id, err := resolvePersona(tx, personaID)
		if err != nil {
			return err
		}
		p, err := tx.Personas().Get(id)
		if err != nil {
			return err
		}
		// Refused extensions (Load's error with a config) do not matter
		// to the name; a failed read does.
		c, _, err := Load(tx, id)
		if c == nil {
			return err
		}
		name = Name(c, p)
		return nil
	})
	return name, err
}
