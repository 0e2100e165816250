package strictjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/murlog/murlog"
)

// maxBatch is the JSON-RPC API's batch limit, for the tests.
const maxBatch = 100

// FuzzScan checks Scan against encoding/json: whatever Scan accepts
// without a problem, encoding/json accepts as the same value; whatever
// encoding/json refuses, Scan refuses too.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"posts.list","params":{"limit":5},"id":1}`,
		`[{"a":1},{"b":[1,2,{"c":null}]}]`, `"x"`, `-0.5e+3`, `{"a":"\ud83d\ude00"}`, `{"a":"\ud800"}`,
		`{"a":1,"a":2}`, "{\"a\":\"\xff\"}", `[]`, `{}`, `[1,]`, `{"a" 1}`, `tru`, `01`, `1.`, `"\u00zz"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		elems, n, batch, err := Scan(b, maxBatch, 4)
		valid := json.Valid(b)
		if err != nil {
			if se := err.(*SyntaxError); valid && !se.TooDeep {
				t.Fatalf("Scan(%q) = %v; encoding/json accepts it", b, err)
			}
			return
		}
		if !valid {
			t.Fatalf("Scan(%q) accepted what encoding/json refuses", b)
		}
		clean := utf8.Valid(b)
		for _, el := range elems {
			if el.Problem != nil {
				clean = false
			}
			if !json.Valid(el.Raw) {
				t.Fatalf("Scan(%q): element %q is not JSON", b, el.Raw)
			}
			for _, m := range el.Members {
				if !json.Valid(m.Key) || !json.Valid(m.Val) {
					t.Fatalf("Scan(%q): member %q: %q is not JSON", b, m.Key, m.Val)
				}
			}
		}
		if clean && batch && len(elems) > 0 {
			var arr []json.RawMessage
			if json.Unmarshal(b, &arr) != nil || len(arr) != n || len(elems) != min(n, maxBatch) {
				t.Fatalf("Scan(%q) found %d elements (%d kept); encoding/json %d", b, n, len(elems), len(arr))
			}
		}
	})
}

// TestSyntaxErrorNamesTheByte: a byte outside printable ASCII is named by
// its value, not shown as the Latin-1 character it is not, and a leading
// byte order mark is called what it is.
func TestSyntaxErrorNamesTheByte(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ body, want string }{
		{"\xef\xbb\xbf{}", "unexpected byte order mark U+FEFF (send JSON without one), expected a value at byte 0"},
		{"{\"a\":\xff}", "unexpected byte 0xFF, expected a value"},
		{`{"a" 1}`, `unexpected '1', expected ':'`},
	} {
		_, _, _, err := Scan([]byte(tc.body), maxBatch, 4)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("Scan(%q) = %v; want an error containing %q", tc.body, err, tc.want)
		}
	}
}

// TestCheck: one document, checked whole: duplicate keys at any depth,
// invalid UTF-8 and unpaired surrogates are EInvalid naming where they
// are, a syntax error is EInvalid on "body", and a top-level array is a
// value like any other.
func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ body, field, msg string }{
		{`{"ids":["a"]}`, "", ""},
		{`["a","b"]`, "", ""},
		{`{"ids":["a"],"ids":["b"]}`, "ids", "is given twice (duplicate keys are refused)"},
		{`{"ids":["a"],"\u0069ds":["b"]}`, "ids", "is given twice"},
		{`{"a":{"b":1,"b":2}}`, "a.b", "is given twice"},
		{`[{"x":1,"x":1}]`, "[0].x", "is given twice"},
		{"{\"ids\":[\"\xff\"]}", "ids[0]", "not valid UTF-8"},
		{`{"ids":["\ud800"]}`, "ids[0]", "unpaired surrogate"},
		{`{"ids":[}`, "body", "parse error"},
		{`{"ids":[]} []`, "body", "after the top-level value"},
		{``, "body", "parse error"},
		{strings.Repeat("[", 40) + strings.Repeat("]", 40), "body", "nested too deeply"},
	} {
		err := Check([]byte(tc.body))
		if tc.msg == "" {
			if err != nil {
				t.Errorf("Check(%q) = %v; want nil", tc.body, err)
			}
			continue
		}
		e := murlog.AsError(err)
		if err == nil || e.Code != murlog.EInvalid || e.Field != tc.field || !strings.Contains(e.Message, tc.msg) {
			t.Errorf("Check(%q) = %v; want invalid on %q saying %q", tc.body, err, tc.field, tc.msg)
		}
	}
}
