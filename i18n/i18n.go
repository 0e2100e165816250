// Package i18n picks the user's language from Accept-Language and holds the
// message catalogs for the server-rendered pages (setup wizard, password
// reset). English and Japanese; English is the fallback.
package i18n

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Lang is a supported language.
type Lang string

const (
	En Lang = "en"
	Ja Lang = "ja"
)

// Negotiate returns the best supported language for an Accept-Language
// header, honouring q-values; English when nothing matches.
func Negotiate(header string) Lang {
	type pref struct {
		tag string
		q   float64
		i   int
	}
	var prefs []pref
	for i, part := range strings.Split(header, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if tag != "" && q > 0 {
			prefs = append(prefs, pref{strings.ToLower(tag), q, i})
		}
	}
	sort.SliceStable(prefs, func(a, b int) bool { return prefs[a].q > prefs[b].q })
	for _, p := range prefs {
		base, _, _ := strings.Cut(p.tag, "-")
		switch base {
		case "ja":
			return Ja
		case "en":
			return En
		}
	}
	return En
}

// T returns the message for key in lang, falling back to English and then
// to the key itself (which makes a missing translation visible in tests).
func T(lang Lang, key string) string {
	if m, ok := catalog()[key]; ok {
		if s, ok := m[lang]; ok {
			return s
		}
		if s, ok := m[En]; ok {
			return s
		}
	}
	return key
}

// Tf formats the message for key (see T) with args, as fmt.Sprintf does.
func Tf(lang Lang, key string, args ...any) string { return fmt.Sprintf(T(lang, key), args...) }

// Has reports whether key is in the catalog.
func Has(key string) bool { _, ok := catalog()[key]; return ok }
