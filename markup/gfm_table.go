package markup

// GFM tables, written for murlog from the GitHub Flavored Markdown spec
// (https://github.github.com/gfm/#tables-extension-) so that articles need
// not link goldmark/extension, whose package initialisation compiles large
// regular expressions on every CGI request.
//
// A table is a header row, a delimiter row and any number of body rows,
// all lines of one paragraph. Cells are separated by unescaped pipes;
// leading and trailing pipes are optional. The delimiter row's cells are
// runs of '-' with optional ':' on either side giving the column alignment,
// and the header must have as many cells as the delimiter row. Body rows
// with fewer cells are padded, extra cells are dropped. Lines of the
// paragraph before the header stay a paragraph.

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

var (
	kindTable     = ast.NewNodeKind("MurlogTable")
	kindTableRow  = ast.NewNodeKind("MurlogTableRow")
	kindTableCell = ast.NewNodeKind("MurlogTableCell")
)

// tableNode is a table; its children are tableRows, the first being the
// header.
type tableNode struct {
	ast.BaseBlock
	align []string // per column: "", "left", "right" or "center"
}

func (n *tableNode) Kind() ast.NodeKind { return kindTable }

func (n *tableNode) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// tableRow is a row of tableCells.
type tableRow struct {
	ast.BaseBlock
	header bool
}

func (n *tableRow) Kind() ast.NodeKind { return kindTableRow }

func (n *tableRow) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// tableCell holds the cell's inline content in its Lines, which goldmark
// parses like a paragraph's.
type tableCell struct {
	ast.BaseBlock
	align  string
	header bool
}

func (n *tableCell) Kind() ast.NodeKind { return kindTableCell }

func (n *tableCell) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// tableKey marks a parse context in which a table was built, so that the
// code span fix-up only walks documents that have tables.
var tableKey = parser.NewContextKey()

// tableParagraphTransformer turns paragraphs containing a header and a
// delimiter row into tables.
type tableParagraphTransformer struct{}

// Transform implements parser.ParagraphTransformer.
func (tableParagraphTransformer) Transform(para *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := para.Lines()
	src := reader.Source()
	for i := 1; i < lines.Len(); i++ {
		if indentWidth(src, lines.At(i)) >= 4 {
			// Indented that far, it is paragraph text, never a row.
			continue
		}
		align, ok := parseDelimiterRow(lineBytes(src, lines.At(i)))
		if !ok {
			continue
		}
		header := splitRow(src, lines.At(i-1))
		if len(header) != len(align) {
			continue
		}
		table := &tableNode{align: align}
		table.AppendChild(table, newTableRow(header, align, true))
		for j := i + 1; j < lines.Len(); j++ {
			table.AppendChild(table, newTableRow(splitRow(src, lines.At(j)), align, false))
		}
		pc.Set(tableKey, true)
		parent := para.Parent()
		if i == 1 {
			table.SetBlankPreviousLines(para.HasBlankPreviousLines())
			parent.ReplaceChild(parent, para, table)
		} else {
			lines.SetSliced(0, i-1)
			parent.InsertAfter(parent, para, table)
		}
		return
	}
}

// newTableRow builds a row with exactly one cell per column.
func newTableRow(cells []text.Segment, align []string, header bool) *tableRow {
	row := &tableRow{header: header}
	for i, a := range align {
		cell := &tableCell{align: a, header: header}
		if i < len(cells) && cells[i].Len() > 0 {
			cell.Lines().Append(cells[i])
		}
		row.AppendChild(row, cell)
	}
	return row
}

// indentWidth returns the columns of indentation of a paragraph line.
func indentWidth(src []byte, seg text.Segment) int {
	w := seg.Padding
	for i := seg.Start; i < seg.Stop; i++ {
		switch src[i] {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w
		}
	}
	return w
}

// lineBytes returns a paragraph line without its line ending and without
// the surrounding spaces and tabs.
func lineBytes(src []byte, seg text.Segment) []byte {
	start, stop := trimRow(src, seg)
	return src[start:stop]
}

// trimRow returns the bounds of seg in src without the line ending and the
// surrounding spaces and tabs. Tab padding is irrelevant once trimmed.
func trimRow(src []byte, seg text.Segment) (start, stop int) {
	start, stop = seg.Start, seg.Stop
	for stop > start && isRowSpace(src[stop-1]) {
		stop--
	}
	for start < stop && isRowSpace(src[start]) {
		start++
	}
	return start, stop
}

func isRowSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// parseDelimiterRow returns the column alignments if line is a delimiter
// row such as "| :--- | :-: | --: |".
func parseDelimiterRow(line []byte) ([]string, bool) {
	if len(line) > 0 && line[0] == '|' {
		line = line[1:]
	}
	if len(line) > 0 && line[len(line)-1] == '|' {
		line = line[:len(line)-1]
	}
	if len(line) == 0 {
		return nil, false
	}
	var align []string
	for {
		cell, rest, more := cutByte(line, '|')
		cell = util.TrimRightSpace(util.TrimLeftSpace(cell))
		left := len(cell) > 0 && cell[0] == ':'
		if left {
			cell = cell[1:]
		}
		right := len(cell) > 0 && cell[len(cell)-1] == ':'
		if right {
			cell = cell[:len(cell)-1]
		}
		if len(cell) == 0 {
			return nil, false
		}
		for _, c := range cell {
			if c != '-' {
				return nil, false
			}
		}
		switch {
		case left && right:
			align = append(align, "center")
		case left:
			align = append(align, "left")
		case right:
			align = append(align, "right")
		default:
			align = append(align, "")
		}
		if !more {
			return align, true
		}
		line = rest
	}
}

func cutByte(s []byte, sep byte) (before, after []byte, found bool) {
	for i, c := range s {
		if c == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, nil, false
}

// splitRow splits a row line into cell segments (trimmed, possibly empty)
// at pipes not escaped by a backslash.
func splitRow(src []byte, seg text.Segment) []text.Segment {
	start, stop := trimRow(src, seg)
	if start < stop && src[start] == '|' {
		start++
	}
	if stop > start && src[stop-1] == '|' && !isEscaped(src, start, stop-1) {
		stop--
	}
	var cells []text.Segment
	cellStart := start
	for i := start; i <= stop; i++ {
		if i < stop && (src[i] != '|' || isEscaped(src, start, i)) {
			continue
		}
		s, e := cellStart, i
		for s < e && (src[s] == ' ' || src[s] == '\t') {
			s++
		}
		for e > s && (src[e-1] == ' ' || src[e-1] == '\t') {
			e--
		}
		cells = append(cells, text.NewSegment(s, e))
		cellStart = i + 1
	}
	return cells
}

// isEscaped reports whether src[i] is preceded by an odd number of
// backslashes (not looking before start).
func isEscaped(src []byte, start, i int) bool {
	n := 0
	for i > start && src[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
}

// tableCodeTransformer applies the one GFM rule inline parsing cannot: an
// escaped pipe in a table cell is a plain pipe even inside a code span,
// where backslash escapes otherwise do not work.
type tableCodeTransformer struct{}

// Transform implements parser.ASTTransformer.
func (tableCodeTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	if pc.Get(tableKey) == nil {
		return
	}
	src := reader.Source()
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Kind() != ast.KindCodeSpan || !inTableCell(n) {
			return ast.WalkContinue, nil
		}
		for c := n.FirstChild(); c != nil; {
			next := c.NextSibling()
			if t, ok := c.(*ast.Text); ok {
				splitEscapedPipes(n, t, src)
			}
			c = next
		}
		return ast.WalkSkipChildren, nil
	})
}

func inTableCell(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() == kindTableCell {
			return true
		}
	}
	return false
}

// splitEscapedPipes replaces t, a child of parent, by texts that skip the
// backslash of every "\|".
func splitEscapedPipes(parent ast.Node, t *ast.Text, src []byte) {
	seg := t.Segment
	start := seg.Start
	for i := seg.Start; i+1 < seg.Stop; i++ {
		if src[i] == '\\' && src[i+1] == '|' {
			part := ast.NewTextSegment(text.NewSegment(start, i))
			parent.InsertBefore(parent, t, part)
			start = i + 1
			i++
		}
	}
	if start != seg.Start {
		t.Segment = text.NewSegment(start, seg.Stop)
	}
}

// tableRenderer writes tables as goldmark's GFM extension did, with the
// alignment as an align attribute the sanitizer allows.
type tableRenderer struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (tableRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindTable, wrapIn("<table>\n", "</table>\n"))
	reg.Register(kindTableRow, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		row := n.(*tableRow)
		switch {
		case row.header && entering:
			_, _ = w.WriteString("<thead>\n<tr>\n")
		case row.header:
			_, _ = w.WriteString("</tr>\n</thead>\n")
		case entering:
			if prev, ok := n.PreviousSibling().(*tableRow); ok && prev.header {
				_, _ = w.WriteString("<tbody>\n")
			}
			_, _ = w.WriteString("<tr>\n")
		default:
			_, _ = w.WriteString("</tr>\n")
			if n.NextSibling() == nil {
				_, _ = w.WriteString("</tbody>\n")
			}
		}
		return ast.WalkContinue, nil
	})
	reg.Register(kindTableCell, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		cell := n.(*tableCell)
		tag := "td"
		if cell.header {
			tag = "th"
		}
		if !entering {
			_, _ = w.WriteString("</" + tag + ">\n")
			return ast.WalkContinue, nil
		}
		_, _ = w.WriteString("<" + tag)
		if cell.align != "" {
			_, _ = w.WriteString(` align="` + cell.align + `"`)
		}
		_ = w.WriteByte('>')
		return ast.WalkContinue, nil
	})
}
