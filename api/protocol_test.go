package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/murlog/murlog/internal/testsite"
)

func TestProtocol(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	c := s.Client
	big := `{"jsonrpc":"2.0","method":"posts.list","id":1,"params":{"cursor":"` + strings.Repeat("x", 1<<20) + `"}}`
	batch101 := "[" + strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","method":"posts.list","id":1},`, 101), ",") + "]"
	for _, tc := range []struct {
		name, ctype, body string
		status            int
		rpcCode           float64 // 0: success expected
		dataCode          string
		id                any
	}{
		{"single call", "application/json", `{"jsonrpc":"2.0","method":"posts.list","id":7}`, 200, 0, "", float64(7)},
		{"string id", "application/json", `{"jsonrpc":"2.0","method":"posts.list","id":"a"}`, 200, 0, "", "a"},
		{"charset in content type", "application/json; charset=utf-8", `{"jsonrpc":"2.0","method":"posts.list","id":1}`, 200, 0, "", float64(1)},
		{"parse error", "application/json", `{"jsonrpc":"2.0",`, 400, -32700, "invalid", nil},
		{"empty body", "application/json", ``, 400, -32700, "invalid", nil},
		{"not an object", "application/json", `"hello"`, 400, -32600, "invalid", nil},
		{"wrong version", "application/json", `{"jsonrpc":"1.0","method":"posts.list","id":1}`, 400, -32600, "invalid", float64(1)},
		{"method not a string", "application/json", `{"jsonrpc":"2.0","method":5,"id":1}`, 400, -32600, "invalid", float64(1)},
		{"id is an object", "application/json", `{"jsonrpc":"2.0","method":"posts.list","id":{}}`, 400, -32600, "invalid", nil},
		{"unknown method", "application/json", `{"jsonrpc":"2.0","method":"posts.frobnicate","id":2}`, 404, -32601, "not_found", float64(2)},
		{"positional params", "application/json", `{"jsonrpc":"2.0","method":"posts.list","params":[1],"id":3}`, 400, -32602, "invalid", float64(3)},
		{"wrong param type", "application/json", `{"jsonrpc":"2.0","method":"posts.list","params":{"limit":"ten"},"id":4}`, 400, -32602, "invalid", float64(4)},
		{"unknown param", "application/json", `{"jsonrpc":"2.0","method":"posts.list","params":{"limitt":5},"id":5}`, 400, -32602, "invalid", float64(5)},
		{"empty batch", "application/json", `[]`, 400, -32600, "invalid", nil},
		{"batch too large", "application/json", batch101, 400, -32600, "invalid", nil},
		{"body too large", "application/json", big, 413, -32600, "invalid", nil},
		{"wrong content type", "text/plain", `{"jsonrpc":"2.0","method":"posts.list","id":1}`, 415, -32600, "invalid", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, v := raw(t, s, c, tc.ctype, tc.body)
			if status != tc.status {
				t.Errorf("HTTP status = %d; want %d (body %v)", status, tc.status, v)
			}
			if field(v, "jsonrpc") != "2.0" {
				t.Errorf("jsonrpc = %v; want 2.0", field(v, "jsonrpc"))
			}
			if got := field(v, "id"); got != tc.id {
				t.Errorf("id = %#v; want %#v", got, tc.id)
			}
			if tc.rpcCode == 0 {
				if field(v, "error") != nil || field(v, "result") == nil {
					t.Errorf("got %v; want a result and no error", v)
				}
				return
			}
			if got := field(v, "error", "code"); got != tc.rpcCode {
				t.Errorf("error.code = %v; want %v (%v)", got, tc.rpcCode, field(v, "error", "message"))
			}
			if got := field(v, "error", "data", "code"); got != tc.dataCode {
				t.Errorf("error.data.code = %v; want %s", got, tc.dataCode)
			}
			if msg, _ := field(v, "error", "message").(string); msg == "" {
				t.Error("error.message is empty; want a readable message")
			}
			if field(v, "result") != nil {
				t.Error("an error response also has a result")
			}
		})
	}
}

func TestBatchAndNotifications(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	c := s.Client
	status, _, v := raw(t, s, c, "application/json", `[
		{"jsonrpc":"2.0","method":"posts.create","params":{"content":"one"},"id":1},
		{"jsonrpc":"2.0","method":"posts.create","params":{"content":"notified"}},
		{"jsonrpc":"2.0","method":"no.such","id":2},
		{"jsonrpc":"2.0","method":"posts.create","params":{"visibility":"everyone","content":"x"},"id":3},
		42
	]`)
	if status != 200 {
		t.Fatalf("batch status = %d; want 200 (errors are per call)", status)
	}
	arr, _ := v.([]any)
	if len(arr) != 4 {
		t.Fatalf("batch answered %d responses; want 4 (the notification gets none): %v", len(arr), v)
	}
	want := []struct {
		id   any
		code float64
	}{{float64(1), 0}, {float64(2), -32601}, {float64(3), -32602}, {nil, -32600}}
	for i, w := range want {
		if got := field(arr[i], "id"); got != w.id {
			t.Errorf("response %d id = %v; want %v", i, got, w.id)
		}
		if w.code == 0 && field(arr[i], "result") == nil {
			t.Errorf("response %d = %v; want a result", i, arr[i])
		}
		if w.code != 0 && field(arr[i], "error", "code") != w.code {
			t.Errorf("response %d error = %v; want code %v", i, field(arr[i], "error"), w.code)
		}
	}
	if n := count(t, c); n != 2 {
		t.Errorf("posts after the batch = %d; want 2 (the call and the notification ran, the invalid one did not)", n)
	}
	// Notifications only: nothing to answer.
	status, _, v = raw(t, s, c, "application/json", `[{"jsonrpc":"2.0","method":"posts.list"},{"jsonrpc":"2.0","method":"nope"}]`)
	if status != http.StatusNoContent || v != nil {
		t.Errorf("notification-only batch = %d %v; want 204 and no body", status, v)
	}
	status, _, v = raw(t, s, c, "application/json", `{"jsonrpc":"2.0","method":"posts.list"}`)
	if status != http.StatusNoContent || v != nil {
		t.Errorf("single notification = %d %v; want 204 and no body", status, v)
	}
	// A batch of exactly the limit is accepted.
	b := "[" + strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","method":"posts.list","id":1},`, 100), ",") + "]"
	status, _, v = raw(t, s, c, "application/json", b)
	if arr, _ := v.([]any); status != 200 || len(arr) != 100 {
		t.Errorf("batch of 100 = %d with %d responses; want 200 with 100", status, len(arr))
	}
}

func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	resp, err := http.Get(s.Server.URL + "/api/mur/v1/rpc")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET = %d Allow %q; want 405 Allow POST", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestWrongParamTypesNameTheField(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	for _, tc := range []struct {
		method string
		params map[string]any
		field  string
	}{
		{"posts.create", map[string]any{"content": 5}, "content"},
		{"posts.create", map[string]any{"content": "x", "sensitive": "yes"}, "sensitive"},
		{"posts.create", map[string]any{"content": "x", "published_at": 1700000000}, "published_at"},
		{"posts.get", map[string]any{"id": []int{1}}, "id"},
		{"personas.update", map[string]any{"id": "x", "fields": "name"}, "fields"},
	} {
		err := s.Client.Call(ctx, tc.method, tc.params, nil)
		e := rpcErr(t, fmt.Sprintf("%s(%v)", tc.method, tc.params), err, -32602, "invalid", 400)
		if e != nil && !strings.Contains(e.Message, tc.field) {
			t.Errorf("%s(%v) message %q does not name %q", tc.method, tc.params, e.Message, tc.field)
		}
	}
}
