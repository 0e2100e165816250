package xmltext

import (
	"encoding/xml"
	"strings"
	"testing"
)

// TestEscapedTextParsesBack: whatever the input, an element and an
// attribute written with Escape parse, and give back the input less what
// XML cannot hold. (blog/feed's TestEscape pins the exact output.)
func TestEscapedTextParsesBack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`<a href="x">&'`, `<a href="x">&'`},
		{"tab\tlf\ncr\r", "tab\tlf\ncr\r"},
		{"ctl\x00\x1f\x7f\u0085", "ctl"},
		{"bad\xff\xfeutf8", "badutf8"},
		{"\ufffe\uffff日本語🍣", "日本語🍣"},
	} {
		var b strings.Builder
		b.WriteString(`<e a="`)
		Escape(&b, tc.in)
		b.WriteString(`">`)
		Escape(&b, tc.in)
		b.WriteString(`</e>`)
		var e struct {
			A    string `xml:"a,attr"`
			Text string `xml:",chardata"`
		}
		if err := xml.Unmarshal([]byte(b.String()), &e); err != nil {
			t.Errorf("Escape(%q): %s does not parse: %v", tc.in, b.String(), err)
			continue
		}
		if e.A != tc.want || e.Text != tc.want {
			t.Errorf("Escape(%q) parses back as attribute %q, text %q; want %q", tc.in, e.A, e.Text, tc.want)
		}
	}
}
