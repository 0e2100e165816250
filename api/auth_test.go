package api_test

import (
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/testsite"
)

func TestOwnerMethodsNeedCredentials(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	anon := s.NewClient()
	anon.FetchCSRF(ctx)
	for _, m := range []string{"posts.create", "posts.update", "posts.delete", "personas.update", "site.get_settings",
		"site.update_settings", "tokens.create", "tokens.list", "tokens.revoke", "auth.logout", "auth.change_password"} {
		err := anon.Call(ctx, m, map[string]any{}, nil)
		rpcErr(t, "anonymous "+m, err, -32000, "unauthorized", 401)
	}
	for _, m := range []string{"posts.list", "personas.list"} {
		if err := anon.Call(ctx, m, nil, nil); err != nil {
			t.Errorf("anonymous %s: %v; want it public", m, err)
		}
	}
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	// The owner's session cookie without the header: refused, nothing written.
	status, _, v := rawNoCSRF(t, s, s.Client, `{"jsonrpc":"2.0","method":"posts.create","params":{"content":"csrf"},"id":1}`)
	if status != 403 || field(v, "error", "data", "code") != "forbidden" {
		t.Errorf("session without X-CSRF-Token = %d %v; want 403 forbidden", status, field(v, "error"))
	}
	if n := count(t, s.Client); n != 0 {
		t.Errorf("posts = %d after a refused CSRF call; want 0", n)
	}
	// A wrong header value is refused too.
	req, _ := http.NewRequest("POST", s.Server.URL+"/api/mur/v1/rpc", strings.NewReader(`{"jsonrpc":"2.0","method":"posts.create","params":{"content":"x"},"id":1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", strings.Repeat("A", 43))
	resp, _ := s.Client.HTTP.Do(req)
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("wrong CSRF token = %d; want 403", resp.StatusCode)
	}
	// Reads with the session need no CSRF header.
	status, _, _ = rawNoCSRF(t, s, s.Client, `{"jsonrpc":"2.0","method":"tokens.list","id":1}`)
	if status != 200 {
		t.Errorf("tokens.list with session but no CSRF header = %d; want 200", status)
	}
	// Login needs the CSRF pair as well (login CSRF).
	fresh := s.NewClient()
	status, _, _ = rawNoCSRF(t, s, fresh, `{"jsonrpc":"2.0","method":"auth.login","params":{"password":"`+testsite.Password+`"},"id":1}`)
	if status != 403 {
		t.Errorf("auth.login without CSRF = %d; want 403", status)
	}
	// A bearer token needs no CSRF token.
	var tok struct{ Token string }
	if err := s.Client.Call(ctx, "tokens.create", map[string]string{"name": "script"}, &tok); err != nil {
		t.Fatal(err)
	}
	script := client.New(s.Server.URL)
	script.Token = tok.Token
	if err := script.Call(ctx, "posts.create", map[string]string{"content": "from a script"}, nil); err != nil {
		t.Errorf("posts.create with a bearer token: %v", err)
	}
}

func rawNoCSRF(t *testing.T, s *testsite.Site, c *client.Client, body string) (int, http.Header, any) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.Server.URL+"/api/mur/v1/rpc", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v any
	decodeJSON(resp, &v)
	return resp.StatusCode, resp.Header, v
}

func TestLoginCookiesAndLogout(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	c := s.NewClient()
	c.FetchCSRF(ctx)
	before := c.Cookie(ctx, "csrf_token")
	body := `{"jsonrpc":"2.0","method":"auth.login","params":{"password":"` + testsite.Password + `"},"id":1}`
	req, _ := http.NewRequest("POST", s.Server.URL+"/api/mur/v1/rpc", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", before)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var sess *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "murlog_session" {
			sess = ck
		}
	}
	if sess == nil {
		t.Fatal("auth.login set no murlog_session cookie")
	}
	if !sess.HttpOnly || sess.SameSite != http.SameSiteStrictMode || sess.Path != "/" || sess.Secure {
		t.Errorf("session cookie = %+v; want HttpOnly, SameSite=Strict, Path=/, not Secure on an http test site", sess)
	}
	if d := time.Duration(sess.MaxAge) * time.Second; d < 13*24*time.Hour || d > 14*24*time.Hour {
		t.Errorf("session Max-Age = %v; want 14 days", d)
	}
	if after := c.Cookie(ctx, "csrf_token"); after == before {
		t.Error("the CSRF token was not rotated at login")
	}
	if err := c.Call(ctx, "tokens.list", nil, nil); err != nil {
		t.Errorf("owner call after login: %v", err)
	}
	if err := c.Call(ctx, "auth.logout", nil, nil); err != nil {
		t.Fatal(err)
	}
	rpcErr(t, "tokens.list after logout", c.Call(ctx, "tokens.list", nil, nil), -32000, "unauthorized", 401)
}

func TestSecureCookiesUnderHTTPS(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Env: map[string]string{"MURLOG_SCHEME": "https"}, Bare: true})
	resp, err := http.Get(s.Server.URL + "/admin/setup/server")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if ck.Name == "csrf_token" && (!ck.Secure || ck.SameSite != http.SameSiteStrictMode) {
			t.Errorf("csrf cookie under scheme https = %+v; want Secure and SameSite", ck)
		}
	}
}

func TestWrongPasswordAndLockout(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	c := s.NewClient()
	c.FetchCSRF(ctx)
	for i := 1; i <= 5; i++ {
		err := c.Call(ctx, "auth.login", map[string]string{"password": "wrong password"}, nil)
		rpcErr(t, "wrong password #"+strconv.Itoa(i), err, -32000, "unauthorized", 401)
	}
	status, hdr, v := raw(t, s, c, "application/json", `{"jsonrpc":"2.0","method":"auth.login","params":{"password":"`+testsite.Password+`"},"id":1}`)
	if status != 429 || field(v, "error", "code") != float64(-32004) || field(v, "error", "data", "code") != "rate_limited" {
		t.Errorf("locked-out login = %d %v; want 429 -32004 rate_limited", status, field(v, "error"))
	}
	ra, _ := strconv.Atoi(hdr.Get("Retry-After"))
	if ra < 1 || ra > 300 {
		t.Errorf("Retry-After = %q; want 1..300 seconds", hdr.Get("Retry-After"))
	}
	if d, _ := field(v, "error", "data", "retry_after").(float64); int(d) != ra {
		t.Errorf("error.data.retry_after = %v; want %d like the header", d, ra)
	}
	// No session was created by any of this.
	if err := c.Call(ctx, "tokens.list", nil, nil); err == nil {
		t.Error("a locked-out client is logged in")
	}
}

func TestExpiredSession(t *testing.T) {
	t.Parallel()
	// Near real time: the cookie jar judges the cookie's Max-Age by the wall clock.
	var clock atomic.Pointer[time.Time]
	now := time.Now()
	clock.Store(&now)
	s := testsite.Start(t, testsite.Options{Now: func() time.Time { return *clock.Load() }})
	later := now.Add(15 * 24 * time.Hour)
	clock.Store(&later)
	status, hdr, v := raw(t, s, s.Client, "application/json", `{"jsonrpc":"2.0","method":"tokens.list","id":1}`)
	if status != 401 || !strings.Contains(field(v, "error", "message").(string), "expired") {
		t.Errorf("expired session = %d %v; want 401 'session expired'", status, field(v, "error"))
	}
	if !strings.Contains(strings.Join(hdr.Values("Set-Cookie"), ";"), "murlog_session=;") {
		t.Errorf("the expired session cookie was not cleared: %v", hdr.Values("Set-Cookie"))
	}
	// Public reads still work for the now-anonymous browser.
	if status, _, _ := raw(t, s, s.Client, "application/json", `{"jsonrpc":"2.0","method":"posts.list","id":1}`); status != 200 {
		t.Errorf("posts.list with an expired cookie = %d; want 200 as anonymous", status)
	}
}

func TestTokensOverRPC(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var tok struct {
		ID, Name, Token, Prefix string
	}
	if err := s.Client.Call(ctx, "tokens.create", map[string]string{"name": "backup"}, &tok); err != nil {
		t.Fatal(err)
	}
	if tok.Token == "" || !strings.HasPrefix(tok.Token, tok.Prefix) {
		t.Fatalf("tokens.create = %+v; want the secret once", tok)
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	s.Client.Call(ctx, "tokens.list", nil, &list)
	if len(list.Items) != 1 || list.Items[0]["token"] != nil || list.Items[0]["name"] != "backup" {
		t.Errorf("tokens.list = %v; want the token without its secret", list.Items)
	}
	script := s.NewClient()
	script.Token = tok.Token
	if err := script.Call(ctx, "tokens.list", nil, nil); err != nil {
		t.Errorf("bearer call: %v", err)
	}
	if err := s.Client.Call(ctx, "tokens.revoke", map[string]string{"id": tok.ID}, nil); err != nil {
		t.Fatal(err)
	}
	rpcErr(t, "revoked token", script.Call(ctx, "posts.list", nil, nil), -32000, "unauthorized", 401)
	bad := s.NewClient()
	bad.Token = "mlg_" + strings.Repeat("x", 43)
	rpcErr(t, "unknown token on a public method", bad.Call(ctx, "posts.list", nil, nil), -32000, "unauthorized", 401)
}

func TestChangePasswordOverRPC(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	err := s.Client.Call(ctx, "auth.change_password", map[string]string{"current_password": "nope", "new_password": "new long password"}, nil)
	rpcErr(t, "wrong current password", err, -32602, "invalid", 400)
	if err := s.Client.Call(ctx, "auth.change_password", map[string]string{"current_password": testsite.Password, "new_password": "new long password"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Client.Call(ctx, "tokens.list", nil, nil); err != nil {
		t.Errorf("the session that changed the password was logged out: %v", err)
	}
	c := s.NewClient()
	if err := c.Login(ctx, "new long password"); err != nil {
		t.Errorf("login with the new password: %v", err)
	}
}

func TestNoSecretsInLogs(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var tok struct{ Token string }
	s.Client.Call(ctx, "tokens.create", map[string]string{"name": "x"}, &tok)
	c := s.NewClient()
	c.Login(ctx, "a wrong password 123")
	script := s.NewClient()
	script.Token = tok.Token
	script.Call(ctx, "posts.list", nil, nil)
	s.Client.Call(ctx, "auth.change_password", map[string]string{"current_password": testsite.Password, "new_password": "another secret pw"}, nil)
	logs := s.Logs.String()
	if !strings.Contains(logs, `"msg":"request"`) {
		t.Fatalf("no request log lines at all:\n%s", logs)
	}
	session := s.Client.Cookie(ctx, "murlog_session")
	for _, secret := range []string{testsite.Password, "a wrong password 123", "another secret pw", tok.Token, session, s.Client.Cookie(ctx, "csrf_token")} {
		if secret != "" && strings.Contains(logs, secret) {
			t.Errorf("the log contains a secret (%q…)", secret[:6])
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		if strings.Contains(line, `"msg":"request"`) {
			for _, k := range []string{`"method"`, `"path"`, `"status"`, `"duration_ms"`} {
				if !strings.Contains(line, k) {
					t.Errorf("request line lacks %s: %s", k, line)
				}
			}
		}
	}
}
