package siteconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
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

// node is one parsed JSON value. Objects keep their keys in the order
// given, so a save re-encodes what the owner wrote, unknown keys included.
type node struct {
	kind byte   // '{', '[', '"', '0' (number), 't', 'f', 'n'
	text string // a string's value, a number's literal
	keys []string
	vals []*node // object values (by keys) or array elements
}

func (n *node) get(key string) *node {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// kindName names a JSON kind for messages.
func (n *node) kindName() string {
	switch n.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 'n':
		return "null"
	}
	return "a boolean"
}

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
	var b strings.Builder
	encode(&b, root)
	out := b.String()
	if n := utf8.RuneCountInString(out); n > MaxExtensions {
		return "", Extensions{}, murlog.Invalid("extensions", "is too long: %d characters once compacted; at most %d", n, MaxExtensions)
	}
	for i, k := range root.keys {
		var vb strings.Builder
		encode(&vb, root.vals[i])
		ext.Raw[k] = json.RawMessage(vb.String())
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

// parser is a strict JSON parser for the extensions object: it refuses
// what encoding/json lets through (duplicate keys, invalid UTF-8, unpaired
// surrogate escapes) and nesting deeper than MaxDepth, and keeps key order.
type parser struct {
	data []byte
	pos  int
	path []string // of the value being parsed, for messages
}

func parseJSON(data []byte) (*node, error) {
	p := &parser{data: data}
	if !utf8.Valid(data) {
		return nil, murlog.Invalid("extensions", "is not valid UTF-8")
	}
	p.ws()
	n, err := p.value(1)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos < len(p.data) {
		return nil, p.syntax("unexpected data after the object")
	}
	return n, nil
}

func (p *parser) field() string {
	return "extensions" + strings.Join(p.path, "")
}

func (p *parser) syntax(msg string) error {
	return murlog.Invalid(p.field(), "is not valid JSON: %s at byte %d", msg, p.pos)
}

func (p *parser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (*node, error) {
	if p.pos >= len(p.data) {
		return nil, p.syntax("unexpected end")
	}
	switch c := p.data[p.pos]; {
	case c == '{' || c == '[':
		if depth > MaxDepth {
			return nil, murlog.Invalid(p.field(), "nests arrays and objects more than %d levels deep", MaxDepth)
		}
		if c == '{' {
			return p.object(depth)
		}
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		return &node{kind: '"', text: s}, err
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(p.data[p.pos:], []byte(lit)) {
			p.pos += len(lit)
			return &node{kind: lit[0]}, nil
		}
	}
	return nil, p.syntax("expected a value")
}

func (p *parser) object(depth int) (*node, error) {
	n := &node{kind: '{'}
	p.pos++ // '{'
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	for {
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.syntax("expected a key string")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		if n.get(k) != nil {
			return nil, murlog.Invalid(p.field(), "has the key %s twice (duplicate keys are refused)", quote(k))
		}
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.syntax("expected ':'")
		}
		p.pos++
		p.ws()
		p.path = append(p.path, "."+k)
		v, err := p.value(depth + 1)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return nil, err
		}
		n.keys, n.vals = append(n.keys, k), append(n.vals, v)
		p.ws()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			return n, nil
		}
		return nil, p.syntax("expected ',' or '}'")
	}
}

func (p *parser) array(depth int) (*node, error) {
	n := &node{kind: '['}
	p.pos++ // '['
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return n, nil
	}
	for i := 0; ; i++ {
		p.ws()
		p.path = append(p.path, "["+strconv.Itoa(i)+"]")
		v, err := p.value(depth + 1)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return nil, err
		}
		n.vals = append(n.vals, v)
		p.ws()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return n, nil
		}
		return nil, p.syntax("expected ',' or ']'")
	}
}

// str parses a string at p.pos (the input is valid UTF-8 already).
func (p *parser) str() (string, error) {
	p.pos++ // '"'
	var b strings.Builder
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", p.syntax("control character in a string (escape it)")
		case c != '\\':
			b.WriteByte(c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.data) {
			break
		}
		e := p.data[p.pos+1]
		p.pos += 2
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.syntax("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				lo := rune(-1)
				if r < 0xDC00 && p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
					p.pos += 2
					if lo, ok = p.hex4(); !ok {
						return "", p.syntax("invalid \\u escape")
					}
				}
				if r = utf16.DecodeRune(r, lo); r == utf8.RuneError {
					return "", p.syntax("unpaired surrogate escape")
				}
			}
			b.WriteRune(r)
		default:
			return "", p.syntax("invalid escape")
		}
	}
	return "", p.syntax("unterminated string")
}

// hex4 reads the four hex digits of a \u escape at p.pos.
func (p *parser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 16)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(v), true
}

func (p *parser) number() (*node, error) {
	start := p.pos
	digits := func() bool {
		s := p.pos
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
		}
		return p.pos > s
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if !digits() {
		return nil, p.syntax("expected a digit")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if !digits() {
			return nil, p.syntax("expected a digit")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if !digits() {
			return nil, p.syntax("expected a digit")
		}
	}
	return &node{kind: '0', text: string(p.data[start:p.pos])}, nil
}

// encode writes n as compact JSON: no whitespace, keys in their order,
// numbers as written, strings with only the escapes JSON needs (quote,
// backslash, control characters) plus U+2028 and U+2029, so the stored
// text is also safe inside a script element's JSON. This is the canonical
// form the length limit measures.
func encode(b *strings.Builder, n *node) {
	switch n.kind {
	case '{':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			encodeString(b, k)
			b.WriteByte(':')
			encode(b, n.vals[i])
		}
		b.WriteByte('}')
	case '[':
		b.WriteByte('[')
		for i, v := range n.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			encode(b, v)
		}
		b.WriteByte(']')
	case '"':
		encodeString(b, n.text)
	case '0':
		b.WriteString(n.text)
	case 't':
		b.WriteString("true")
	case 'f':
		b.WriteString("false")
	default:
		b.WriteString("null")
	}
}

func encodeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
