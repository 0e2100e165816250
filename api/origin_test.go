package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/testsite"
)

// rawFrom posts body with c's cookies, CSRF header and bearer token (if
// any) plus the given extra headers.
func rawFrom(t *testing.T, s *testsite.Site, c *client.Client, body string, hdr map[string]string) (int, any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.Server.URL+"/api/mur/v1/rpc", bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	if tok := c.Cookie(ctx, "csrf_token"); tok != "" {
		req.Header.Set("X-CSRF-Token", tok)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var v any
	json.Unmarshal(b, &v)
	return resp.StatusCode, v
}

// TestForeignOriginIsRefused: a call with the owner's valid session and
// CSRF token is refused when a browser says another site's page sent it,
// and nothing is written; same-origin calls, calls with neither header and
// bearer-token calls go through.
func TestForeignOriginIsRefused(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	own := "http://" + s.Domain()
	create := `{"jsonrpc":"2.0","method":"posts.create","params":{"content":"from somewhere"},"id":1}`
	for _, tc := range []struct {
		name string
		hdr  map[string]string
	}{
		{"foreign Origin", map[string]string{"Origin": "http://evil.example"}},
		{"sibling port", map[string]string{"Origin": "http://" + s.Domain() + "1"}},
		{"https instead of http", map[string]string{"Origin": "https://" + s.Domain()}},
		{"null Origin", map[string]string{"Origin": "null"}},
		{"foreign Referer, no Origin", map[string]string{"Referer": "http://evil.example/page"}},
	} {
		status, v := rawFrom(t, s, s.Client, create, tc.hdr)
		if status != 403 || field(v, "error", "code") != float64(-32003) || field(v, "error", "data", "code") != "forbidden" {
			t.Errorf("%s: posts.create with session + CSRF = %d %v; want 403 -32003 forbidden", tc.name, status, field(v, "error"))
		}
	}
	if n := count(t, s.Client); n != 0 {
		t.Fatalf("posts = %d after refused cross-site calls; want 0", n)
	}
	// Login from another site's page is refused too (it rides on the CSRF cookie).
	fresh := s.NewClient()
	fresh.FetchCSRF(ctx)
	if status, v := rawFrom(t, s, fresh, `{"jsonrpc":"2.0","method":"auth.login","params":{"password":"`+testsite.Password+`"},"id":1}`,
		map[string]string{"Origin": "http://evil.example"}); status != 403 {
		t.Errorf("auth.login from a foreign Origin = %d %v; want 403", status, field(v, "error"))
	}
	for _, tc := range []struct {
		name string
		hdr  map[string]string
	}{
		{"same Origin", map[string]string{"Origin": own}},
		{"same-site Referer", map[string]string{"Referer": own + "/my/"}},
		{"neither header", nil},
	} {
		if status, v := rawFrom(t, s, s.Client, create, tc.hdr); status != 200 {
			t.Errorf("%s: posts.create = %d %v; want 200", tc.name, status, field(v, "error"))
		}
	}
	var tok struct{ Token string }
	if err := s.Client.Call(ctx, "tokens.create", map[string]string{"name": "script"}, &tok); err != nil {
		t.Fatal(err)
	}
	script := client.New(s.Server.URL)
	script.Token = tok.Token
	if status, v := rawFrom(t, s, script, create, map[string]string{"Origin": "http://evil.example"}); status != 200 {
		t.Errorf("bearer token with a foreign Origin = %d %v; want 200 (tokens are not browser credentials)", status, field(v, "error"))
	}
	if n := count(t, s.Client); n != 4 {
		t.Errorf("posts = %d; want the 4 allowed calls", n)
	}
}
