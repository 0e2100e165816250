package httpsig

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// This file is the part of RFC 8941 (Structured Field Values) that
// Signature-Input, Signature and Content-Digest need: dictionaries whose
// members are items or inner lists, with parameters, and the canonical
// serialisation RFC 9421 signs (@signature-params).

// Caps on a dictionary, so a hostile header costs little to refuse.
const (
	maxMembers = 16
	maxItems   = 32
	maxParams  = 16
)

// sfKind is the type of a bare item.
type sfKind int

const (
	sfInt sfKind = iota
	sfDecimal
	sfString
	sfToken
	sfBytes
	sfBool
)

type sfItem struct {
	kind  sfKind
	str   string // string, token, or the decimal's text
	num   int64
	bytes []byte
	flag  bool
}

type sfParam struct {
	key string
	val sfItem
}

// sfMember is one dictionary member: an item, or an inner list when list is
// true.
type sfMember struct {
	key    string
	list   bool
	item   sfItem
	items  []sfItem // an inner list; item i has the parameters itemPs[i]
	itemPs [][]sfParam
	params []sfParam
}

func (m sfMember) param(key string) (sfItem, bool) {
	for _, p := range m.params {
		if p.key == key {
			return p.val, true
		}
	}
	return sfItem{}, false
}

type sfParser struct {
	s   string
	pos int
}

func sfFail(what string) error { return fail("malformed " + what) }

// parseDictionary parses an RFC 8941 dictionary. what names the header for
// the error. A later duplicate key replaces an earlier one, as RFC 8941 says.
func parseDictionary(s, what string) ([]sfMember, error) {
	p := &sfParser{s: s}
	p.skipOWS()
	var out []sfMember
	for p.pos < len(p.s) {
		key, ok := p.key()
		if !ok {
			return nil, sfFail(what)
		}
		m := sfMember{key: key}
		if p.peek() == '=' {
			p.pos++
			if p.peek() == '(' {
				m.list = true
				if !p.innerList(&m) {
					return nil, sfFail(what)
				}
			} else {
				it, ok := p.bareItem()
				if !ok {
					return nil, sfFail(what)
				}
				m.item = it
			}
		} else {
			m.item = sfItem{kind: sfBool, flag: true}
		}
		params, ok := p.params()
		if !ok {
			return nil, sfFail(what)
		}
		m.params = params
		replaced := false
		for i := range out {
			if out[i].key == key {
				out[i], replaced = m, true
			}
		}
		if !replaced {
			if len(out) == maxMembers {
				return nil, fail(what + " has too many members")
			}
			out = append(out, m)
		}
		p.skipOWS()
		if p.pos == len(p.s) {
			break
		}
		if p.peek() != ',' {
			return nil, sfFail(what)
		}
		p.pos++
		p.skipOWS()
		if p.pos == len(p.s) {
			return nil, sfFail(what) // trailing comma
		}
	}
	return out, nil
}

func (p *sfParser) peek() byte {
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func (p *sfParser) skipOWS() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

func (p *sfParser) skipSP() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

// key is lcalpha / "*" followed by lcalpha, digits, "_", "-", ".", "*".
func (p *sfParser) key() (string, bool) {
	start := p.pos
	c := p.peek()
	if !(c >= 'a' && c <= 'z' || c == '*') {
		return "", false
	}
	p.pos++
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '*' {
			p.pos++
			continue
		}
		break
	}
	return p.s[start:p.pos], true
}

func (p *sfParser) innerList(m *sfMember) bool {
	p.pos++ // (
	for {
		p.skipSP()
		if p.peek() == ')' {
			p.pos++
			return true
		}
		if len(m.items) == maxItems {
			return false
		}
		it, ok := p.bareItem()
		if !ok {
			return false
		}
		ps, ok := p.params()
		if !ok {
			return false
		}
		m.items = append(m.items, it)
		m.itemPs = append(m.itemPs, ps)
		if c := p.peek(); c != ' ' && c != ')' {
			return false
		}
	}
}

func (p *sfParser) params() ([]sfParam, bool) {
	var out []sfParam
	for p.peek() == ';' {
		p.pos++
		p.skipSP()
		key, ok := p.key()
		if !ok {
			return nil, false
		}
		val := sfItem{kind: sfBool, flag: true}
		if p.peek() == '=' {
			p.pos++
			if val, ok = p.bareItem(); !ok {
				return nil, false
			}
		}
		replaced := false
		for i := range out {
			if out[i].key == key {
				out[i].val, replaced = val, true
			}
		}
		if !replaced {
			if len(out) == maxParams {
				return nil, false
			}
			out = append(out, sfParam{key: key, val: val})
		}
	}
	return out, true
}

func (p *sfParser) bareItem() (sfItem, bool) {
	c := p.peek()
	switch {
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == '"':
		return p.str()
	case c == ':':
		return p.byteSeq()
	case c == '?':
		p.pos++
		switch p.peek() {
		case '0', '1':
			b := p.peek() == '1'
			p.pos++
			return sfItem{kind: sfBool, flag: b}, true
		}
		return sfItem{}, false
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '*':
		return p.token()
	}
	return sfItem{}, false
}

func (p *sfParser) number() (sfItem, bool) {
	start := p.pos
	if p.peek() == '-' {
		p.pos++
	}
	digits, dot := 0, -1
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c >= '0' && c <= '9' {
			digits++
			p.pos++
		} else if c == '.' && dot < 0 {
			dot = digits
			p.pos++
		} else {
			break
		}
	}
	text := p.s[start:p.pos]
	if digits == 0 {
		return sfItem{}, false
	}
	if dot >= 0 {
		if dot > 12 || digits-dot > 3 || digits == dot {
			return sfItem{}, false
		}
		return sfItem{kind: sfDecimal, str: text}, true
	}
	if digits > 15 {
		return sfItem{}, false
	}
	n, err := strconv.ParseInt(text, 10, 64)
	return sfItem{kind: sfInt, num: n}, err == nil
}

func (p *sfParser) str() (sfItem, bool) {
	p.pos++ // "
	// Fast path: no escapes before the closing quote.
	if end := strings.IndexByte(p.s[p.pos:], '"'); end >= 0 {
		raw := p.s[p.pos : p.pos+end]
		if strings.IndexByte(raw, '\\') < 0 && printable(raw) {
			p.pos += end + 1
			return sfItem{kind: sfString, str: raw}, true
		}
	}
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		p.pos++
		switch {
		case c == '\\':
			if p.pos == len(p.s) {
				return sfItem{}, false
			}
			c = p.s[p.pos]
			p.pos++
			if c != '"' && c != '\\' {
				return sfItem{}, false
			}
			b.WriteByte(c)
		case c == '"':
			return sfItem{kind: sfString, str: b.String()}, true
		case c < 0x20 || c > 0x7e:
			return sfItem{}, false
		default:
			b.WriteByte(c)
		}
	}
	return sfItem{}, false
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func (p *sfParser) token() (sfItem, bool) {
	start := p.pos
	p.pos++
	for p.pos < len(p.s) && (isTchar(p.s[p.pos]) || p.s[p.pos] == ':' || p.s[p.pos] == '/') {
		p.pos++
	}
	return sfItem{kind: sfToken, str: p.s[start:p.pos]}, true
}

func isTchar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func (p *sfParser) byteSeq() (sfItem, bool) {
	p.pos++ // :
	end := strings.IndexByte(p.s[p.pos:], ':')
	if end < 0 {
		return sfItem{}, false
	}
	b, err := base64.StdEncoding.DecodeString(p.s[p.pos : p.pos+end])
	if err != nil {
		return sfItem{}, false
	}
	p.pos += end + 1
	return sfItem{kind: sfBytes, bytes: b}, true
}

// serialize writes the canonical form of an item (RFC 8941 §4.1).
func (it sfItem) serialize(b *strings.Builder) {
	switch it.kind {
	case sfInt:
		b.WriteString(strconv.FormatInt(it.num, 10))
	case sfDecimal, sfToken:
		b.WriteString(it.str)
	case sfString:
		b.WriteByte('"')
		for i := 0; i < len(it.str); i++ {
			if c := it.str[i]; c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(it.str[i])
		}
		b.WriteByte('"')
	case sfBytes:
		b.WriteByte(':')
		b.WriteString(base64.StdEncoding.EncodeToString(it.bytes))
		b.WriteByte(':')
	case sfBool:
		if it.flag {
			b.WriteString("?1")
		} else {
			b.WriteString("?0")
		}
	}
}

func serializeParams(b *strings.Builder, ps []sfParam) {
	for _, p := range ps {
		b.WriteByte(';')
		b.WriteString(p.key)
		if p.val.kind == sfBool && p.val.flag {
			continue
		}
		b.WriteByte('=')
		p.val.serialize(b)
	}
}

// serializeInnerList writes an inner list and its parameters: the value of
// @signature-params.
func (m sfMember) serializeInnerList() string {
	var b strings.Builder
	b.Grow(128)
	b.WriteByte('(')
	for i, it := range m.items {
		if i > 0 {
			b.WriteByte(' ')
		}
		it.serialize(&b)
		serializeParams(&b, m.itemPs[i])
	}
	b.WriteByte(')')
	serializeParams(&b, m.params)
	return b.String()
}
