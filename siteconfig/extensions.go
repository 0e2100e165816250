package siteconfig

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/murlog/murlog"
)

// Limits of the extensions object (seed: 公開サイト設定).
const (
	// MaxExtensions is how many characters the stored JSON text may have:
	// the canonical compact encoding (see encode), counted in characters as
	// SQLite's length() counts them in the column's CHECK.
	MaxExtensions = 4096
	// MaxID is the length of a share button id or an analytics provider name.
	MaxID = 64
	// MaxMeasurementID bounds analytics.googleAnalytics.measurementId.
	MaxMeasurementID = 128
	// MaxDepth is how deeply the object may nest arrays and objects, the
	// top-level object being 1, so hostile input cannot exhaust the stack.
	MaxDepth = 8
	// maxInput bounds the text parsed at all: a value whose compact form
	// fits MaxExtensions may be written with \u escapes (six bytes a
	// character) and indentation, but not in more than this.
	maxInput = 64 << 10
)

// The comment modes of extensions.comments.mode.
const (
	CommentsNone      = "none"
	CommentsModerated = "moderated"
	CommentsOpen      = "open"
)

// checkExtensions parses and validates an extensions JSON text and returns
// its canonical compact encoding (the text to store) with its view. Every
// error is an EInvalid whose field is a path under "extensions", such as
// "extensions.shareButtons[2]".
func checkExtensions(raw []byte) (string, Extensions, error) {
	if len(raw) > maxInput {
		return "", Extensions{}, murlog.Invalid("extensions", "is too long: at most %d characters", MaxExtensions)
	}
	root, err := parseJSON(raw)
	if err != nil {
		return "", Extensions{}, err
	}
	if root.kind != '{' {
		return "", Extensions{}, murlog.Invalid("extensions", "must be a JSON object, not %s", root.kindName())
	}
	ext := Extensions{CommentsMode: CommentsNone, Raw: make(map[string]json.RawMessage, len(root.keys))}
	if v := root.get("shareButtons"); v != nil {
		if ext.ShareButtons, err = checkShareButtons(v); err != nil {
			return "", Extensions{}, err
		}
	}
	if v := root.get("comments"); v != nil {
		if ext.CommentsMode, err = checkComments(v); err != nil {
			return "", Extensions{}, err
		}
	}
	if v := root.get("analytics"); v != nil {
		if ext.GAMeasurementID, err = checkAnalytics(v); err != nil {
			return "", Extensions{}, err
		}
	}
	// One encoding serves both the stored text and the view's Raw values,
	// which are slices of it.
	var b strings.Builder
	b.Grow(len(raw))
	ends := encodeTop(&b, root)
	out := b.String()
	if n := utf8.RuneCountInString(out); n > MaxExtensions {
		return "", Extensions{}, murlog.Invalid("extensions", "is too long: %d characters once compacted; at most %d", n, MaxExtensions)
	}
	buf := []byte(out)
	for i, k := range root.keys {
		ext.Raw[k] = json.RawMessage(buf[ends[2*i]:ends[2*i+1]:ends[2*i+1]])
	}
	return out, ext, nil
}

func checkShareButtons(v *node) ([]string, error) {
	const f = "extensions.shareButtons"
	if v.kind != '[' {
		return nil, murlog.Invalid(f, "must be an array of share button ids, not %s", v.kindName())
	}
	ids := make([]string, 0, len(v.vals))
	for i, e := range v.vals {
		at := f + "[" + strconv.Itoa(i) + "]"
		if e.kind != '"' {
			return nil, murlog.Invalid(at, "must be a string, not %s", e.kindName())
		}
		if !ValidID(e.text) {
			return nil, murlog.Invalid(at, "%s is not a share button id: 1–%d of A–Z, a–z, 0–9, _ and -", quote(e.text), MaxID)
		}
		for j, prev := range ids {
			if prev == e.text {
				return nil, murlog.Invalid(at, "%s is listed twice (also at [%d])", quote(e.text), j)
			}
		}
		ids = append(ids, e.text)
	}
	return ids, nil
}

func checkComments(v *node) (string, error) {
	if v.kind != '{' {
		return "", murlog.Invalid("extensions.comments", "must be an object, not %s", v.kindName())
	}
	m := v.get("mode")
	if m == nil {
		return CommentsNone, nil
	}
	if m.kind != '"' {
		return "", murlog.Invalid("extensions.comments.mode", "must be a string, not %s", m.kindName())
	}
	switch m.text {
	case CommentsNone, CommentsModerated, CommentsOpen:
		return m.text, nil
	}
	return "", murlog.Invalid("extensions.comments.mode", "must be none, moderated or open, not %s", quote(m.text))
}

// checkAnalytics checks the provider names and Google Analytics' settings,
// trimming the measurement id in place; other providers' values are kept
// as they are. It returns the measurement id, "" for none.
func checkAnalytics(v *node) (string, error) {
	if v.kind != '{' {
		return "", murlog.Invalid("extensions.analytics", "must be an object, not %s", v.kindName())
	}
	for _, k := range v.keys {
		if !ValidID(k) {
			return "", murlog.Invalid("extensions.analytics", "has the provider name %s; names are 1–%d of A–Z, a–z, 0–9, _ and -", quote(k), MaxID)
		}
	}
	ga := v.get("googleAnalytics")
	if ga == nil {
		return "", nil
	}
	if ga.kind != '{' {
		return "", murlog.Invalid("extensions.analytics.googleAnalytics", "must be an object, not %s", ga.kindName())
	}
	id := ga.get("measurementId")
	if id == nil {
		return "", nil
	}
	const f = "extensions.analytics.googleAnalytics.measurementId"
	if id.kind != '"' {
		return "", murlog.Invalid(f, "must be a string, not %s", id.kindName())
	}
	id.text = strings.TrimSpace(id.text)
	if err := murlog.CheckName(f, id.text); err != nil {
		return "", err
	}
	if n := utf8.RuneCountInString(id.text); n > MaxMeasurementID {
		return "", murlog.Invalid(f, "must be at most %d characters, not %d", MaxMeasurementID, n)
	}
	return id.text, nil
}

// ValidID reports whether s is a share button id or an analytics provider
// name: 1–64 of A–Z, a–z, 0–9, _ and -. (A loop rather than a regexp: under
// CGI every package-level regexp is compiled on every request.)
func ValidID(s string) bool { return s != "" && len(s) <= MaxID && idChars(s) }

// ValidThemeName reports whether s may name a theme: at most 50 of A–Z,
// a–z, 0–9, _ and - ("" is the default theme). Whether it exists is the
// theme set's question.
func ValidThemeName(s string) bool { return len(s) <= MaxShort && idChars(s) }

func idChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// quote shows a value in a message, shortened so a 4,000-character id
// does not become a 4,000-character message.
func quote(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		r := []rune(s)
		s = string(r[:40]) + "…"
	}
	return strconv.Quote(s)
}
