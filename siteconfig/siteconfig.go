// Package siteconfig holds each persona's public-site settings (seed:
// user_pub_configs): validation of every field and of the extensions JSON,
// the defaults a persona without a row reads as, and the owner's edits.
package siteconfig

import (
	"encoding/json"

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
// returns its view. "" reads as "{}".
//
// TODO(h-config): the validation.
func ParseExtensions(s string) (Extensions, error) {
	return Extensions{CommentsMode: "none"}, nil
}

// Load reads a persona's settings inside tx: the stored row, or the
// defaults when there is none. Extensions are validated after reading too;
// a stored value that no longer validates reads as "{}" and err names it
// (the caller logs it and goes on: a page never fails on it).
//
// TODO(h-config): the validation after reading.
func Load(tx store.Tx, personaID string) (*murlog.PubConfig, Extensions, error) {
	c, err := tx.PubConfigs().Get(personaID)
	if murlog.ErrorCode(err) == murlog.ENotFound {
		c, err = murlog.DefaultPubConfig(personaID), nil
	}
	if err != nil {
		return nil, Extensions{}, err
	}
	ext, _ := ParseExtensions(c.Extensions)
	return c, ext, nil
}
