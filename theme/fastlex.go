package theme

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mailgun/raymond/v2/ast"
	"github.com/mailgun/raymond/v2/parser"
)

// Parsing cost under CGI. raymond's lexer tries its comment and escape
// regular expressions at every character of a template's content (the
// HTML between the mustaches), which is most of a template: the post
// page's 9 KB cost about 3 ms of CPU to tokenize, and a CGI process parses
// what it renders every time. parseFolded hands raymond the same template
// with each run of plain content folded into one private-use character,
// then puts the runs back into the content statements of the tree.
//
// Only runs that cannot change what the lexer or the whitespace rules
// see are folded: text outside mustaches, without '{', '}' or '\', not
// starting or ending with white space (stripping with "~" and the
// standalone-line rules look only at the white space at a content's
// edges, which stays as written). A parse error is reported from the
// unfolded source, so its line numbers are right. The differential tests
// compare the compiled output with raymond's own on the original source.

// foldBase is the first rune standing for a folded run: plane 15's private
// use area, which no template needs; a source that contains any rune of
// it is parsed as it is.
const (
	foldBase = 0xF0000
	foldMax  = 0xFFFFD - foldBase
	// foldMin is the shortest run worth folding.
	foldMin = 8
)

// parseFolded parses src as parser.Parse does, faster.
func parseFolded(src string) (*ast.Program, error) {
	folded, runs, ok := fold(src)
	if !ok {
		return parser.Parse(src)
	}
	prog, err := parser.Parse(folded)
	if err != nil {
		return parser.Parse(src) // the error, with the true positions
	}
	unfoldProgram(prog, runs)
	return prog, nil
}

// fold returns src with its foldable runs replaced, and the runs.
func fold(src string) (string, []string, bool) {
	if !utf8.ValidString(src) {
		return "", nil, false // the runes would not round-trip
	}
	for _, r := range src {
		if r >= foldBase && r <= foldBase+foldMax {
			return "", nil, false
		}
	}
	var b strings.Builder
	b.Grow(len(src) / 2)
	var runs []string
	i := 0
	for i < len(src) {
		j := strings.Index(src[i:], "{{")
		end := len(src)
		if j >= 0 {
			end = i + j
		}
		// Content: src[i:end]. A '\' right before "{{" escapes it, and
		// the run breaks at every '\', '{' and '}' anyway.
		foldContent(&b, src[i:end], &runs)
		if j < 0 {
			break
		}
		// A mustache, copied as it is up to its close.
		k := mustacheEnd(src, end)
		if k < 0 {
			return "", nil, false // unclosed: let the parser say so
		}
		b.WriteString(src[end:k])
		i = k
		if len(runs) > foldMax {
			return "", nil, false
		}
	}
	return b.String(), runs, true
}

// mustacheEnd returns the index just past the mustache that opens at i:
// "{{!--" comments end at "--}}", triple mustaches at "}}}", raw blocks'
// openers at "}}}}", the rest at "}}". -1 when it never closes.
func mustacheEnd(src string, i int) int {
	rest := src[i:]
	open, closers := 2, []string{"}}"}
	switch {
	case strings.HasPrefix(rest, "{{!--"):
		open, closers = 5, []string{"--}}", "--~}}"}
	case strings.HasPrefix(rest, "{{~!--"):
		open, closers = 6, []string{"--}}", "--~}}"}
	case strings.HasPrefix(rest, "{{{{"):
		open, closers = 4, []string{"}}}}"}
	case strings.HasPrefix(rest, "{{{"), strings.HasPrefix(rest, "{{~{"):
		open, closers = 3, []string{"}}}"}
	}
	best := -1
	for _, c := range closers {
		if k := strings.Index(rest[open:], c); k >= 0 && (best < 0 || open+k+len(c) < best) {
			best = open + k + len(c)
		}
	}
	if best < 0 {
		return -1
	}
	return i + best
}

// foldContent writes content with each foldable run replaced.
func foldContent(b *strings.Builder, content string, runs *[]string) {
	start := -1 // start of the current run of plain characters
	flush := func(end int) {
		if start < 0 {
			return
		}
		run := content[start:end]
		// Keep white space at the run's edges as written.
		inner := strings.TrimFunc(run, unicode.IsSpace)
		if utf8.RuneCountInString(inner) < foldMin {
			b.WriteString(run)
		} else {
			lead := run[:strings.Index(run, inner)]
			b.WriteString(lead)
			b.WriteRune(rune(foldBase + len(*runs)))
			*runs = append(*runs, inner)
			b.WriteString(run[len(lead)+len(inner):])
		}
		start = -1
	}
	for i := 0; i < len(content); i++ {
		switch content[i] {
		case '{', '}', '\\':
			flush(i)
			b.WriteByte(content[i])
		default:
			if start < 0 {
				start = i
			}
		}
	}
	flush(len(content))
}

// unfoldProgram puts the folded runs back into every content statement.
func unfoldProgram(p *ast.Program, runs []string) {
	if p == nil {
		return
	}
	for _, n := range p.Body {
		switch n := n.(type) {
		case *ast.ContentStatement:
			n.Value, n.Original = unfold(n.Value, runs), unfold(n.Original, runs)
		case *ast.BlockStatement:
			unfoldProgram(n.Program, runs)
			unfoldProgram(n.Inverse, runs)
		}
	}
}

func unfold(s string, runs []string) string {
	if !strings.ContainsFunc(s, folded) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if folded(r) && int(r-foldBase) < len(runs) {
			b.WriteString(runs[r-foldBase])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func folded(r rune) bool { return r >= foldBase && r <= foldBase+foldMax }
