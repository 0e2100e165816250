package theme

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/mailgun/raymond/v2"
)

// The run half of the compiled evaluator (compile.go has the why). Every
// function here mirrors a step of raymond's evalVisitor (eval.go,
// helper.go, string.go, utils.go of raymond v2.0.48) on reflect.Values,
// without its per-lookup MethodByName, strings.Title, tag scans, fmt and
// reflect.Value.Call. Where a value would take raymond somewhere this file
// does not follow (a method, a func field, a slice as context, each over a
// map or struct, a non-empty interface), the run panics with decline and
// the Set renders that page with raymond instead.

// decline is what the compiled evaluator panics with when it meets
// something it does not mirror; raymond then renders the page.
type decline struct{ why string }

func (d decline) Error() string { return "compiled evaluator declines: " + d.why }

func declinef(format string, args ...any) { panic(decline{fmt.Sprintf(format, args...)}) }

// frame is raymond's DataFrame as each uses it: the root frame is empty,
// an iteration's holds index, key (always nil here: each over a map or a
// struct declines), first and last.
type frame struct {
	parent      *frame
	iter        bool
	index       int
	first, last bool
}

// runner is one execution: the output, raymond's context stack (ctx[0] is
// the root) and the current data frame.
type runner struct {
	out   []byte
	ctx   []reflect.Value
	frame *frame
	root  frame
	// Room for the usual depth of contexts and of nested each, so that
	// neither allocates.
	ctxs   [16]reflect.Value
	frames [8]frame
	nf     int
}

// newFrame is an iteration frame under the current one.
func (r *runner) newFrame() *frame {
	var f *frame
	if r.nf < len(r.frames) {
		f = &r.frames[r.nf]
	} else {
		f = new(frame)
	}
	r.nf++
	*f = frame{parent: r.frame, iter: true}
	return f
}

func (r *runner) dropFrame() {
	r.frame = r.frame.parent
	r.nf--
}

func (r *runner) push(v reflect.Value) { r.ctx = append(r.ctx, v) }
func (r *runner) pop()                 { r.ctx = r.ctx[:len(r.ctx)-1] }

var (
	tString  = reflect.TypeFor[string]()
	tBool    = reflect.TypeFor[bool]()
	tInt     = reflect.TypeFor[int]()
	tInt64   = reflect.TypeFor[int64]()
	tFloat64 = reflect.TypeFor[float64]()
	tSafe    = reflect.TypeFor[raymond.SafeString]()
)

// indirect is raymond's: through pointers and empty interfaces, stopping
// at a nil one (returned, still valid) and at a non-empty interface.
func indirect(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return v
		}
		if v.Kind() == reflect.Interface && v.NumMethod() > 0 {
			break
		}
		v = v.Elem()
	}
	return v
}

// norm is what raymond's value.Interface() followed by reflect.ValueOf
// does to a value: an interface gives way to what it holds, a nil one to
// nothing (raymond's nil result).
func norm(v reflect.Value) reflect.Value {
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			return reflect.Value{}
		}
		return v.Elem()
	}
	return v
}

// isTrue is raymond's isTrueValue (IsTrue): empty strings, slices and maps,
// zero numbers, false and nil are false; structs are true.
func isTrue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Invalid:
		return false
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() > 0
	case reflect.Bool:
		return v.Bool()
	case reflect.Complex64, reflect.Complex128:
		return v.Complex() != 0
	case reflect.Chan, reflect.Func, reflect.Pointer, reflect.Interface:
		return !v.IsNil()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() != 0
	case reflect.Float32, reflect.Float64:
		return v.Float() != 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() != 0
	case reflect.Struct:
		return true
	}
	return false
}

// write appends v as raymond's VisitMustache does: Str of the value,
// escaped unless raw or a raymond.SafeString. The common types are
// formatted here as raymond's Str formats them (%d, 'f' -1, "true");
// anything else goes through raymond.Str itself.
func (r *runner) write(v reflect.Value, raw bool) {
	switch v.Kind() {
	case reflect.Invalid:
		return
	case reflect.String:
		switch v.Type() {
		case tString:
			if raw {
				r.out = append(r.out, v.String()...)
			} else {
				r.out = appendEscaped(r.out, v.String())
			}
			return
		case tSafe:
			r.out = append(r.out, v.String()...)
			return
		}
	case reflect.Bool:
		if v.Type() == tBool {
			r.out = strconv.AppendBool(r.out, v.Bool())
			return
		}
	case reflect.Int, reflect.Int64:
		if t := v.Type(); t == tInt || t == tInt64 {
			r.out = strconv.AppendInt(r.out, v.Int(), 10)
			return
		}
	case reflect.Float64:
		if v.Type() == tFloat64 {
			r.out = strconv.AppendFloat(r.out, v.Float(), 'f', -1, 64)
			return
		}
	}
	s := raymond.Str(v.Interface())
	if raw {
		r.out = append(r.out, s...)
	} else {
		r.out = appendEscaped(r.out, s)
	}
}

// escapedChars are the characters raymond.Escape replaces (escape.go).
const escapedChars = `&'<>"`

// appendEscaped appends s escaped exactly as raymond.Escape escapes it.
func appendEscaped(b []byte, s string) []byte {
	for {
		i := strings.IndexAny(s, escapedChars)
		if i < 0 {
			return append(b, s...)
		}
		b = append(b, s[:i]...)
		switch s[i] {
		case '&':
			b = append(b, "&amp;"...)
		case '\'':
			b = append(b, "&apos;"...)
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '"':
			b = append(b, "&quot;"...)
		}
		s = s[i+1:]
	}
}

// indentLines is raymond's, on the tail of the output a standalone
// partial wrote: indent before every line but an empty last one.
func (r *runner) indentFrom(start int, indent string) {
	if start == len(r.out) {
		return
	}
	tail := append([]byte(nil), r.out[start:]...)
	r.out = append(r.out[:start], indent...)
	for i, c := range tail {
		r.out = append(r.out, c)
		if c == '\n' && i < len(tail)-1 {
			r.out = append(r.out, indent...)
		}
	}
}

// How a path segment resolves on one type (raymond's evalField).
const (
	howNone      = iota // nothing: an invalid value
	howField            // struct field i
	howFieldPath        // promoted struct field, index
	howMap              // map key
	howIndex            // slice or array element
	howDecline          // a method raymond would call, or a value raymond panics on
)

type fieldRes struct {
	t     reflect.Type
	how   int
	i     int
	index []int
	why   string
}

// seg is one part of a path with, per type met, how it resolves: an
// inline cache written once per type, read without locks.
type seg struct {
	name, title string
	key         reflect.Value // name as a map key
	idx         int
	idxOK       bool
	cache       atomic.Pointer[[]fieldRes]
}

func newSeg(name string) *seg {
	s := &seg{name: name, title: strings.Title(name), key: reflect.ValueOf(name)} //nolint:staticcheck // raymond's own rule
	s.idx, s.idxOK = 0, false
	if i, err := strconv.Atoi(name); err == nil {
		s.idx, s.idxOK = i, true
	}
	return s
}

// maxTypes bounds a segment's cache; beyond it lookups resolve each time.
const maxTypes = 8

func (s *seg) lookup(t reflect.Type) *fieldRes {
	old := s.cache.Load()
	if old != nil {
		for i := range *old {
			if (*old)[i].t == t {
				return &(*old)[i]
			}
		}
	}
	res := resolve(t, s)
	if old == nil || len(*old) < maxTypes {
		var n []fieldRes
		if old != nil {
			n = append(n, *old...)
		}
		n = append(n, res)
		s.cache.CompareAndSwap(old, &n)
	}
	return &res
}

// resolve is evalField's decision for segment s on values of type t.
func resolve(t reflect.Type, s *seg) fieldRes {
	res := fieldRes{t: t}
	mt := t // the method set raymond's evalMethod can reach
	switch t.Kind() {
	case reflect.Interface:
		if t.NumMethod() > 0 {
			res.how, res.why = howDecline, "a non-empty interface "+t.String()
		}
		return res
	case reflect.Pointer:
	default:
		mt = reflect.PointerTo(t)
	}
	if _, ok := mt.MethodByName(s.name); ok {
		res.how, res.why = howDecline, "method "+s.name+" of "+t.String()
		return res
	}
	if _, ok := mt.MethodByName(s.title); ok {
		res.how, res.why = howDecline, "method "+s.title+" of "+t.String()
		return res
	}
	switch t.Kind() {
	case reflect.Struct:
		if f, ok := t.FieldByName(s.title); ok && f.PkgPath == "" {
			if len(f.Index) == 1 {
				res.how, res.i = howField, f.Index[0]
			} else {
				res.how, res.index = howFieldPath, f.Index
			}
			return res
		}
		for i := range t.NumField() {
			if f := t.Field(i); f.Tag.Get("handlebars") == s.name {
				if f.PkgPath != "" {
					res.how, res.why = howDecline, "unexported field "+f.Name
				} else {
					res.how, res.i = howField, i
				}
				return res
			}
		}
	case reflect.Map:
		if tString.AssignableTo(t.Key()) {
			res.how = howMap
		}
	case reflect.Array, reflect.Slice:
		if s.idxOK {
			if s.idx < 0 {
				res.how, res.why = howDecline, "a negative index"
			} else {
				res.how = howIndex
			}
		}
	}
	return res
}

// field is raymond's evalField of one segment on ctx.
func (r *runner) field(ctx reflect.Value, s *seg) reflect.Value {
	ctx = indirect(ctx)
	if !ctx.IsValid() {
		return ctx
	}
	res := s.lookup(ctx.Type())
	var v reflect.Value
	switch res.how {
	case howField:
		v = ctx.Field(res.i)
	case howFieldPath:
		var err error
		if v, err = ctx.FieldByIndexErr(res.index); err != nil {
			declinef("%s: %v", s.name, err)
		}
	case howMap:
		v = ctx.MapIndex(s.key)
	case howIndex:
		if s.idx < ctx.Len() {
			v = ctx.Index(s.idx)
		}
	case howDecline:
		declinef("%s", res.why)
	}
	if !v.IsValid() && s.name == "length" { // raymond's "length" param helper
		switch ctx.Kind() {
		case reflect.Array, reflect.Slice, reflect.Map, reflect.String:
			v = reflect.ValueOf(ctx.Len())
		}
	}
	v = indirect(v)
	switch v.Kind() {
	case reflect.Func:
		declinef("func %s", s.name)
	case reflect.Interface:
		if v.NumMethod() > 0 {
			declinef("a non-empty interface at %s", s.name)
		}
	}
	if v.IsValid() && !v.CanInterface() {
		declinef("%s is unexported", s.name)
	}
	return v
}

// ctxPath is raymond's evalCtxPath: the path on one context, and whether
// its first part resolved. A slice as context maps the path over its
// elements in raymond; that declines here.
func (r *runner) ctxPath(ctx reflect.Value, parts []*seg) (reflect.Value, bool) {
	if k := ctx.Kind(); k == reflect.Array || k == reflect.Slice {
		declinef("a list as context")
	}
	resolved := false
	for _, s := range parts {
		ctx = r.field(ctx, s)
		if !ctx.IsValid() {
			break
		}
		resolved = true
	}
	return norm(ctx), resolved
}

// depthPath is raymond's evalDepthPath: from the context depth levels up,
// each enclosing context in turn until one resolves the first part.
func (r *runner) depthPath(depth int, parts []*seg) reflect.Value {
	for {
		i := len(r.ctx) - 1 - depth
		if i < 0 || !r.ctx[i].IsValid() {
			return reflect.Value{}
		}
		if v, ok := r.ctxPath(r.ctx[i], parts); v.IsValid() || ok {
			return v
		}
		depth++
	}
}

// data is raymond's evalDataPathExpression on the frames each sets up.
// Every datum is an int, a bool or nil, so a second part never resolves.
func (r *runner) data(depth int, parts []*seg) reflect.Value {
	f := r.frame
	for ; depth > 0; depth-- {
		if f.parent == nil {
			return reflect.Value{}
		}
		f = f.parent
	}
	if len(parts) != 1 {
		return reflect.Value{}
	}
	switch parts[0].name {
	case "length": // the param helper on the frame's map: its size
		if f.iter {
			return reflect.ValueOf(4)
		}
		return reflect.ValueOf(0)
	}
	if !f.iter {
		return reflect.Value{}
	}
	switch parts[0].name {
	case "index":
		return reflect.ValueOf(f.index)
	case "first":
		return reflect.ValueOf(f.first)
	case "last":
		return reflect.ValueOf(f.last)
	}
	return reflect.Value{}
}

// eqValues is eq (render.go) on two values, without boxing the common
// cases: strings and bools of one type, numbers by value.
func eqValues(a, b reflect.Value) bool {
	if x, ok := numberValue(a); ok {
		y, ok := numberValue(b)
		return ok && x == y
	}
	if !a.IsValid() || !b.IsValid() {
		return a.IsValid() == b.IsValid()
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	}
	return eq(a.Interface(), b.Interface(), nil)
}

func numberValue(r reflect.Value) (float64, bool) {
	switch r.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(r.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(r.Uint()), true
	case reflect.Float32, reflect.Float64:
		return r.Float(), true
	}
	return 0, false
}
