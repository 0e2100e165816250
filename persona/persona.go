// Package persona manages the owner's identities: the primary persona made
// at setup, its profile and its signing key pair.
package persona

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/delivery"
	"github.com/murlog/murlog/store"
)

// Profile limits, in characters. They match what Mastodon accepts, so a
// profile federates without being cut.
const (
	MaxUsername    = 30
	MaxDisplayName = 100
	MaxSummary     = 2000
	MaxFieldName   = 255
	MaxFieldValue  = 2047
	MaxMediaPath   = 500
)

// usernameChars reports whether u is ASCII letters, digits and
// underscores only, and not empty (written out: no regexp built at start-up).
func usernameChars(u string) bool {
	for i := 0; i < len(u); i++ {
		c := u[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return u != ""
}

// ValidateUsername checks the local part of @username@domain: ASCII letters,
// digits and underscore, as Mastodon requires for WebFinger addresses.
func ValidateUsername(u string) error {
	if err := murlog.CheckName("username", u); err != nil {
		return err
	}
	if u == "" {
		return murlog.Required("username")
	}
	if len(u) > MaxUsername {
		return murlog.TooLong("username", "must be at most %d characters", MaxUsername)
	}
	if !usernameChars(u) {
		return murlog.Invalid("username", "may contain only letters a-z, digits and underscore")
	}
	return nil
}

// ValidateDisplayName checks a display name: one line, no control or
// bidirectional control characters, at most MaxDisplayName characters.
func ValidateDisplayName(s string) error {
	if err := murlog.CheckName("display_name", s); err != nil {
		return err
	}
	if utf8.RuneCountInString(s) > MaxDisplayName {
		return murlog.Invalid("display_name", "must be at most %d characters", MaxDisplayName)
	}
	return nil
}

// NewKeyPair returns a fresh RSA-2048 key pair as PEM (PKCS#8 private,
// PKIX public), the form ActivityPub servers expect in publicKeyPem.
func NewKeyPair() (publicPEM, privatePEM string, err error) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", err
	}
	priv, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return "", "", err
	}
	pub, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		return "", "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: priv})), nil
}

// Service reads and edits personas.
type Service struct {
	store store.Store
	media Images
}

// Images tells whether a media reference names an image murlog serves
// (*mediadir.Dir): an avatar_path or header_path that does not is refused,
// so no page or document ever points at a missing image.
type Images interface {
	Image(ref string) (mediaType string, err error)
}

// New returns a Service.
func New(st store.Store) *Service { return &Service{store: st} }

// WithImages returns s checking avatar and header paths against img.
// Without it (tests of other things) paths are checked for form only.
func (s *Service) WithImages(img Images) *Service {
	c := *s
	c.media = img
	return &c
}

// Get returns a persona by id.
func (s *Service) Get(ctx context.Context, id string) (*murlog.Persona, error) {
	if !murlog.ValidID(id) {
		return nil, murlog.Invalid("id", "is not a valid id")
	}
	var p *murlog.Persona
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		p, err = tx.Personas().Get(id)
		return err
	})
	return p, err
}

// Primary returns the primary persona.
func (s *Service) Primary(ctx context.Context) (*murlog.Persona, error) {
	var p *murlog.Persona
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		p, err = tx.Personas().Primary()
		return err
	})
	return p, err
}

// List returns every persona, the primary first.
func (s *Service) List(ctx context.Context) ([]*murlog.Persona, error) {
	var ps []*murlog.Persona
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		ps, err = tx.Personas().List()
		return err
	})
	return ps, err
}

// Update is a partial profile edit: nil fields stay as they are.
type Update struct {
	ID           string
	DisplayName  *string
	Summary      *string
	Fields       *[]murlog.Field // replaces all fields; empty slice clears
	AvatarPath   *string         // "" removes the image
	HeaderPath   *string
	Locked       *bool
	ShowFollows  *bool
	Discoverable *bool
}

// Update applies u and returns the updated persona.
func (s *Service) Update(ctx context.Context, u Update) (*murlog.Persona, error) {
	if !murlog.ValidID(u.ID) {
		return nil, murlog.Invalid("id", "is not a valid id")
	}
	if err := u.validate(); err != nil {
		return nil, err
	}
	if err := s.checkImages(u); err != nil {
		return nil, err
	}
	var p *murlog.Persona
	err := s.store.Update(ctx, func(tx store.Tx) error {
		var err error
		p, err = tx.Personas().Get(u.ID)
		if err != nil {
			return err
		}
		before := *p
		set(&p.DisplayName, u.DisplayName, strings.TrimSpace)
		set(&p.Summary, u.Summary, strings.TrimSpace)
		set(&p.AvatarPath, u.AvatarPath, strings.TrimSpace)
		set(&p.HeaderPath, u.HeaderPath, strings.TrimSpace)
		if u.Fields != nil {
			p.Fields = append([]murlog.Field{}, (*u.Fields)...)
		}
		setBool(&p.Locked, u.Locked)
		setBool(&p.ShowFollows, u.ShowFollows)
		setBool(&p.Discoverable, u.Discoverable)
		p.UpdatedAt = tx.Now()
		if err := tx.Personas().Update(p); err != nil {
			return err
		}
		if !federatedChange(&before, p) {
			return nil
		}
		// Followers' servers keep a copy of the profile: tell them.
		return tx.Jobs().Enqueue(delivery.ActorJob(delivery.ActorPayload{PersonaID: p.ID, Version: delivery.Version(p.UpdatedAt)}))
	})
	return p, err
}

// federatedChange reports whether an edit changed what the actor
// document shows other servers. ShowFollows only hides the collections'
// items, which are fetched, not pushed.
func federatedChange(a, b *murlog.Persona) bool {
	return a.DisplayName != b.DisplayName || a.Summary != b.Summary || a.AvatarPath != b.AvatarPath ||
		a.HeaderPath != b.HeaderPath || a.Locked != b.Locked || a.Discoverable != b.Discoverable ||
		!slices.Equal(a.Fields, b.Fields)
}

func (u *Update) validate() error {
	if u.DisplayName != nil {
		v := strings.TrimSpace(*u.DisplayName)
		u.DisplayName = &v
		if err := ValidateDisplayName(v); err != nil {
			return err
		}
	}
	if u.Summary != nil {
		v, err := murlog.CheckText("summary", *u.Summary)
		if err != nil {
			return err
		}
		if utf8.RuneCountInString(v) > MaxSummary {
			return murlog.Invalid("summary", "must be at most %d characters", MaxSummary)
		}
		u.Summary = &v
	}
	if u.Fields != nil {
		fs := *u.Fields
		if len(fs) > murlog.MaxPersonaFields {
			return murlog.Invalid("fields", "at most %d fields", murlog.MaxPersonaFields)
		}
		for i := range fs {
			fs[i].Name, fs[i].Value = strings.TrimSpace(fs[i].Name), strings.TrimSpace(fs[i].Value)
			if err := murlog.CheckName("fields", fs[i].Name); err != nil {
				return murlog.Invalid("fields", "field %d name %s", i+1, murlog.ErrorMessage(err))
			}
			v, err := murlog.CheckText("fields", fs[i].Value)
			if err != nil {
				return murlog.Invalid("fields", "field %d value %s", i+1, murlog.ErrorMessage(err))
			}
			fs[i].Value = v
			if fs[i].Name == "" {
				return murlog.Invalid("fields", "field %d needs a name", i+1)
			}
			if utf8.RuneCountInString(fs[i].Name) > MaxFieldName || utf8.RuneCountInString(fs[i].Value) > MaxFieldValue {
				return murlog.Invalid("fields", "field %d is too long (name ≤ %d, value ≤ %d characters)", i+1, MaxFieldName, MaxFieldValue)
			}
		}
	}
	for _, m := range []struct {
		name string
		v    *string
	}{{"avatar_path", u.AvatarPath}, {"header_path", u.HeaderPath}} {
		if m.v == nil {
			continue
		}
		if _, err := murlog.CheckText(m.name, *m.v); err != nil {
			return err
		}
		if len(*m.v) > MaxMediaPath || strings.Contains(*m.v, "..") || strings.HasPrefix(*m.v, "/") {
			return murlog.Invalid(m.name, "must be a media path such as avatars/abc.png")
		}
	}
	return nil
}

// checkImages refuses an avatar or header path that names no image in
// the media directory ("" removes the image and is always fine).
func (s *Service) checkImages(u Update) error {
	if s.media == nil {
		return nil
	}
	for _, m := range []struct {
		name string
		v    *string
	}{{"avatar_path", u.AvatarPath}, {"header_path", u.HeaderPath}} {
		if m.v == nil || strings.TrimSpace(*m.v) == "" {
			continue
		}
		if _, err := s.media.Image(strings.TrimSpace(*m.v)); err != nil {
			return murlog.Invalid(m.name, "names no image in the media directory (PNG, JPEG, GIF, WebP or AVIF): %s", murlog.ErrorMessage(err))
		}
	}
	return nil
}

func set(dst *string, v *string, clean func(string) string) {
	if v != nil {
		*dst = clean(*v)
	}
}

func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}
