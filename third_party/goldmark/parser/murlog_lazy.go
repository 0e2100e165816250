package parser

import (
	"regexp"
	"sync"
)

// murlog: the package's regular expressions are compiled on first use
// instead of at program start (see third_party/README.md): a CGI process
// starts for every request, and most never parse what they match.
type lazyRegexp struct {
	once sync.Once
	expr string
	rx   *regexp.Regexp
}

func newLazyRegexp(expr string) *lazyRegexp { return &lazyRegexp{expr: expr} }

func (l *lazyRegexp) re() *regexp.Regexp {
	l.once.Do(func() { l.rx = regexp.MustCompile(l.expr) })
	return l.rx
}
