package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/strictjson"
)

// register adds a method whose params decode into P. Unknown parameters,
// keys that differ from a parameter only in case, and wrong types are
// EInvalid errors (JSON-RPC -32602) naming the field.
func register[P any](s *Server, name string, a access, mutating bool, fn func(ctx context.Context, p *P) (any, error)) {
	if _, dup := s.methods[name]; dup {
		panic("api: method registered twice: " + name)
	}
	sch := schemaOf(reflect.TypeFor[P]())
	s.methods[name] = &method{access: a, mutating: mutating, exempt: lockdownExempt[name], call: func(ctx context.Context, raw json.RawMessage) (any, error) {
		p := new(P)
		if err := decodeParams(raw, sch, p); err != nil {
			return nil, err
		}
		return fn(ctx, p)
	}}
}

// noParams is the params type of methods that take none.
type noParams struct{}

// decodeParams decodes params, already checked by scan (no duplicate keys,
// valid UTF-8), into dst. Every key must be spelled exactly as sch names it:
// encoding/json alone would also accept "CONTENT" for "content".
func decodeParams(raw json.RawMessage, sch *schema, dst any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, nullID) {
		return nil
	}
	if err := sch.check(raw, ""); err != nil {
		return err
	}
	// sch.check has refused every key dst does not have, so plain
	// Unmarshal (cheaper than a Decoder) needs no DisallowUnknownFields.
	err := json.Unmarshal(raw, dst)
	if err == nil {
		return nil
	}
	var me *murlog.Error
	if errors.As(err, &me) {
		return me
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		f := te.Field
		if f == "" {
			f = "params"
		}
		if kind := jsonKind(te.Type); kind != "an integer" || !isIntLiteral(strings.TrimPrefix(te.Value, "number ")) {
			return murlog.Invalid(f, "must be %s", kind)
		}
		// An integer that does not fit the Go type: saying "must be an
		// integer" of 99999999999999999999999 would be wrong.
		return murlog.Invalid(f, "is out of range")
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return murlog.Invalid(strings.Trim(f, `"`), "unknown parameter")
	}
	return murlog.Invalid("params", "%s", strings.TrimPrefix(err.Error(), "json: "))
}

// isIntLiteral reports whether s is a JSON number without a fraction or
// an exponent.
func isIntLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// jsonKind names the JSON a Go type is decoded from, for messages such as
// "limit: must be an integer".
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// schema is the exact key names of a params type, nested: the fields of a
// struct, the element of a slice. Anything else takes any keys encoding/json
// accepts for it (none, for the types murlog uses).
type schema struct {
	fields map[string]*schema // a struct's members by their exact JSON name
	elem   *schema            // a slice's element
}

// valueTyper is implemented by wrappers such as Nullable whose JSON is that
// of another type.
type valueTyper interface{ valueType() reflect.Type }

var valueTyperType = reflect.TypeFor[valueTyper]()

func schemaOf(t reflect.Type) *schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(valueTyperType) {
		return schemaOf(reflect.New(t).Interface().(valueTyper).valueType())
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return &schema{elem: schemaOf(t.Elem())}
	case reflect.Struct:
		if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
			return nil
		}
		s := &schema{fields: map[string]*schema{}}
		addFields(s, t)
		return s
	}
	return nil
}

func addFields(s *schema, t reflect.Type) {
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			addFields(s, f.Type)
			continue
		}
		if name == "" {
			name = f.Name
		}
		s.fields[name] = schemaOf(f.Type)
	}
}

// check walks raw (valid JSON) and refuses keys sch does not name exactly.
// Values of the wrong kind are left to the decoder, which names them.
func (sch *schema) check(raw []byte, path string) error {
	if sch == nil || len(raw) == 0 {
		return nil
	}
	switch {
	case raw[0] == '{' && sch.fields != nil:
		return eachMember(raw, func(key string, val []byte) error {
			p := key
			if path != "" {
				p = path + "." + key
			}
			sub, ok := sch.fields[key]
			if !ok {
				for name := range sch.fields {
					if strings.EqualFold(name, key) {
						return murlog.Invalid(p, "unknown parameter; names are case-sensitive: did you mean %q?", name)
					}
				}
				return murlog.Invalid(p, "unknown parameter")
			}
			return sub.check(val, p)
		})
	case raw[0] == '[' && sch.elem != nil:
		return eachElement(raw, func(i int, val []byte) error { return sch.elem.check(val, path+"["+strconv.Itoa(i)+"]") })
	}
	return nil
}

// eachMember calls fn for the members of a valid JSON object.
func eachMember(raw []byte, fn func(key string, val []byte) error) error {
	r := reader{data: raw, pos: 1}
	for {
		r.ws()
		if r.data[r.pos] == '}' {
			return nil
		}
		if r.data[r.pos] == ',' {
			r.pos++
			r.ws()
		}
		k := r.skip()
		r.ws()
		r.pos++ // ':'
		r.ws()
		v := r.skip()
		key, _ := strictjson.Unquote(k)
		if err := fn(key, v); err != nil {
			return err
		}
	}
}

// eachElement calls fn for the elements of a valid JSON array.
func eachElement(raw []byte, fn func(i int, val []byte) error) error {
	r := reader{data: raw, pos: 1}
	for i := 0; ; i++ {
		r.ws()
		if r.data[r.pos] == ']' {
			return nil
		}
		if r.data[r.pos] == ',' {
			r.pos++
			r.ws()
		}
		if err := fn(i, r.skip()); err != nil {
			return err
		}
	}
}

// reader moves over JSON that scan has already validated.
type reader struct {
	data []byte
	pos  int
}

func (r *reader) ws() {
	for r.pos < len(r.data) && (r.data[r.pos] == ' ' || r.data[r.pos] == '\t' || r.data[r.pos] == '\n' || r.data[r.pos] == '\r') {
		r.pos++
	}
}

// skip returns the value at r.pos and moves past it.
func (r *reader) skip() []byte {
	start := r.pos
	switch r.data[r.pos] {
	case '"':
		r.skipString()
	case '{', '[':
		for depth := 0; ; {
			switch r.data[r.pos] {
			case '"':
				r.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			r.pos++
			if depth == 0 {
				break
			}
		}
	default: // a number or a literal
		for r.pos < len(r.data) && !strings.ContainsRune(",:}] \t\n\r", rune(r.data[r.pos])) {
			r.pos++
		}
	}
	return r.data[start:r.pos]
}

func (r *reader) skipString() {
	r.pos++ // '"'
	for r.data[r.pos] != '"' {
		if r.data[r.pos] == '\\' {
			r.pos++
		}
		r.pos++
	}
	r.pos++
}

// Nullable distinguishes a parameter that was omitted (Set false) from one
// sent as null (Null true) and one with a value, for fields where the three
// mean different things (published_at: now / draft / a time).
type Nullable[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// UnmarshalJSON is only called when the key is present.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	n.Set = true
	if bytes.Equal(b, nullID) {
		n.Null = true
		return nil
	}
	return json.Unmarshal(b, &n.Value)
}

func (n *Nullable[T]) valueType() reflect.Type { return reflect.TypeFor[T]() }

// maxOffset is the largest UTC offset RFC 3339 allows (±23:59); Go's
// parser accepts +24:00.
const maxOffset = 23*3600 + 59*60

// parseTime reads an RFC 3339 timestamp parameter.
func parseTime(field, v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if _, off := t.Zone(); err != nil || off > maxOffset || off < -maxOffset {
		return time.Time{}, murlog.Invalid(field, "must be an RFC 3339 time such as 2026-04-10T12:00:00Z (offsets within ±23:59), not %q", v)
	}
	return t, nil
}
