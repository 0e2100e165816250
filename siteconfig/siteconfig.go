// Package siteconfig holds each persona's public-site settings (seed:
// user_pub_configs): validation of every field and of the extensions JSON,
// the defaults a persona without a row reads as, and the owner's edits.
package siteconfig

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// Extensions is the parsed view of PubConfig.Extensions. Raw keeps every
// top-level key, known or not, so unknown keys survive a save.
type Extensions struct {
	ShareButtons    []string // valid ids as stored, in stored order; unknown ids kept (pages ignore them)
	CommentsMode    string   // "none" (also when unset), "moderated" or "open"
	GAMeasurementID string   // "" for none
	Raw             map[string]json.RawMessage
}

// ParseExtensions validates an extensions JSON text as the seed says and
// returns its view. "" reads as "{}". The limit of MaxExtensions
// characters applies to s itself, the text as stored.
func ParseExtensions(s string) (Extensions, error) {
	if s == "" {
		s = "{}"
	}
	if n := utf8.RuneCountInString(s); n > MaxExtensions {
		return Extensions{}, murlog.Invalid("extensions", "is too long: %d characters; at most %d", n, MaxExtensions)
	}
	_, ext, err := checkExtensions([]byte(s))
	return ext, err
}

// emptyExtensions is the view of "{}".
func emptyExtensions() Extensions {
	return Extensions{CommentsMode: CommentsNone, Raw: map[string]json.RawMessage{}}
}

// Load reads a persona's settings inside tx: the stored row, or the
// defaults when there is none. Extensions are validated after reading too;
// a stored value that no longer validates reads as "{}" and err names it
// (the caller logs it and goes on: a page never fails on it). So a nil
// config means the read failed; a config with an error means only the
// extensions were refused.
func Load(tx store.Tx, personaID string) (*murlog.PubConfig, Extensions, error) {
	c, err := tx.PubConfigs().Get(personaID)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		c, err = murlog.DefaultPubConfig(personaID), nil
	}
	if err != nil {
		return nil, Extensions{}, err
	}
	ext, err := ParseExtensions(c.Extensions)
	if err != nil {
		c.Extensions = "{}"
		return c, emptyExtensions(), fmt.Errorf("persona %s: stored site extensions refused, read as {}: %w", personaID, err)
	}
	return c, ext, nil
}
