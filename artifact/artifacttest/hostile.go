package artifacttest

import "strings"

// HostileKeys are key spellings artifact.ParseKey must refuse: traversal,
// absolute and empty paths, encoded separators and dots (keys are never
// decoded), backslashes, control characters, over-long keys and segments,
// Unicode spellings that look like another key, and names reserved for an
// adapter's own files. Tests of the edge can feed them to routes too.
var HostileKeys = []string{
	"",
	"../x",
	"a/../../x",
	"a/..",
	"..",
	".",
	"./a",
	"a/./b",
	"/etc/passwd",
	"/a",
	"a/",
	"a//b",
	"%2e%2e/x",
	"%2E%2E%2Fx",
	"a%2fb",
	"a%00b",
	"a\\b",
	"..\\x",
	"a\x00b",
	"a\nb",
	"a\rb",
	"a\tb",
	"a\x7fb",
	"a b",
	"a?b",
	"a#b",
	"a:b",
	"a*b",
	"a\"b",
	"a<b>",
	"a|b",
	"a;b",
	"$(x)",
	strings.Repeat("a", 10_000),
	strings.Repeat("a/", 600) + "a",
	strings.Repeat("b", 241),
	"e\u0301",              // decomposed é: NFC is U+00E9
	"caf\u0065\u0301.html", // the same, inside a name
	"\ufb01le",             // the ligature ﬁ: NFKC is "file"
	"\uff21",               // full-width Ａ
	"\uff0e\uff0e/x",       // full-width dots
	"a\uff0fb",             // full-width slash
	"a\u2215b",             // division slash
	"a\u200bb",             // zero-width space
	"a\u202eb",             // right-to-left override
	"\ufeffa",              // byte-order mark
	"a\u00a0b",             // no-break space
	"\xff\xfe",             // invalid UTF-8
	"a\xc0\xafb",           // over-long encoding of "/"
	".tmp-0123456789abcdef",
	"html/.tmp-0123456789abcdef",
	".meta-index.html",
	"html/.meta-index.html",
	".htaccess",
	"a/.git/config",
}
