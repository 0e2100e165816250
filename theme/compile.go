package theme

import (
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"

	"github.com/mailgun/raymond/v2/ast"
)

// The compiled evaluator.
//
// Why: raymond's evaluator is reflection-bound. Every {{field}} costs a
// MethodByName or two, strings.Title, a scan of the struct's tags, Str via
// fmt.Sprintf, and helpers run through reflect.Value.Call: about 0.9 ms and
// 2,600 allocations for a post page, over the budget. Raymond
// itself cannot change.
//
// So raymond stays the parser and the reference, and this file compiles
// the *ast.Program its parser returns (whitespace control and standalone
// lines already applied) into a tree of nodes, once per page template;
// eval.go runs the tree with raymond's lookup rules, resolving each path
// segment once per Go type it meets.
//
// It covers what murlog's themes use: content, {{x}} and {{{x}}} / {{& x}},
// paths with this, ., ../, a.b.c, @index, @first, @last, @key, @root and
// the "length" param helper, string, number and boolean literals, the
// blocks if, unless, each and with with {{else}} and {{else if …}} chains,
// (eq a b), {{> name}} and {{> name ctx}} with raymond's indentation of
// standalone partials, and comments. Anything else (other helpers, hash
// arguments, block parameters, sections without a helper, dynamic
// partials) makes compile fail, and the Set runs raymond's Exec for that
// template, as before. What only a value can show (a method, a func
// field, a slice as context, each over a map) makes the run decline, and
// the Set renders that page with raymond. Behaviour never depends on the
// compiler being complete; differential tests (compile_test.go and
// web/themes) require byte-identical output wherever it runs.

// errUnsupported wraps every reason compile gives.
var errUnsupported = errors.New("not supported by the compiled evaluator")

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUnsupported, fmt.Sprintf(format, args...))
}

// helperNames are the helpers a page template sees: raymond's global
// built-ins and eq. A one-part path with one of these names is a call.
var helperNames = map[string]bool{
	"if": true, "unless": true, "with": true, "each": true, "log": true, "lookup": true,
	"equal": true, "ifGt": true, "ifLt": true, "ifEq": true, "ifMatchesRegexStr": true,
	"pluralize": true, "eq": true,
}

// program is a compiled page template with its partials.
type program struct {
	body nodes
	hint atomic.Int64 // the last page's size, to size the next buffer
}

// exec renders ctx. Panics (a decline, a runtime error) become errors: the
// caller then runs raymond, which renders or reports its own error.
func (p *program) exec(ctx any) (out []byte, err error) {
	r := &runner{out: make([]byte, 0, p.hint.Load()+512)}
	r.ctx = append(r.ctxs[:0], reflect.ValueOf(ctx))
	r.frame = &r.root
	defer func() {
		if e := recover(); e != nil {
			out = nil
			if d, ok := e.(decline); ok {
				err = d
			} else {
				err = fmt.Errorf("compiled evaluator panic: %v", e)
			}
		}
	}()
	p.body.run(r)
	p.hint.Store(int64(len(r.out)))
	return r.out, nil
}

// compiler compiles one page template: partials by name, each compiled
// once (a partial including itself refers to its own node).
type compiler struct {
	sources  map[string]*ast.Program
	partials map[string]*partialBody
}

// compile compiles top with the partials it may name (the page's
// registered partials, as raymond would find them).
func compile(top *ast.Program, partials map[string]*ast.Program) (*program, error) {
	c := &compiler{sources: partials, partials: map[string]*partialBody{}}
	body, err := c.program(top)
	if err != nil {
		return nil, err
	}
	return &program{body: body}, nil
}

func (c *compiler) program(p *ast.Program) (nodes, error) {
	if p == nil {
		return nil, nil
	}
	if len(p.BlockParams) > 0 {
		return nil, unsupported("block parameters")
	}
	var out nodes
	for _, st := range p.Body {
		var n node
		var err error
		switch st := st.(type) {
		case *ast.ContentStatement:
			if st.Value != "" {
				n = content(st.Value)
			}
		case *ast.CommentStatement:
		case *ast.MustacheStatement:
			n, err = c.mustache(st)
		case *ast.BlockStatement:
			n, err = c.block(st)
		case *ast.PartialStatement:
			n, err = c.partial(st)
		default:
			err = unsupported("statement %T", st)
		}
		if err != nil {
			return nil, err
		}
		if n != nil {
			out = append(out, n)
		}
	}
	return out, nil
}

func (c *compiler) mustache(m *ast.MustacheStatement) (node, error) {
	e, err := c.expr(m.Expression)
	if err != nil {
		return nil, err
	}
	return &mustache{e: e, raw: m.Unescaped}, nil
}

func (c *compiler) block(b *ast.BlockStatement) (node, error) {
	e := b.Expression
	name := e.HelperName()
	switch name {
	case "if", "unless", "each", "with":
	default:
		return nil, unsupported("block %q", e.Canonical())
	}
	if len(e.Params) != 1 || e.Hash != nil {
		return nil, unsupported("#%s with %d parameters or a hash", name, len(e.Params))
	}
	arg, err := c.param(e.Params[0])
	if err != nil {
		return nil, err
	}
	then, err := c.program(b.Program)
	if err != nil {
		return nil, err
	}
	els, err := c.program(b.Inverse)
	if err != nil {
		return nil, err
	}
	switch name {
	case "if":
		return &ifNode{cond: arg, then: then, els: els}, nil
	case "unless":
		return &ifNode{cond: arg, then: els, els: then}, nil
	case "with":
		return &withNode{e: arg, then: then, els: els}, nil
	}
	return &eachNode{e: arg, then: then, els: els}, nil
}

func (c *compiler) partial(p *ast.PartialStatement) (node, error) {
	if _, ok := p.Name.(*ast.SubExpression); ok {
		return nil, unsupported("a dynamic partial")
	}
	name, ok := ast.HelperNameStr(p.Name)
	if !ok || name == "" {
		return nil, unsupported("partial name %s", p.Name)
	}
	if len(p.Params) > 1 || p.Hash != nil {
		return nil, unsupported("partial %s with %d parameters or a hash", name, len(p.Params))
	}
	n := &partialNode{indent: p.Indent}
	if len(p.Params) == 1 {
		arg, err := c.param(p.Params[0])
		if err != nil {
			return nil, err
		}
		n.arg = arg
	}
	body, ok := c.partials[name]
	if !ok {
		src, found := c.sources[name]
		if !found {
			return nil, unsupported("partial %q is not registered", name)
		}
		body = &partialBody{}
		c.partials[name] = body
		var err error
		if body.nodes, err = c.program(src); err != nil {
			return nil, err
		}
	}
	n.body = body
	return n, nil
}

// expr compiles the expression of a mustache or a subexpression, as
// raymond's VisitExpression evaluates it.
func (c *compiler) expr(e *ast.Expression) (expr, error) {
	if name := e.HelperName(); helperNames[name] {
		if name != "eq" || len(e.Params) != 2 || e.Hash != nil {
			return nil, unsupported("helper %s with %d parameters here", name, len(e.Params))
		}
		a, err := c.param(e.Params[0])
		if err != nil {
			return nil, err
		}
		b, err := c.param(e.Params[1])
		if err != nil {
			return nil, err
		}
		return &eqExpr{a: a, b: b}, nil
	}
	if len(e.Params) > 0 || e.Hash != nil {
		return nil, unsupported("parameters to %s, which is no helper", e.Canonical())
	}
	if lit, ok := e.LiteralStr(); ok {
		// raymond looks a literal up as a field of the current context.
		return &literalField{s: newSeg(lit)}, nil
	}
	if p := e.FieldPath(); p != nil {
		return c.path(p)
	}
	return nil, unsupported("expression %s", e)
}

// param compiles a helper or partial parameter (raymond's Accept on it).
func (c *compiler) param(n ast.Node) (expr, error) {
	switch n := n.(type) {
	case *ast.PathExpression:
		return c.path(n)
	case *ast.StringLiteral:
		return literal{reflect.ValueOf(n.Value)}, nil
	case *ast.NumberLiteral:
		return literal{reflect.ValueOf(n.Number())}, nil
	case *ast.BooleanLiteral:
		return literal{reflect.ValueOf(n.Value)}, nil
	case *ast.SubExpression:
		return c.expr(n.Expression)
	}
	return nil, unsupported("parameter %s", n)
}

func (c *compiler) path(p *ast.PathExpression) (expr, error) {
	if p.Data && len(p.Parts) == 0 {
		return nil, unsupported("data path %s", p.Original)
	}
	out := &pathExpr{data: p.Data, root: p.IsDataRoot(), depth: p.Depth}
	for _, part := range p.Parts {
		if len(part) >= 2 && part[0] == '[' && part[len(part)-1] == ']' {
			part = part[1 : len(part)-1]
		}
		out.parts = append(out.parts, newSeg(part))
	}
	return out, nil
}

// Nodes.

type node interface{ run(r *runner) }

type nodes []node

func (ns nodes) run(r *runner) {
	for _, n := range ns {
		n.run(r)
	}
}

type content string

func (c content) run(r *runner) { r.out = append(r.out, c...) }

type mustache struct {
	e   expr
	raw bool
}

func (m *mustache) run(r *runner) { r.write(m.e.eval(r), m.raw) }

// ifNode is #if, and #unless with its branches swapped.
type ifNode struct {
	cond      expr
	then, els nodes
}

func (n *ifNode) run(r *runner) {
	if isTrue(n.cond.eval(r)) {
		n.then.run(r)
	} else {
		n.els.run(r)
	}
}

type withNode struct {
	e         expr
	then, els nodes
}

func (n *withNode) run(r *runner) {
	v := n.e.eval(r)
	if !isTrue(v) {
		n.els.run(r)
		return
	}
	r.push(v)
	n.then.run(r)
	r.pop()
}

type eachNode struct {
	e         expr
	then, els nodes
}

func (n *eachNode) run(r *runner) {
	v := n.e.eval(r)
	if !isTrue(v) {
		n.els.run(r)
		return
	}
	switch v.Kind() {
	case reflect.Array, reflect.Slice:
	case reflect.Map, reflect.Struct:
		// raymond walks map keys in Go's random order and struct fields
		// by name: not mirrored.
		declinef("each over a %s", v.Kind())
	default:
		return // truthy but not a list: raymond's each writes nothing
	}
	f := r.newFrame()
	r.frame = f
	for i, l := 0, v.Len(); i < l; i++ {
		f.index, f.first, f.last = i, i == 0, i == l-1
		el := norm(v.Index(i))
		if el.IsValid() {
			r.push(el)
			n.then.run(r)
			r.pop()
		} else {
			n.then.run(r)
		}
	}
	r.dropFrame()
}

type partialBody struct{ nodes nodes }

type partialNode struct {
	arg    expr // nil: the current context
	body   *partialBody
	indent string
}

func (n *partialNode) run(r *runner) {
	pushed := false
	if n.arg != nil {
		if v := n.arg.eval(r); v.IsValid() {
			r.push(v)
			pushed = true
		}
	}
	start := len(r.out)
	n.body.nodes.run(r)
	if n.indent != "" {
		r.indentFrom(start, n.indent)
	}
	if pushed {
		r.pop()
	}
}

// Expressions: eval returns raymond's result as a value, invalid for nil.

type expr interface{ eval(r *runner) reflect.Value }

type literal struct{ v reflect.Value }

func (l literal) eval(*runner) reflect.Value { return l.v }

// literalField is {{"x"}} or {{1}}: raymond's evalField of the literal's
// text on the current context.
type literalField struct{ s *seg }

func (l *literalField) eval(r *runner) reflect.Value {
	return norm(r.field(r.ctx[len(r.ctx)-1], l.s))
}

type eqExpr struct{ a, b expr }

func (e *eqExpr) eval(r *runner) reflect.Value {
	return reflect.ValueOf(eqValues(e.a.eval(r), e.b.eval(r)))
}

// pathExpr is raymond's evalPathExpression.
type pathExpr struct {
	data, root bool
	depth      int
	parts      []*seg
}

func (p *pathExpr) eval(r *runner) reflect.Value {
	if p.root {
		// @root.x: the root context; raymond then tries the data frame
		// for "root", which no frame holds.
		v, _ := r.ctxPath(r.ctx[0], p.parts[1:])
		return v
	}
	if p.data {
		if v := r.data(p.depth, p.parts); v.IsValid() {
			return v
		}
	}
	return r.depthPath(p.depth, p.parts)
}
