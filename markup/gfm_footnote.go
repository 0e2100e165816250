package markup

// Footnotes as GitHub renders them, written for murlog (see gfm_table.go
// for why). A definition is a block "[^label]: text" whose continuation
// lines are indented by four spaces; a reference is "[^label]" anywhere in
// inline text and only counts when a definition with that label (compared
// like link labels) exists. Footnotes are numbered in order of first
// reference, rendered at the end of the document with links back to every
// reference; definitions never referenced are dropped.

import (
	"bytes"
	"strconv"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

var (
	kindFootnoteDef     = ast.NewNodeKind("MurlogFootnoteDefinition")
	kindFootnoteRef     = ast.NewNodeKind("MurlogFootnoteReference")
	kindFootnoteList    = ast.NewNodeKind("MurlogFootnoteList")
	kindFootnoteBackref = ast.NewNodeKind("MurlogFootnoteBackref")
)

// footnoteDef is a footnote definition; once referenced it becomes an item
// of the footnoteList.
type footnoteDef struct {
	ast.BaseBlock
	index int // 1-based number in order of first reference; 0 if unused
	refs  int // number of references
}

func (n *footnoteDef) Kind() ast.NodeKind { return kindFootnoteDef }

func (n *footnoteDef) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// footnoteRef is the nth reference to footnote index.
type footnoteRef struct {
	ast.BaseInline
	index, n int
}

func (n *footnoteRef) Kind() ast.NodeKind { return kindFootnoteRef }

func (n *footnoteRef) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// footnoteList holds the referenced definitions at the end of the document.
type footnoteList struct {
	ast.BaseBlock
}

func (n *footnoteList) Kind() ast.NodeKind { return kindFootnoteList }

func (n *footnoteList) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// footnoteBackref links back to the nth reference to footnote index.
type footnoteBackref struct {
	ast.BaseInline
	index, n int
}

func (n *footnoteBackref) Kind() ast.NodeKind { return kindFootnoteBackref }

func (n *footnoteBackref) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// footnotes is the per-document state kept in the parse context.
type footnotes struct {
	byLabel map[string]*footnoteDef // first definition of each label
	all     []*footnoteDef          // every definition, duplicates included
	order   []*footnoteDef          // referenced definitions by index
}

var footnoteKey = parser.NewContextKey()

func footnoteState(pc parser.Context) *footnotes {
	return pc.ComputeIfAbsent(footnoteKey, func() any {
		return &footnotes{byLabel: map[string]*footnoteDef{}}
	}).(*footnotes)
}

// footnoteLabel parses "[^label]" at the start of b and returns the label
// and the length of the whole. Labels are non-blank, have no brackets and
// fit on one line.
func footnoteLabel(b []byte) (label []byte, n int) {
	if len(b) < 4 || b[0] != '[' || b[1] != '^' {
		return nil, 0
	}
	end := bytes.IndexAny(b[2:], "[]\n")
	if end <= 0 || end > 999 || b[2+end] != ']' {
		return nil, 0
	}
	label = b[2 : 2+end]
	if util.IsBlank(label) {
		return nil, 0
	}
	return label, 2 + end + 1
}

// footnoteDefParser parses footnote definitions. Like a list item, a
// definition is a container: its first line's text and the following lines
// indented by four columns are its content, and lazy continuation lines
// extend its last paragraph.
type footnoteDefParser struct{}

// Trigger implements parser.BlockParser.
func (footnoteDefParser) Trigger() []byte { return []byte{'['} }

// Open implements parser.BlockParser.
func (footnoteDefParser) Open(_ ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	pos := pc.BlockOffset()
	line, _ := reader.PeekLine()
	if pos < 0 || pos >= len(line) {
		return nil, parser.NoChildren
	}
	label, n := footnoteLabel(line[pos:])
	if n == 0 || pos+n >= len(line) || line[pos+n] != ':' {
		return nil, parser.NoChildren
	}
	def := &footnoteDef{}
	st := footnoteState(pc)
	st.all = append(st.all, def)
	if key := util.ToLinkReference(label); st.byLabel[key] == nil {
		st.byLabel[key] = def
	}
	// The content starts after the colon and any spaces (SkipSpaces
	// would run on into the next line).
	skip := pos + n + 1
	for skip < len(line) && (line[skip] == ' ' || line[skip] == '\t') {
		skip++
	}
	reader.Advance(skip)
	return def, parser.HasChildren
}

// Continue implements parser.BlockParser.
func (footnoteDefParser) Continue(_ ast.Node, reader text.Reader, _ parser.Context) parser.State {
	line, _ := reader.PeekLine()
	if util.IsBlank(line) {
		return parser.Continue | parser.HasChildren
	}
	pos, padding := util.IndentPosition(line, reader.LineOffset(), 4)
	if pos < 0 {
		return parser.Close
	}
	reader.AdvanceAndSetPadding(pos, padding)
	return parser.Continue | parser.HasChildren
}

// Close implements parser.BlockParser.
func (footnoteDefParser) Close(ast.Node, text.Reader, parser.Context) {}

// CanInterruptParagraph implements parser.BlockParser.
func (footnoteDefParser) CanInterruptParagraph() bool { return true }

// CanAcceptIndentedLine implements parser.BlockParser.
func (footnoteDefParser) CanAcceptIndentedLine() bool { return false }

// footnoteRefParser parses references to defined footnotes. It must run
// before the link parser, which would otherwise see "[^1]" as a (failed)
// link, or "![^1]" as a (failed) image.
type footnoteRefParser struct{}

// Trigger implements parser.InlineParser.
func (footnoteRefParser) Trigger() []byte { return []byte{'[', '!'} }

// Parse implements parser.InlineParser.
func (footnoteRefParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	bang := len(line) > 0 && line[0] == '!'
	if bang {
		line = line[1:]
	}
	label, n := footnoteLabel(line)
	if n == 0 {
		return nil
	}
	st, _ := pc.Get(footnoteKey).(*footnotes)
	if st == nil {
		return nil
	}
	def := st.byLabel[util.ToLinkReference(label)]
	if def == nil {
		return nil
	}
	if bang {
		// "text![^1]": the '!' is text before the reference.
		ast.MergeOrAppendTextSegment(parent, seg.WithStop(seg.Start+1))
		block.Advance(1)
	}
	block.Advance(n)
	if def.index == 0 {
		st.order = append(st.order, def)
		def.index = len(st.order)
	}
	def.refs++
	return &footnoteRef{index: def.index, n: def.refs}
}

// footnoteTransformer moves the referenced definitions, with their back
// links, into a list at the end of the document and drops the others.
type footnoteTransformer struct{}

// Transform implements parser.ASTTransformer.
func (footnoteTransformer) Transform(doc *ast.Document, _ text.Reader, pc parser.Context) {
	st, _ := pc.Get(footnoteKey).(*footnotes)
	if st == nil {
		return
	}
	for _, def := range st.all {
		if p := def.Parent(); p != nil {
			p.RemoveChild(p, def)
		}
	}
	if len(st.order) == 0 {
		return
	}
	list := &footnoteList{}
	for _, def := range st.order {
		// The back links end the last paragraph, or the item itself when
		// it ends with another block (or is empty).
		target := ast.Node(def)
		if last := def.LastChild(); last != nil && (last.Kind() == ast.KindParagraph || last.Kind() == ast.KindTextBlock) {
			target = last
		}
		for i := 1; i <= def.refs; i++ {
			target.AppendChild(target, &footnoteBackref{index: def.index, n: i})
		}
		list.AppendChild(list, def)
	}
	doc.AppendChild(doc, list)
}

// footnoteRefID is the id of the nth reference to footnote index:
// "fnref-1", then "fnref-1-2", "fnref-1-3", ... as GitHub names them. The
// sanitizer adds the user-content- prefix.
func footnoteRefID(index, n int) string {
	id := "fnref-" + strconv.Itoa(index)
	if n > 1 {
		id += "-" + strconv.Itoa(n)
	}
	return id
}

// footnoteRenderer writes footnotes in the markup goldmark's extension
// used, which the sanitizer's id and class rules allow.
type footnoteRenderer struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (footnoteRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindFootnoteRef, func(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			n := node.(*footnoteRef)
			idx := strconv.Itoa(n.index)
			_, _ = w.WriteString(`<sup id="` + footnoteRefID(n.index, n.n) + `"><a href="#fn-` + idx +
				`" class="footnote-ref">` + idx + `</a></sup>`)
		}
		return ast.WalkContinue, nil
	})
	reg.Register(kindFootnoteBackref, func(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			n := node.(*footnoteBackref)
			// A no-break space, then ↩ with the text-style variation
			// selector so that it is not shown as an emoji.
			_, _ = w.WriteString(`&#160;<a href="#` + footnoteRefID(n.index, n.n) +
				`" class="footnote-backref">&#x21a9;&#xfe0e;</a>`)
		}
		return ast.WalkContinue, nil
	})
	reg.Register(kindFootnoteDef, func(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(`<li id="fn-` + strconv.Itoa(node.(*footnoteDef).index) + "\">\n")
		} else {
			_, _ = w.WriteString("</li>\n")
		}
		return ast.WalkContinue, nil
	})
	reg.Register(kindFootnoteList, wrapIn("<div class=\"footnotes\">\n<hr>\n<ol>\n", "</ol>\n</div>\n"))
}
