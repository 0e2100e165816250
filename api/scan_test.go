package api

import (
	"bytes"
	"reflect"

	"encoding/json"
	"github.com/murlog/murlog"
	"testing"
	"unicode/utf8"
)

// FuzzScan checks scan against encoding/json: whatever scan accepts
// without a problem, encoding/json accepts as the same value; whatever
// encoding/json refuses, scan refuses too.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"posts.list","params":{"limit":5},"id":1}`,
		`[{"a":1},{"b":[1,2,{"c":null}]}]`, `"x"`, `-0.5e+3`, `{"a":"\ud83d\ude00"}`, `{"a":"\ud800"}`,
		`{"a":1,"a":2}`, "{\"a\":\"\xff\"}", `[]`, `{}`, `[1,]`, `{"a" 1}`, `tru`, `01`, `1.`, `"\u00zz"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		elems, n, batch, err := scan(b)
		valid := json.Valid(b)
		if err != nil {
			if se := err.(*syntaxError); valid && !se.tooDeep {
				t.Fatalf("scan(%q) = %v; encoding/json accepts it", b, err)
			}
			return
		}
		if !valid {
			t.Fatalf("scan(%q) accepted what encoding/json refuses", b)
		}
		clean := utf8.Valid(b)
		for _, el := range elems {
			if el.prob != nil {
				clean = false
			}
			if !json.Valid(el.raw) {
				t.Fatalf("scan(%q): element %q is not JSON", b, el.raw)
			}
			for _, m := range el.members {
				if !json.Valid(m.key) || !json.Valid(m.val) {
					t.Fatalf("scan(%q): member %q: %q is not JSON", b, m.key, m.val)
				}
			}
		}
		if clean && batch && len(elems) > 0 {
			var arr []json.RawMessage
			if json.Unmarshal(b, &arr) != nil || len(arr) != n || len(elems) != min(n, MaxBatch) {
				t.Fatalf("scan(%q) found %d elements (%d kept); encoding/json %d", b, n, len(elems), len(arr))
			}
		}
	})
}

// TestSchemaCheck checks the exact-name walk on nested params.
func TestSchemaCheck(t *testing.T) {
	sch := schemaOf(reflect.TypeFor[personaUpdateParams]())
	for raw, want := range map[string]string{
		`{"id":"x","fields":[{"name":"a","value":"b"}]}`: "",
		`{"id":"x","fields":[{"name":"a","VALUE":"b"}]}`: "fields[0].VALUE",
		`{"ID":"x"}`: "ID",
		`{"id":"x","display_name":null,"locked":true}`:   "",
		`{"id":"x","fields":[{"name":"a"},{"nam":"b"}]}`: "fields[1].nam",
	} {
		err := sch.check([]byte(raw), "")
		if (err == nil) != (want == "") || err != nil && murlog.AsError(err).Field != want {
			t.Errorf("check(%s) = %v; want an error naming %q", raw, err, want)
		}
	}
}

var benchBody = []byte(`{"jsonrpc":"2.0","method":"posts.get","params":{"id":"01a22c96-7857-70f9-bbb4-7a4a6ae66d4f"},"id":17}`)

// BenchmarkDecodeRequest is the strict path a posts.get body takes before
// the method runs: scan, parseRequest, decodeParams.
func BenchmarkDecodeRequest(b *testing.B) {
	sch := schemaOf(reflect.TypeFor[idParams]())
	b.ReportAllocs()
	for b.Loop() {
		elems, _, _, err := scan(benchBody)
		if err != nil {
			b.Fatal(err)
		}
		req := parseRequest(&elems[0])
		var p idParams
		if req.err != nil || decodeParams(req.Params, sch, &p) != nil {
			b.Fatal("decode failed")
		}
	}
}

// BenchmarkDecodeRequestStdlib is what the same body cost before the
// strict decoder: json.Valid, json.Unmarshal of the request object and a
// Decoder with DisallowUnknownFields for the params.
func BenchmarkDecodeRequestStdlib(b *testing.B) {
	type request struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  *string         `json:"method"`
		Params  json.RawMessage `json:"params"`
		ID      json.RawMessage `json:"id"`
	}
	b.ReportAllocs()
	for b.Loop() {
		if !json.Valid(benchBody) {
			b.Fatal("invalid")
		}
		var req request
		if err := json.Unmarshal(benchBody, &req); err != nil {
			b.Fatal(err)
		}
		var p idParams
		dec := json.NewDecoder(bytes.NewReader(req.Params))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSyntaxErrorNamesTheByte: a byte outside printable ASCII is named by
// its value, not shown as the Latin-1 character it is not, and a leading
// byte order mark is called what it is.
func TestSyntaxErrorNamesTheByte(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"\xef\xbb\xbf{}", "unexpected byte order mark U+FEFF (send JSON without one), expected a value at byte 0"},
		{"{\"a\":\xff}", "unexpected byte 0xFF, expected a value"},
		{`{"a" 1}`, `unexpected '1', expected ':'`},
	} {
		_, _, _, err := scan([]byte(tc.body))
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("scan(%q) = %v; want an error containing %q", tc.body, err, tc.want)
		}
	}
}
