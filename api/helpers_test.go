package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/testsite"
)

var ctx = context.Background()

// raw posts body to the RPC endpoint with c's cookies and CSRF header and
// returns the status, headers and decoded JSON (nil for an empty body).
func raw(t *testing.T, s *testsite.Site, c *client.Client, contentType, body string) (int, http.Header, any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.Server.URL+"/api/mur/v1/rpc", bytes.NewBufferString(body))
	req.Header.Set("Content-Type", contentType)
	if c != nil {
		if tok := c.Cookie(ctx, "csrf_token"); tok != "" {
			req.Header.Set("X-CSRF-Token", tok)
		}
		if c.Token != "" {
			req.Header.Set("Authorization", "Bearer "+c.Token)
		}
	}
	hc := http.DefaultClient
	if c != nil {
		hc = c.HTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var v any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("response is not JSON: %q", b)
		}
	}
	return resp.StatusCode, resp.Header, v
}

// rpcErr asserts err is a JSON-RPC error with the given codes.
func rpcErr(t *testing.T, what string, err error, rpcCode int, dataCode string, status int) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: err = %v; want a JSON-RPC error %d/%s", what, err, rpcCode, dataCode)
	}
	if e.RPCCode != rpcCode || e.Data.Code != dataCode || (status != 0 && e.HTTPStatus != status) {
		t.Errorf("%s: got %d/%s HTTP %d (%q); want %d/%s HTTP %d", what, e.RPCCode, e.Data.Code, e.HTTPStatus, e.Message, rpcCode, dataCode, status)
	}
	return e
}

// field returns m[k] of a decoded JSON object.
func field(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

type postResult struct {
	ID          string   `json:"id"`
	Kind        string   `json:"kind"`
	Title       string   `json:"title"`
	Content     string   `json:"content"`
	Source      *string  `json:"source"`
	Summary     string   `json:"summary"`
	Sensitive   bool     `json:"sensitive"`
	Visibility  string   `json:"visibility"`
	Language    string   `json:"language"`
	Tags        []string `json:"tags"`
	PublishedAt *string  `json:"published_at"`
	State       string   `json:"state"`
	URL         string   `json:"url"`
	Slug        string   `json:"slug"`
	Page        bool     `json:"page"`
}

type postPage struct {
	Items      []postResult `json:"items"`
	NextCursor *string      `json:"next_cursor"`
}

func create(t *testing.T, c *client.Client, params map[string]any) postResult {
	t.Helper()
	var p postResult
	if err := c.Call(ctx, "posts.create", params, &p); err != nil {
		t.Fatalf("posts.create(%v): %v", params, err)
	}
	return p
}

// createMany makes n posts (params(i) each) in one batch: made one by
// one, each post would render its lists and feeds again in its own
// request. A batch of more than a few posts leaves its pages to the
// rebuild job, which no test here runs: the tests that use it read posts
// through the API, never the public site (Settle first for that).
func createMany(t *testing.T, s *testsite.Site, n int, params func(i int) map[string]any) {
	t.Helper()
	calls := make([]string, n)
	for i := range n {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "posts.create", "id": i, "params": params(i)})
		calls[i] = string(b)
	}
	status, reply, err := s.Client.Post(ctx, "/api/mur/v1/rpc", "application/json", []byte("["+strings.Join(calls, ",")+"]"))
	if err != nil || status != http.StatusOK || strings.Contains(string(reply), `"error"`) {
		t.Fatalf("creating %d posts in a batch: HTTP %d, %v: %.300s", n, status, err, reply)
	}
}

func count(t *testing.T, c *client.Client) int {
	t.Helper()
	n := 0
	cursor := ""
	for {
		var pg postPage
		params := map[string]any{"limit": 100}
		if cursor != "" {
			params["cursor"] = cursor
		}
		if err := c.Call(ctx, "posts.list", params, &pg); err != nil {
			t.Fatal(err)
		}
		n += len(pg.Items)
		if pg.NextCursor == nil {
			return n
		}
		cursor = *pg.NextCursor
	}
}

func decodeJSON(resp *http.Response, v any) {
	b, _ := io.ReadAll(resp.Body)
	if len(b) > 0 {
		json.Unmarshal(b, v)
	}
}
