// Package setup completes a new site (step 2 of the wizard): it creates the
// primary persona with its key pair (and its site name, when given), stores
// the password and the domain, and marks setup complete — all in one transaction, so a failure leaves nothing
// half-made and a second attempt after success is refused.
package setup

import (
	"context"
	"net"
	"strconv"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/persona"
	"github.com/murlog/murlog/settings"
	"github.com/murlog/murlog/siteconfig"
	"github.com/murlog/murlog/store"
)

// Input is the step 2 form.
type Input struct {
	Domain          string // host[:port] the site is served at
	Username        string
	DisplayName     string
	Password        string
	PasswordConfirm string
	// SiteName is the primary persona's site name (its public-site
	// settings); optional, "" shows the display name.
	SiteName string
	// Language becomes the site's language setting (the pages' language):
	// the wizard passes the language it was shown in, so a site set up in
	// Japanese starts with Japanese pages. "" stores none (English).
	Language string
}

// Service runs step 2.
type Service struct {
	store store.Store
	// KeyPair makes the persona's keys; persona.NewKeyPair unless a test
	// substitutes a cheaper one.
	KeyPair func() (pub, priv string, err error)
}

// New returns a Service.
func New(st store.Store) *Service { return &Service{store: st, KeyPair: persona.NewKeyPair} }

// Complete reports whether setup has finished.
func (s *Service) Complete(ctx context.Context) (bool, error) {
	var done bool
	err := s.store.View(ctx, func(tx store.Tx) error {
		v, err := tx.Settings().Get(murlog.SettingSetupComplete)
		if murlog.ErrorCode(err) == murlog.ENotFound {
			return nil
		}
		done = v == "1"
		return err
	})
	return done, err
}

// ErrDone is returned when setup was already completed.
var ErrDone = murlog.Errorf(murlog.EConflict, "setup is already complete")

// Validate checks the input without touching the store; the wizard calls it
// to show every problem at once.
func Validate(in *Input) []error {
	var errs []error
	in.Domain = strings.ToLower(strings.TrimSpace(in.Domain))
	in.Username = strings.TrimSpace(in.Username)
	in.DisplayName = strings.TrimSpace(in.DisplayName)
	if err := ValidateDomain(in.Domain); err != nil {
		errs = append(errs, err)
	}
	if err := persona.ValidateUsername(in.Username); err != nil {
		errs = append(errs, err)
	}
	if err := persona.ValidateDisplayName(in.DisplayName); err != nil {
		errs = append(errs, err)
	}
	if v, err := siteconfig.CheckName("site_name", in.SiteName, siteconfig.MaxShort); err != nil {
		errs = append(errs, err)
	} else {
		in.SiteName = v
	}
	if in.Language = strings.TrimSpace(in.Language); in.Language != "" && !murlog.ValidLanguage(in.Language) {
		errs = append(errs, murlog.Invalid("language", "must be a language tag such as ja or en-US"))
	}
	if err := auth.ValidatePassword("password", in.Password); err != nil {
		errs = append(errs, err)
	} else if in.Password != in.PasswordConfirm {
		errs = append(errs, murlog.Invalid("password_confirm", "does not match the password"))
	}
	return errs
}

// ValidateDomain accepts a DNS host name or an IP address, with an optional
// port (kept, so a test install at 127.0.0.1:8080 generates working URLs).
func ValidateDomain(d string) error {
	if d == "" {
		return murlog.Required("domain")
	}
	host, port := d, ""
	if h, p, err := net.SplitHostPort(d); err == nil {
		host, port = h, p
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return murlog.Invalid("domain", "has an invalid port")
		}
	}
	if net.ParseIP(strings.Trim(host, "[]")) != nil {
		return nil
	}
	if len(host) > 253 {
		return murlog.Invalid("domain", "is too long")
	}
	for _, l := range strings.Split(host, ".") {
		if !validLabel(l) {
			return murlog.Invalid("domain", "must be a host name such as example.com")
		}
	}
	return nil
}

// validLabel checks one DNS label: 1–63 of a-z, 0-9 and '-', not starting
// or ending with '-'. (A loop rather than a regexp: under CGI every
// package-level regexp is compiled on every request.)
func validLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Run validates in and completes setup.
func (s *Service) Run(ctx context.Context, in Input) (*murlog.Persona, error) {
	if errs := Validate(&in); len(errs) > 0 {
		return nil, errs[0]
	}
	if done, err := s.Complete(ctx); err != nil {
		return nil, err
	} else if done {
		return nil, ErrDone
	}
	// The slow parts (key generation, password hashing) happen before the
	// write transaction so the writer is held for milliseconds only.
	pub, priv, err := s.KeyPair()
	if err != nil {
		return nil, murlog.Internal(err)
	}
	hash, err := auth.HashPassword(in.Password)
	if err != nil {
		return nil, murlog.Internal(err)
	}
	display := in.DisplayName
	if display == "" {
		display = in.Username
	}
	p := &murlog.Persona{ID: murlog.NewID(), Username: in.Username, DisplayName: display, Primary: true,
		ShowFollows: true, Discoverable: true, PublicKeyPEM: pub, PrivateKeyPEM: priv}
	err = s.store.Update(ctx, func(tx store.Tx) error {
		if v, err := tx.Settings().Get(murlog.SettingSetupComplete); err == nil && v == "1" {
			return ErrDone
		} else if err != nil && murlog.ErrorCode(err) != murlog.ENotFound {
			return err
		}
		p.CreatedAt, p.UpdatedAt = tx.Now(), tx.Now()
		if err := tx.Personas().Create(p); err != nil {
			return err
		}
		if in.SiteName != "" {
			c := murlog.DefaultPubConfig(p.ID)
			c.SiteName, c.UpdatedAt = in.SiteName, tx.Now()
			if err := tx.PubConfigs().Put(c); err != nil {
				return err
			}
		}
		set := map[string]string{
			murlog.SettingDomain:        in.Domain,
			murlog.SettingPasswordHash:  hash,
			murlog.SettingSetupComplete: "1",
		}
		if in.Language != "" {
			set[settings.KeyLanguage] = in.Language
		}
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
	return p, nil
}

// Handle returns the primary persona's fediverse address, @user@domain.
func (s *Service) Handle(ctx context.Context) (string, error) {
	var h string
	err := s.store.View(ctx, func(tx store.Tx) error {
		p, err := tx.Personas().Primary()
		if err != nil {
			return err
		}
		d, err := tx.Settings().Get(murlog.SettingDomain)
		h = "@" + p.Username + "@" + d
		return err
	})
	return h, err
}
