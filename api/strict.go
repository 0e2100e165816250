package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth is how deeply a request body may nest arrays and objects. The
// deepest real request is a batch of personas.update calls: batch, request,
// params, fields, field, which is five.
const maxDepth = 32

// The request body is checked by scan before anything decodes it, because
// encoding/json is lenient where a filter in front of us (or a reviewer
// reading a log) is not: it lets the last of duplicated keys win, matches
// keys case-insensitively and turns invalid UTF-8 and unpaired surrogate
// escapes into U+FFFD. scan refuses all of that in one pass over the bytes,
// without allocating for well-formed input, and splits a batch into its
// elements and each request object into its members on the way.

// syntaxError is a body that is not JSON at all; the whole request fails.
type syntaxError struct {
	msg     string
	tooDeep bool
}

func (e *syntaxError) Error() string { return e.msg }

// problem is something wrong inside one request object that does not stop
// the scan: a duplicate key, invalid UTF-8, an unpaired surrogate. It is
// reported for that call alone, naming where it is.
type problem struct {
	path []pathElem
	msg  string
}

// pathElem is an object key or an array index on the way to a value.
type pathElem struct {
	key []byte
	idx int // -1 for a key
}

// where renders a path as params.fields[1].name.
func where(path []pathElem) string {
	var b strings.Builder
	for _, p := range path {
		if p.idx >= 0 {
			b.WriteString("[" + strconv.Itoa(p.idx) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		k, _ := unquote(p.key)
		b.WriteString(strings.ToValidUTF8(k, "\uFFFD"))
	}
	return b.String()
}

// element is one request of a body: the whole body for a single call, or
// one element of a batch.
type element struct {
	raw      []byte
	isObject bool
	members  []member // of the request object
	prob     *problem
}

// member is one key of a request object with its raw value.
type member struct {
	key []byte // raw, quoted
	val []byte
}

// scanner walks a body once. Keys of the open objects are kept on one
// stack shared by all of them, so checking for duplicates allocates only
// for keys written with escapes.
type scanner struct {
	data []byte
	pos  int
	el   *element // the element being scanned
	path []pathElem
	keys [][]byte // decoded keys of the open objects

	keysBuf [8][]byte
	pathBuf [8]pathElem
}

// scan checks body and returns its elements, how many there are and
// whether it is a batch. Only the first MaxBatch elements are kept: a 1 MiB
// body of "{}," would otherwise cost far more than itself to describe; the
// rest are checked and counted, so the limit can be named.
func scan(body []byte) (elems []element, n int, batch bool, err error) {
	s := &scanner{data: body}
	s.keys, s.path = s.keysBuf[:0], s.pathBuf[:0]
	s.ws()
	if s.pos >= len(s.data) {
		return nil, 0, false, &syntaxError{msg: "parse error: body is empty"}
	}
	if s.data[s.pos] == '[' {
		batch = true
		s.pos++
		s.ws()
		var extra element
		if s.peek() == ']' {
			s.pos++
		} else {
			for {
				el := &extra
				if n < MaxBatch {
					elems = append(elems, element{})
					el = &elems[n]
				} else {
					extra = element{}
				}
				n++
				if err := s.element(el, 1); err != nil {
					return nil, n, true, err
				}
				s.ws()
				if s.peek() == ',' {
					s.pos++
					continue
				}
				if err := s.expect(']'); err != nil {
					return nil, n, true, err
				}
				break
			}
		}
	} else {
		elems, n = make([]element, 1), 1
		if err := s.element(&elems[0], 0); err != nil {
			return nil, n, false, err
		}
	}
	s.ws()
	if s.pos < len(s.data) {
		return nil, n, batch, s.syntax("unexpected data after the top-level value")
	}
	return elems, n, batch, nil
}

func (s *scanner) element(el *element, depth int) error {
	s.ws()
	start := s.pos
	s.el = el
	el.isObject = s.peek() == '{'
	if err := s.value(depth, el.isObject); err != nil {
		return err
	}
	el.raw = s.data[start:s.pos]
	return nil
}

func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) syntax(msg string) error {
	return &syntaxError{msg: fmt.Sprintf("parse error: %s at byte %d", msg, s.pos)}
}

func (s *scanner) expect(c byte) error {
	s.ws()
	if s.peek() != c {
		return s.unexpected(fmt.Sprintf("expected %q", c))
	}
	s.pos++
	return nil
}

func (s *scanner) unexpected(want string) error {
	if s.pos >= len(s.data) {
		return s.syntax("unexpected end of JSON, " + want)
	}
	switch c := s.data[s.pos]; {
	case bytes.HasPrefix(s.data[s.pos:], []byte("\xef\xbb\xbf")):
		return s.syntax("unexpected byte order mark U+FEFF (send JSON without one), " + want)
	case c >= 0x20 && c < 0x7f:
		return s.syntax(fmt.Sprintf("unexpected %q, %s", c, want))
	default:
		// %q of a byte outside printable ASCII would show it as a Latin-1
		// character ('ï' as 'ï'), which is not what was sent.
		return s.syntax(fmt.Sprintf("unexpected byte 0x%02X, %s", c, want))
	}
}

// report records the first problem of the current element at path+extra.
func (s *scanner) report(extra []byte, msg string) {
	if s.el == nil || s.el.prob != nil {
		return
	}
	p := &problem{path: append([]pathElem(nil), s.path...), msg: msg}
	if extra != nil {
		p.path = append(p.path, pathElem{key: extra, idx: -1})
	}
	s.el.prob = p
}

// value scans one value at nesting depth (the number of arrays and objects
// around it). collect records the members of the request object.
func (s *scanner) value(depth int, collect bool) error {
	s.ws()
	switch c := s.peek(); {
	case c == '{':
		return s.object(depth+1, collect)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		_, err := s.str()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.unexpected("expected a value")
}

func (s *scanner) tooDeep(depth int) error {
	if depth > maxDepth {
		return &syntaxError{msg: fmt.Sprintf("invalid request: nested too deeply (more than %d levels of arrays and objects)", maxDepth), tooDeep: true}
	}
	return nil
}

func (s *scanner) object(depth int, collect bool) error {
	if err := s.tooDeep(depth); err != nil {
		return err
	}
	s.pos++ // '{'
	base := len(s.keys)
	defer func() { s.keys = s.keys[:base] }()
	var set map[string]struct{} // the keys, once there are many
	s.ws()
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		s.ws()
		if s.peek() != '"' {
			return s.unexpected("expected a key string")
		}
		keyStart := s.pos
		escaped, err := s.str()
		if err != nil {
			return err
		}
		raw := s.data[keyStart:s.pos]
		key := raw[1 : len(raw)-1]
		if escaped {
			k, _ := unquote(raw)
			key = []byte(k)
		}
		if s.seen(base, &set, key) {
			s.report(raw, "is given twice (duplicate keys are refused)")
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		s.ws()
		valStart := s.pos
		s.path = append(s.path, pathElem{key: raw, idx: -1})
		err = s.value(depth, false)
		s.path = s.path[:len(s.path)-1]
		if err != nil {
			return err
		}
		if collect && len(s.el.members) <= maxMembers {
			// One more than a request object may have is enough to
			// refuse it; an attacker's 100,000 keys are not kept.
			if s.el.members == nil {
				s.el.members = make([]member, 0, 4)
			}
			s.el.members = append(s.el.members, member{key: raw, val: s.data[valStart:s.pos]})
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.unexpected("expected ',' or '}'")
		}
	}
}

// maxMembers is how many members a request object has at most (jsonrpc,
// method, params, id).
const maxMembers = 4

// fewKeys is how many keys of one object are compared one by one; past it
// they go into a map, so an object with 100,000 keys costs linear time.
const fewKeys = 16

// seen reports whether key was already a key of the object whose keys
// start at s.keys[base], and records it.
func (s *scanner) seen(base int, set *map[string]struct{}, key []byte) bool {
	if *set != nil {
		if _, dup := (*set)[string(key)]; dup {
			return true
		}
		(*set)[string(key)] = struct{}{}
		return false
	}
	for _, k := range s.keys[base:] {
		if bytes.Equal(k, key) {
			return true
		}
	}
	s.keys = append(s.keys, key)
	if len(s.keys)-base > fewKeys {
		*set = make(map[string]struct{}, 2*fewKeys)
		for _, k := range s.keys[base:] {
			(*set)[string(k)] = struct{}{}
		}
		s.keys = s.keys[:base]
	}
	return false
}

func (s *scanner) array(depth int) error {
	if err := s.tooDeep(depth); err != nil {
		return err
	}
	s.pos++ // '['
	s.ws()
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for i := 0; ; i++ {
		s.path = append(s.path, pathElem{idx: i})
		err := s.value(depth, false)
		s.path = s.path[:len(s.path)-1]
		if err != nil {
			return err
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.unexpected("expected ',' or ']'")
		}
	}
}

// str scans a string and reports whether it holds escapes. Invalid UTF-8
// and unpaired surrogate escapes are problems of the element, named by the
// byte offset, since encoding/json would silently replace them.
func (s *scanner) str() (escaped bool, err error) {
	start := s.pos
	s.pos++ // '"'
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return escaped, nil
		case c == '\\':
			escaped = true
			if err := s.escape(); err != nil {
				return escaped, err
			}
		case c < 0x20:
			return escaped, s.syntax("control character in a string (escape it)")
		case c < utf8.RuneSelf:
			s.pos++
		default:
			r, size := utf8.DecodeRune(s.data[s.pos:])
			if r == utf8.RuneError && size == 1 {
				s.report(nil, fmt.Sprintf("is not valid UTF-8 (byte %d of the request body)", s.pos))
			}
			s.pos += size
		}
	}
	s.pos = start
	return escaped, s.syntax("unterminated string")
}

func (s *scanner) escape() error {
	at := s.pos
	s.pos++ // '\\'
	switch s.peek() {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.pos++
		return nil
	case 'u':
	default:
		return s.unexpected("expected an escape character")
	}
	r, ok := s.hex4()
	if !ok {
		return s.syntax("invalid \\u escape")
	}
	switch {
	case r >= 0xD800 && r < 0xDC00:
		// A high surrogate must be followed by a low one.
		if s.pos+1 < len(s.data) && s.data[s.pos] == '\\' && s.data[s.pos+1] == 'u' {
			s.pos++
			if lo, ok := s.hex4(); ok && lo >= 0xDC00 && lo < 0xE000 {
				return nil
			} else if !ok {
				return s.syntax("invalid \\u escape")
			}
		}
		s.report(nil, fmt.Sprintf("has an unpaired surrogate escape \\u%04X (byte %d of the request body)", r, at))
	case r >= 0xDC00 && r < 0xE000:
		s.report(nil, fmt.Sprintf("has an unpaired surrogate escape \\u%04X (byte %d of the request body)", r, at))
	}
	return nil
}

// hex4 reads "uXXXX" at s.pos.
func (s *scanner) hex4() (rune, bool) {
	if s.pos+5 > len(s.data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.data[s.pos+1:s.pos+5]), 16, 16)
	if err != nil {
		return 0, false
	}
	s.pos += 5
	return rune(v), true
}

func (s *scanner) number() error {
	d := s.data
	if s.peek() == '-' {
		s.pos++
	}
	switch c := s.peek(); {
	case c == '0':
		s.pos++
	case c >= '1' && c <= '9':
		for s.pos < len(d) && d[s.pos] >= '0' && d[s.pos] <= '9' {
			s.pos++
		}
	default:
		return s.unexpected("expected a digit")
	}
	if s.peek() == '.' {
		s.pos++
		if !s.digits() {
			return s.unexpected("expected a digit")
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.pos++
		if c := s.peek(); c == '+' || c == '-' {
			s.pos++
		}
		if !s.digits() {
			return s.unexpected("expected a digit")
		}
	}
	return nil
}

func (s *scanner) digits() bool {
	start := s.pos
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	return s.pos > start
}

func (s *scanner) literal(lit string) error {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(lit)) {
		return s.unexpected("expected a value")
	}
	s.pos += len(lit)
	return nil
}

// unquote decodes a scanned JSON string, quotes included.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}
