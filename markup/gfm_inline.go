package markup

// GFM strikethrough and task list items, written for murlog from the
// GitHub Flavored Markdown spec (see gfm_table.go for why).

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

var (
	kindStrikethrough = ast.NewNodeKind("MurlogStrikethrough")
	kindTaskBox       = ast.NewNodeKind("MurlogTaskBox")
)

// strikethrough is text between matching runs of one or two tildes.
type strikethrough struct {
	ast.BaseInline
}

func (n *strikethrough) Kind() ast.NodeKind { return kindStrikethrough }

func (n *strikethrough) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// strikethroughParser pushes tilde runs onto goldmark's delimiter stack,
// which pairs them like emphasis: a run can open if it is left-flanking and
// close if it is right-flanking. Runs of three or more tildes are text.
type strikethroughParser struct{}

// Trigger implements parser.InlineParser.
func (strikethroughParser) Trigger() []byte { return []byte{'~'} }

// Parse implements parser.InlineParser.
func (strikethroughParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	if before == '~' {
		// The rest of a longer run that was already rejected.
		return nil
	}
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, strikethroughDelimiter{})
	if d == nil || d.OriginalLength > 2 {
		return nil
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

// strikethroughDelimiter implements parser.DelimiterProcessor.
type strikethroughDelimiter struct{}

func (strikethroughDelimiter) IsDelimiter(b byte) bool { return b == '~' }

// CanOpenCloser pairs runs of the same length only, as GFM requires:
// "~~a~" is not struck through.
func (strikethroughDelimiter) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char && opener.Length == closer.Length
}

func (strikethroughDelimiter) OnMatch(int) ast.Node { return &strikethrough{} }

// taskBox is the "[ ]" or "[x]" starting a task list item.
type taskBox struct {
	ast.BaseInline
	checked bool
}

func (n *taskBox) Kind() ast.NodeKind { return kindTaskBox }

func (n *taskBox) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// taskBoxParser recognises "[ ]", "[x]" or "[X]" at the very start of the
// first paragraph of a list item, followed by whitespace or the end of the
// line. It must run before the link parser.
type taskBoxParser struct{}

// Trigger implements parser.InlineParser.
func (taskBoxParser) Trigger() []byte { return []byte{'['} }

// Parse implements parser.InlineParser.
func (taskBoxParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	if parent.HasChildren() || (parent.Kind() != ast.KindParagraph && parent.Kind() != ast.KindTextBlock) {
		return nil
	}
	item := parent.Parent()
	if item == nil || item.Kind() != ast.KindListItem || item.FirstChild() != parent {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 3 || line[2] != ']' {
		return nil
	}
	var checked bool
	switch line[1] {
	case ' ', '\t':
	case 'x', 'X':
		checked = true
	default:
		return nil
	}
	n := 3
	if n < len(line) && line[n] != ' ' && line[n] != '\t' && line[n] != '\n' && line[n] != '\r' {
		return nil
	}
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	block.Advance(n)
	return &taskBox{checked: checked}
}

// gfmInlineRenderer renders strikethrough as <del> and task boxes as ☐
// and ☑ instead of <input type="checkbox">: the sanitizer allows no form
// controls, and remote servers would strip them from federated copies.
type gfmInlineRenderer struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (gfmInlineRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindStrikethrough, wrapIn("<del>", "</del>"))
	reg.Register(kindTaskBox, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			if n.(*taskBox).checked {
				_, _ = w.WriteString("\u2611 ")
			} else {
				_, _ = w.WriteString("\u2610 ")
			}
		}
		return ast.WalkContinue, nil
	})
}

// wrapIn renders a node as fixed markup around its children.
func wrapIn(open, close string) renderer.NodeRendererFunc {
	return func(w util.BufWriter, _ []byte, _ ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(open)
		} else {
			_, _ = w.WriteString(close)
		}
		return ast.WalkContinue, nil
	}
}
