package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/murlog/murlog"
)

// register adds a method whose params decode into P. Unknown parameters and
// wrong types are EInvalid errors (JSON-RPC -32602) naming the field.
func register[P any](s *Server, name string, a access, mutating bool, fn func(ctx context.Context, p *P) (any, error)) {
	if _, dup := s.methods[name]; dup {
		panic("api: method registered twice: " + name)
	}
	s.methods[name] = &method{access: a, mutating: mutating, call: func(ctx context.Context, raw json.RawMessage) (any, error) {
		p := new(P)
		if err := decodeParams(raw, p); err != nil {
			return nil, err
		}
		return fn(ctx, p)
	}}
}

// noParams is the params type of methods that take none.
type noParams struct{}

func decodeParams(raw json.RawMessage, dst any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, nullID) {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil {
		return nil
	}
	var me *murlog.Error
	if errors.As(err, &me) {
		return me
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return murlog.Invalid(te.Field, "must be %s, not %s", jsonKind(te.Type.String()), te.Value)
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return murlog.Invalid(strings.Trim(f, `"`), "unknown parameter")
	}
	return murlog.Invalid("params", "%s", strings.TrimPrefix(err.Error(), "json: "))
}

func jsonKind(goType string) string {
	switch {
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"), strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "string", strings.HasSuffix(goType, "Visibility"), strings.HasSuffix(goType, "PostKind"):
		return "a string"
	case goType == "bool":
		return "a boolean"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	}
	return "an object"
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

// parseTime reads an RFC 3339 timestamp parameter.
func parseTime(field, v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, murlog.Invalid(field, "must be an RFC 3339 time such as 2026-04-10T12:00:00Z, not %q", v)
	}
	return t, nil
}
