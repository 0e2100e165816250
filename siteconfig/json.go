package siteconfig

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/murlog/murlog"
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

// parser is a strict JSON parser for the extensions object: it refuses
// what encoding/json lets through (duplicate keys, invalid UTF-8, unpaired
// surrogate escapes) and nesting deeper than MaxDepth, and keeps key order.
type parser struct {
	data []byte
	pos  int
	path []pathElem // of the value being parsed, for messages
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

// pathElem is an object key or, with key "" and idx ≥ 0, an array index.
type pathElem struct {
	key string
	idx int
}

// field names the value being parsed: extensions.analytics.x[2].
func (p *parser) field() string {
	var b strings.Builder
	b.WriteString("extensions")
	for _, e := range p.path {
		if e.idx >= 0 {
			b.WriteString("[" + strconv.Itoa(e.idx) + "]")
		} else {
			b.WriteString("." + e.key)
		}
	}
	return b.String()
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
		p.path = append(p.path, pathElem{key: k, idx: -1})
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
		p.path = append(p.path, pathElem{idx: i})
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
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			p.pos++
			return string(p.data[start : p.pos-1]), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	// Escapes (or an error): decode from the start.
	var b strings.Builder
	b.Write(p.data[start:p.pos])
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
	text := string(p.data[start:p.pos])
	// Readers decode numbers as float64; one beyond it (1e400) would make
	// them fail where this check passed.
	if _, err := strconv.ParseFloat(text, 64); err != nil {
		return nil, murlog.Invalid(p.field(), "has the number %s, which is out of range", quote(text))
	}
	return &node{kind: '0', text: text}, nil
}

// encodeTop encodes the object root and returns where each member's value
// starts and ends in the output.
func encodeTop(b *strings.Builder, root *node) []int {
	ends := make([]int, 0, 2*len(root.keys))
	b.WriteByte('{')
	for i, k := range root.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		encodeString(b, k)
		b.WriteByte(':')
		ends = append(ends, b.Len())
		encode(b, root.vals[i])
		ends = append(ends, b.Len())
	}
	b.WriteByte('}')
	return ends
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
