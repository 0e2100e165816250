package api_test

import (
	"strings"
	"testing"

	"github.com/murlog/murlog/internal/testsite"
)

// TestStrictJSON covers issue 6 point 10: what encoding/json would accept
// silently (the last of duplicated keys, keys in another case) is refused
// with a message saying what is wrong, and nothing is written.
func TestStrictJSON(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	pid := primary(t, s).ID
	deep := `{"jsonrpc":"2.0","method":"posts.list","params":{"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `},"id":1}`
	veryDeep := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	for _, tc := range []struct {
		name, body string
		rpcCode    float64
		field      string // error.data.field, "" for none
		msg        string // part of error.message
	}{
		{"duplicate method", `{"jsonrpc":"2.0","method":"posts.list","method":"posts.delete","id":1}`, -32600, "", `method: is given twice`},
		{"duplicate method spelled with an escape", `{"jsonrpc":"2.0","method":"posts.list","\u006dethod":"posts.delete","id":1}`, -32600, "", "is given twice"},
		{"duplicate id", `{"jsonrpc":"2.0","method":"posts.list","id":1,"id":2}`, -32600, "", "id: is given twice"},
		{"duplicate param", `{"jsonrpc":"2.0","method":"posts.create","params":{"content":"a","content":"b"},"id":1}`, -32602, "content", "content: is given twice"},
		{"duplicate nested key", `{"jsonrpc":"2.0","method":"personas.update","params":{"id":"` + pid + `","fields":[{"name":"a","name":"b","value":"c"}]},"id":1}`, -32602, "fields[0].name", "is given twice"},
		{"upper-case member", `{"jsonrpc":"2.0","METHOD":"posts.list","id":1}`, -32600, "", `unknown member "METHOD"; member names are case-sensitive: did you mean "method"?`},
		{"upper-case param", `{"jsonrpc":"2.0","method":"posts.create","params":{"CONTENT":"x"},"id":1}`, -32602, "CONTENT", `did you mean "content"?`},
		{"mixed-case nested key", `{"jsonrpc":"2.0","method":"personas.update","params":{"id":"` + pid + `","fields":[{"Name":"a","value":"b"}]},"id":1}`, -32602, "fields[0].Name", `did you mean "name"?`},
		{"fraction for an integer", `{"jsonrpc":"2.0","method":"posts.list","params":{"limit":1.5},"id":1}`, -32602, "limit", "limit: must be an integer"},
		{"integer out of range", `{"jsonrpc":"2.0","method":"posts.list","params":{"limit":99999999999999999999999},"id":1}`, -32602, "limit", "limit: is out of range"},
		{"string for an integer", `{"jsonrpc":"2.0","method":"posts.list","params":{"limit":"ten"},"id":1}`, -32602, "limit", "limit: must be an integer"},
		{"number for a string", `{"jsonrpc":"2.0","method":"posts.create","params":{"content":5},"id":1}`, -32602, "content", "content: must be a string"},
		{"string for a boolean", `{"jsonrpc":"2.0","method":"posts.create","params":{"content":"x","sensitive":"yes"},"id":1}`, -32602, "sensitive", "sensitive: must be true or false"},
		{"too deep", deep, -32600, "", "nested too deeply"},
		{"far too deep", veryDeep, -32600, "", "nested too deeply"},
		{"null body", `null`, -32600, "", "not a request object"},
		{"null in a batch", `[null]`, -32600, "", "not a request object"},
		{"offset +24:00", `{"jsonrpc":"2.0","method":"posts.create","params":{"content":"x","published_at":"2026-01-01T00:00:00+24:00"},"id":1}`, -32602, "published_at", "±23:59"},
		{"offset -99:00", `{"jsonrpc":"2.0","method":"posts.create","params":{"content":"x","published_at":"2026-01-01T00:00:00-99:00"},"id":1}`, -32602, "published_at", "RFC 3339"},
		{"trailing data", `{"jsonrpc":"2.0","method":"posts.list","id":1} {}`, -32700, "", "after the top-level value"},
		{"trailing comma", `{"jsonrpc":"2.0","method":"posts.list","id":1,}`, -32700, "", "parse error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := count(t, s.Client)
			status, _, v := raw(t, s, s.Client, "application/json", tc.body)
			if arr, ok := v.([]any); ok && len(arr) == 1 {
				v = arr[0]
			}
			msg, _ := field(v, "error", "message").(string)
			if field(v, "error", "code") != tc.rpcCode || !strings.Contains(msg, tc.msg) {
				t.Errorf("HTTP %d error %v; want code %v with a message containing %q", status, field(v, "error"), tc.rpcCode, tc.msg)
			}
			if got, _ := field(v, "error", "data", "field").(string); got != tc.field {
				t.Errorf("error.data.field = %q; want %q", got, tc.field)
			}
			if after := count(t, s.Client); after != before {
				t.Errorf("posts: %d before, %d after; want nothing written", before, after)
			}
		})
	}
	// The limits are not stricter than the rules: ±23:59 and an escaped
	// but distinct key are fine.
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"posts.create","params":{"content":"x","published_at":"2026-01-01T00:00:00+23:59"},"id":1}`,
		`{"jsonrpc":"2.0","method":"posts.create","params":{"content":"x","summar\u0079":"cw"},"id":1}`,
		`[{"jsonrpc":"2.0","method":"posts.get","params":{"id":"x"},"id":1},{"jsonrpc":"2.0","method":"posts.get","params":{"id":"x"},"id":1}]`,
	} {
		status, _, v := raw(t, s, s.Client, "application/json", body)
		if arr, ok := v.([]any); ok {
			v = arr[0]
			if field(v, "error", "data", "field") == "id" {
				continue // the same key in two calls is not a duplicate
			}
		}
		if status != 200 || field(v, "result") == nil {
			t.Errorf("%s = %d %v; want a result", body, status, v)
		}
	}
}
