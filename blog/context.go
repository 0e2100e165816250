package blog

import (
	"reflect"
	"strings"
)

// templateContext turns a page model into the maps raymond reads fastest.
// raymond looks a snake_case name up on a struct by boxing the whole
// struct and scanning its fields' tags, for every {{name}} (a 1 KB Page
// copied for each field of each post); on a map it is one index. The maps
// carry exactly the handlebars names of the model (a test checks), so a
// template cannot tell the difference.
//
// The field lists are found once per type and call: there is no shared
// state, and a page has about ten types.
func templateContext(p *Page) any {
	c := converter{types: make(map[reflect.Type][]tagField, 16)}
	return c.value(reflect.ValueOf(p))
}

type tagField struct {
	name  string
	index int
}

type converter struct{ types map[reflect.Type][]tagField }

func (c *converter) fields(t reflect.Type) []tagField {
	if fs, ok := c.types[t]; ok {
		return fs
	}
	fs := make([]tagField, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("handlebars"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fs = append(fs, tagField{name, i})
	}
	c.types[t] = fs
	return fs
}

func (c *converter) value(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return c.value(v.Elem())
	case reflect.Struct:
		fs := c.fields(v.Type())
		m := make(map[string]any, len(fs))
		for _, f := range fs {
			m[f.name] = c.value(v.Field(f.index))
		}
		return m
	case reflect.Slice:
		if v.Len() == 0 {
			return nil
		}
		switch v.Type().Elem().Kind() {
		case reflect.Struct, reflect.Pointer:
			out := make([]any, v.Len())
			for i := range out {
				out[i] = c.value(v.Index(i))
			}
			return out
		}
		return v.Interface()
	}
	return v.Interface()
}
