package theme

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/mailgun/raymond/v2/ast"
)

// A compact binary form of raymond's parse tree, for the parse cache
// (parsecache.go). A CGI process renders one page and exits, so without
// it every request would tokenize its templates again: raymond's lexer
// costs ~2 ms of a post page, decoding the same tree ~0.1 ms.
//
// The form is a pre-order walk: one tag byte per node (its ast.NodeType,
// or tagNil), then its fields in declaration order; ints as varints,
// strings as a length and bytes, floats as their IEEE bits. The decoder
// trusts nothing: every tag, length and count is checked against what
// is left, so a truncated or corrupt entry is an error (and the template
// is parsed again), never a panic or a huge allocation.

const (
	astMagic = "mrlgast1"
	tagNil   = 0xFF
	// maxASTDepth bounds the decoder's recursion; raymond's own trees of
	// the shipped themes are under 20 deep.
	maxASTDepth = 200
)

var errAST = errors.New("theme: corrupt parse cache entry")

// encodeAST returns prog in the binary form.
func encodeAST(prog *ast.Program) []byte {
	e := &astEncoder{b: append(make([]byte, 0, 4096), astMagic...)}
	e.program(prog)
	return e.b
}

type astEncoder struct{ b []byte }

func (e *astEncoder) tag(t ast.NodeType) { e.b = append(e.b, byte(t)) }
func (e *astEncoder) int(i int)          { e.b = binary.AppendVarint(e.b, int64(i)) }
func (e *astEncoder) count(n int)        { e.b = binary.AppendUvarint(e.b, uint64(n)) }
func (e *astEncoder) str(s string)       { e.b = append(binary.AppendUvarint(e.b, uint64(len(s))), s...) }
func (e *astEncoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}
func (e *astEncoder) nilTag() { e.b = append(e.b, tagNil) }
func (e *astEncoder) loc(l ast.Loc) {
	e.int(l.Pos)
	e.int(l.Line)
}

func (e *astEncoder) strs(ss []string) {
	if ss == nil {
		e.nilTag()
		return
	}
	e.b = append(e.b, 0)
	e.count(len(ss))
	for _, s := range ss {
		e.str(s)
	}
}

func (e *astEncoder) strip(s *ast.Strip) {
	if s == nil {
		e.nilTag()
		return
	}
	var f byte
	for i, v := range []bool{s.Open, s.Close, s.OpenStandalone, s.CloseStandalone, s.InlineStandalone} {
		if v {
			f |= 1 << i
		}
	}
	e.b = append(e.b, f)
}

func (e *astEncoder) nodes(ns []ast.Node) {
	if ns == nil {
		e.nilTag()
		return
	}
	e.b = append(e.b, 0)
	e.count(len(ns))
	for _, n := range ns {
		e.node(n)
	}
}

func (e *astEncoder) program(p *ast.Program) {
	if p == nil {
		e.nilTag()
		return
	}
	e.tag(ast.NodeProgram)
	e.loc(p.Loc)
	e.nodes(p.Body)
	e.strs(p.BlockParams)
	e.bool(p.Chained)
	e.strip(p.Strip)
}

func (e *astEncoder) expression(x *ast.Expression) {
	if x == nil {
		e.nilTag()
		return
	}
	e.tag(ast.NodeExpression)
	e.loc(x.Loc)
	e.node(x.Path)
	e.nodes(x.Params)
	e.hash(x.Hash)
}

func (e *astEncoder) hash(h *ast.Hash) {
	if h == nil {
		e.nilTag()
		return
	}
	e.tag(ast.NodeHash)
	e.loc(h.Loc)
	e.count(len(h.Pairs))
	for _, p := range h.Pairs {
		if p == nil {
			e.nilTag()
			continue
		}
		e.tag(ast.NodeHashPair)
		e.loc(p.Loc)
		e.str(p.Key)
		e.node(p.Val)
	}
}

func (e *astEncoder) node(n ast.Node) {
	switch n := n.(type) {
	case nil:
		e.nilTag()
	case *ast.Program:
		e.program(n)
	case *ast.Expression:
		e.expression(n)
	case *ast.Hash:
		e.hash(n)
	case *ast.MustacheStatement:
		e.tag(ast.NodeMustache)
		e.loc(n.Loc)
		e.bool(n.Unescaped)
		e.expression(n.Expression)
		e.strip(n.Strip)
	case *ast.BlockStatement:
		e.tag(ast.NodeBlock)
		e.loc(n.Loc)
		e.expression(n.Expression)
		e.program(n.Program)
		e.program(n.Inverse)
		e.strip(n.OpenStrip)
		e.strip(n.InverseStrip)
		e.strip(n.CloseStrip)
	case *ast.PartialStatement:
		e.tag(ast.NodePartial)
		e.loc(n.Loc)
		e.node(n.Name)
		e.nodes(n.Params)
		e.hash(n.Hash)
		e.strip(n.Strip)
		e.str(n.Indent)
	case *ast.ContentStatement:
		e.tag(ast.NodeContent)
		e.loc(n.Loc)
		e.str(n.Value)
		e.str(n.Original)
		e.bool(n.RightStripped)
		e.bool(n.LeftStripped)
	case *ast.CommentStatement:
		e.tag(ast.NodeComment)
		e.loc(n.Loc)
		e.str(n.Value)
		e.strip(n.Strip)
	case *ast.SubExpression:
		e.tag(ast.NodeSubExpression)
		e.loc(n.Loc)
		e.expression(n.Expression)
	case *ast.PathExpression:
		e.tag(ast.NodePath)
		e.loc(n.Loc)
		e.str(n.Original)
		e.int(n.Depth)
		e.strs(n.Parts)
		e.bool(n.Data)
		e.bool(n.Scoped)
	case *ast.StringLiteral:
		e.tag(ast.NodeString)
		e.loc(n.Loc)
		e.str(n.Value)
	case *ast.BooleanLiteral:
		e.tag(ast.NodeBoolean)
		e.loc(n.Loc)
		e.bool(n.Value)
		e.str(n.Original)
	case *ast.NumberLiteral:
		e.tag(ast.NodeNumber)
		e.loc(n.Loc)
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(n.Value))
		e.bool(n.IsInt)
		e.str(n.Original)
	default:
		// raymond's parser makes no other node; a tag the decoder refuses
		// keeps such a tree out of the cache's use.
		e.b = append(e.b, 0xFE)
	}
}

// decodeAST reads a tree encodeAST wrote.
func decodeAST(b []byte) (prog *ast.Program, err error) {
	if len(b) < len(astMagic) || string(b[:len(astMagic)]) != astMagic {
		return nil, errAST
	}
	// One string for the whole entry: every decoded string is a slice of
	// it, not an allocation of its own.
	d := &astDecoder{s: string(b[len(astMagic):])}
	prog = d.program(0)
	if d.err != nil || d.i != len(d.s) || prog == nil {
		return nil, errAST
	}
	return prog, nil
}

type astDecoder struct {
	s   string
	i   int
	err error
}

func (d *astDecoder) fail() { d.err = errAST; d.i = len(d.s) }

func (d *astDecoder) byte() byte {
	if d.err != nil || d.i >= len(d.s) {
		d.fail()
		return tagNil
	}
	c := d.s[d.i]
	d.i++
	return c
}

// open consumes the expected tag and reports true, or a tagNil and
// reports false; any other tag is corruption.
func (d *astDecoder) open(want ast.NodeType) bool {
	switch t := d.byte(); {
	case d.err != nil || t == tagNil:
		return false
	case ast.NodeType(t) != want:
		d.fail()
		return false
	}
	return true
}

// uvarint is binary.Uvarint over the entry's string.
func (d *astDecoder) uvarint() uint64 {
	var v uint64
	for shift := uint(0); shift < 64 && d.err == nil; shift += 7 {
		c := d.byte()
		if d.err != nil {
			break
		}
		v |= uint64(c&0x7F) << shift
		if c < 0x80 {
			if shift == 63 && c > 1 || shift > 0 && c == 0 {
				break // overflow, or a longer form than needed
			}
			return v
		}
	}
	d.fail()
	return 0
}

// int reads a zig-zag varint (binary.AppendVarint), within int32.
func (d *astDecoder) int() int {
	u := d.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	if d.err != nil || v < math.MinInt32 || v > math.MaxInt32 {
		d.fail()
		return 0
	}
	return int(v)
}

// count reads a length no larger than what is left: each element takes
// at least a byte, so a lying count cannot allocate more than the entry.
func (d *astDecoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.s)-d.i) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *astDecoder) str() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := d.s[d.i : d.i+n]
	d.i += n
	return s
}

func (d *astDecoder) bool() bool {
	switch d.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail()
	return false
}

func (d *astDecoder) loc() ast.Loc { return ast.Loc{Pos: d.int(), Line: d.int()} }

func (d *astDecoder) strs() []string {
	if !d.present() {
		return nil
	}
	n := d.count()
	ss := make([]string, n)
	for i := range ss {
		ss[i] = d.str()
	}
	return ss
}

// present reads the marker of a slice: 0 for one, tagNil for nil.
func (d *astDecoder) present() bool {
	switch d.byte() {
	case 0:
		return d.err == nil
	case tagNil:
		return false
	}
	d.fail()
	return false
}

func (d *astDecoder) strip() *ast.Strip {
	f := d.byte()
	if f == tagNil || d.err != nil {
		return nil
	}
	if f >= 1<<5 {
		d.fail()
		return nil
	}
	return &ast.Strip{Open: f&1 != 0, Close: f&2 != 0, OpenStandalone: f&4 != 0, CloseStandalone: f&8 != 0,
		InlineStandalone: f&16 != 0}
}

func (d *astDecoder) nodes(depth int) []ast.Node {
	if !d.present() {
		return nil
	}
	n := d.count()
	ns := make([]ast.Node, n)
	for i := range ns {
		ns[i] = d.node(depth)
	}
	return ns
}

func (d *astDecoder) program(depth int) *ast.Program {
	if depth > maxASTDepth {
		d.fail()
	}
	if !d.open(ast.NodeProgram) {
		return nil
	}
	p := &ast.Program{NodeType: ast.NodeProgram, Loc: d.loc()}
	p.Body = d.nodes(depth + 1)
	p.BlockParams = d.strs()
	p.Chained = d.bool()
	p.Strip = d.strip()
	return p
}

func (d *astDecoder) expression(depth int) *ast.Expression {
	if depth > maxASTDepth {
		d.fail()
	}
	if !d.open(ast.NodeExpression) {
		return nil
	}
	x := &ast.Expression{NodeType: ast.NodeExpression, Loc: d.loc()}
	x.Path = d.node(depth + 1)
	x.Params = d.nodes(depth + 1)
	x.Hash = d.hash(depth + 1)
	return x
}

func (d *astDecoder) hash(depth int) *ast.Hash {
	if !d.open(ast.NodeHash) {
		return nil
	}
	h := &ast.Hash{NodeType: ast.NodeHash, Loc: d.loc()}
	h.Pairs = make([]*ast.HashPair, d.count())
	for i := range h.Pairs {
		if !d.open(ast.NodeHashPair) {
			continue
		}
		p := &ast.HashPair{NodeType: ast.NodeHashPair, Loc: d.loc()}
		p.Key = d.str()
		p.Val = d.node(depth + 1)
		h.Pairs[i] = p
	}
	return h
}

// node reads any node: the tag says which.
func (d *astDecoder) node(depth int) ast.Node {
	if depth > maxASTDepth {
		d.fail()
		return nil
	}
	if d.err != nil || d.i >= len(d.s) {
		d.fail()
		return nil
	}
	t := d.s[d.i]
	switch ast.NodeType(t) {
	case ast.NodeProgram:
		return d.program(depth)
	case ast.NodeExpression:
		return d.expression(depth)
	case ast.NodeHash:
		return d.hash(depth)
	}
	d.i++
	if t == tagNil {
		return nil
	}
	switch nt := ast.NodeType(t); nt {
	case ast.NodeMustache:
		n := &ast.MustacheStatement{NodeType: nt, Loc: d.loc()}
		n.Unescaped = d.bool()
		n.Expression = d.expression(depth + 1)
		n.Strip = d.strip()
		return n
	case ast.NodeBlock:
		n := &ast.BlockStatement{NodeType: nt, Loc: d.loc()}
		n.Expression = d.expression(depth + 1)
		n.Program = d.program(depth + 1)
		n.Inverse = d.program(depth + 1)
		n.OpenStrip = d.strip()
		n.InverseStrip = d.strip()
		n.CloseStrip = d.strip()
		return n
	case ast.NodePartial:
		n := &ast.PartialStatement{NodeType: nt, Loc: d.loc()}
		n.Name = d.node(depth + 1)
		n.Params = d.nodes(depth + 1)
		n.Hash = d.hash(depth + 1)
		n.Strip = d.strip()
		n.Indent = d.str()
		return n
	case ast.NodeContent:
		n := &ast.ContentStatement{NodeType: nt, Loc: d.loc()}
		n.Value = d.str()
		n.Original = d.str()
		n.RightStripped = d.bool()
		n.LeftStripped = d.bool()
		return n
	case ast.NodeComment:
		n := &ast.CommentStatement{NodeType: nt, Loc: d.loc()}
		n.Value = d.str()
		n.Strip = d.strip()
		return n
	case ast.NodeSubExpression:
		n := &ast.SubExpression{NodeType: nt, Loc: d.loc()}
		n.Expression = d.expression(depth + 1)
		return n
	case ast.NodePath:
		n := &ast.PathExpression{NodeType: nt, Loc: d.loc()}
		n.Original = d.str()
		n.Depth = d.int()
		n.Parts = d.strs()
		n.Data = d.bool()
		n.Scoped = d.bool()
		return n
	case ast.NodeString:
		n := &ast.StringLiteral{NodeType: nt, Loc: d.loc()}
		n.Value = d.str()
		return n
	case ast.NodeBoolean:
		n := &ast.BooleanLiteral{NodeType: nt, Loc: d.loc()}
		n.Value = d.bool()
		n.Original = d.str()
		return n
	case ast.NodeNumber:
		n := &ast.NumberLiteral{NodeType: nt, Loc: d.loc()}
		if d.err != nil || len(d.s)-d.i < 8 {
			d.fail()
			return nil
		}
		var bits uint64
		for k := range 8 {
			bits |= uint64(d.s[d.i+k]) << (8 * k)
		}
		n.Value = math.Float64frombits(bits)
		d.i += 8
		n.IsInt = d.bool()
		n.Original = d.str()
		return n
	}
	d.fail()
	return nil
}
