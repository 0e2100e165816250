// Package strictjson checks JSON bodies before anything decodes them, for
// the JSON-RPC API and the public read API alike, because encoding/json is
// lenient where a filter in front of us (or a reviewer reading a log) is
// not: it lets the last of duplicated keys win, matches keys
// case-insensitively and turns invalid UTF-8 and unpaired surrogate
// escapes into U+FFFD. Scan refuses all of that in one pass over the
// bytes, without allocating for well-formed input, and splits a batch into
// its elements and each top-level object into its members on the way.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/murlog/murlog"
)

// MaxDepth is how deeply a body may nest arrays and objects. The deepest
// real request is a batch of personas.update calls: batch, request,
// params, fields, field, which is five.
const MaxDepth = 32

// SyntaxError is a body that is not JSON at all; the whole request fails.
type SyntaxError struct {
	Msg     string
	TooDeep bool // nested more than MaxDepth
}

func (e *SyntaxError) Error() string { return e.Msg }

// Problem is something wrong inside one element that does not stop the
// scan: a duplicate key, invalid UTF-8, an unpaired surrogate. It is
// reported for that element alone, naming where it is.
type Problem struct {
	Path []PathElem
	Msg  string
}

// PathElem is an object key or an array index on the way to a value.
type PathElem struct {
	Key []byte // raw, quoted
	Idx int    // -1 for a key
}

// Where renders a path as params.fields[1].name.
func Where(path []PathElem) string {
	var b strings.Builder
	for _, p := range path {
		if p.Idx >= 0 {
			b.WriteString("[" + strconv.Itoa(p.Idx) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		k, _ := Unquote(p.Key)
		b.WriteString(strings.ToValidUTF8(k, "\uFFFD"))
	}
	return b.String()
}

// Element is one top-level value of a body: the whole body, or one
// element of a batch.
type Element struct {
	Raw      []byte
	IsObject bool
	Members  []Member // of the object, the first Scan's members of them
	Problem  *Problem // the first one found in the element
}

// Member is one key of a top-level object with its raw value.
type Member struct {
	Key []byte // raw, quoted
	Val []byte
}

// Check checks one JSON document (a top-level array is a value, not a
// batch) and returns nil, or an EInvalid saying what is wrong: on field
// "body" for a syntax error, else on the path of the problem, which its
// message names too, for clients that show only the message ("ids: is
// given twice (duplicate keys are refused)").
func Check(body []byte) error {
	s := &scanner{data: body, keep: 1, members: -1} // no members kept
	s.keys, s.path = s.keysBuf[:0], s.pathBuf[:0]
	var el Element
	err := s.element(&el, 0)
	if err == nil {
		s.ws()
		if s.pos < len(s.data) {
			err = s.syntax("unexpected data after the top-level value")
		}
	}
	var se *SyntaxError
	switch {
	case errors.As(err, &se):
		return murlog.Invalid("body", "%s", se.Msg)
	case err != nil:
		return err
	case el.Problem != nil:
		field := Where(el.Problem.Path)
		if field == "" {
			field = "body"
		}
		return murlog.Invalid(field, "%s: %s", field, el.Problem.Msg)
	}
	return nil
}

// scanner walks a body once. Keys of the open objects are kept on one
// stack shared by all of them, so checking for duplicates allocates only
// for keys written with escapes.
type scanner struct {
	data    []byte
	pos     int
	keep    int      // elements kept
	members int      // members kept of a top-level object
	el      *Element // the element being scanned
	path    []PathElem
	keys    [][]byte // decoded keys of the open objects

	keysBuf [8][]byte
	pathBuf [8]PathElem
}

// Scan checks body and returns its elements, how many there are and
// whether it is a batch (a top-level array). Only the first keep elements
// are kept, and of a top-level object only its first members members and
// one more (enough to refuse it for having too many): a 1 MiB body of
// "{}," would otherwise cost far more than itself to describe; the rest
// are checked and counted, so a limit can be named.
func Scan(body []byte, keep, members int) (elems []Element, n int, batch bool, err error) {
	s := &scanner{data: body, keep: keep, members: members}
	s.keys, s.path = s.keysBuf[:0], s.pathBuf[:0]
	s.ws()
	if s.pos >= len(s.data) {
		return nil, 0, false, &SyntaxError{Msg: "parse error: body is empty"}
	}
	if s.data[s.pos] == '[' {
		batch = true
		s.pos++
		s.ws()
		var extra Element
		if s.peek() == ']' {
			s.pos++
		} else {
			for {
				el := &extra
				if n < keep {
					elems = append(elems, Element{})
					el = &elems[n]
				} else {
					extra = Element{}
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
		elems, n = make([]Element, 1), 1
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

func (s *scanner) element(el *Element, depth int) error {
	s.ws()
	start := s.pos
	s.el = el
	el.IsObject = s.peek() == '{'
	if err := s.value(depth, el.IsObject); err != nil {
		return err
	}
	el.Raw = s.data[start:s.pos]
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
	return &SyntaxError{Msg: fmt.Sprintf("parse error: %s at byte %d", msg, s.pos)}
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
	if s.el == nil || s.el.Problem != nil {
		return
	}
	p := &Problem{Path: append([]PathElem(nil), s.path...), Msg: msg}
	if extra != nil {
		p.Path = append(p.Path, PathElem{Key: extra, Idx: -1})
	}
	s.el.Problem = p
}

// value scans one value at nesting depth (the number of arrays and objects
// around it). collect records the members of the top-level object.
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
	if depth > MaxDepth {
		return &SyntaxError{Msg: fmt.Sprintf("invalid request: nested too deeply (more than %d levels of arrays and objects)", MaxDepth), TooDeep: true}
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
			k, _ := Unquote(raw)
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
		s.path = append(s.path, PathElem{Key: raw, Idx: -1})
		err = s.value(depth, false)
		s.path = s.path[:len(s.path)-1]
		if err != nil {
			return err
		}
		if collect && len(s.el.Members) <= s.members {
			// One more than the object may have is enough to refuse
			// it; an attacker's 100,000 keys are not kept.
			if s.el.Members == nil {
				s.el.Members = make([]Member, 0, 4)
			}
			s.el.Members = append(s.el.Members, Member{Key: raw, Val: s.data[valStart:s.pos]})
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
		s.path = append(s.path, PathElem{Idx: i})
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

// Unquote decodes a scanned JSON string, quotes included.
func Unquote(raw []byte) (string, bool) {
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
