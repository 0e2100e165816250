package api_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/testsite"
)

// TestChangePasswordGuessBatch: 100 wrong current_password guesses in one
// batch share the login limiter: 5 are checked, the other 95 are refused
// unchecked, and the right password is then refused too.
func TestChangePasswordGuessBatch(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var calls []string
	for i := range 100 {
		calls = append(calls, fmt.Sprintf(`{"jsonrpc":"2.0","method":"auth.change_password","params":{"current_password":"guess %d","new_password":"attacker password"},"id":%d}`, i, i))
	}
	status, _, v := raw(t, s, s.Client, "application/json", "["+strings.Join(calls, ",")+"]")
	replies, _ := v.([]any)
	if status != 200 || len(replies) != 100 {
		t.Fatalf("batch = %d with %d replies; want 200 with 100", status, len(replies))
	}
	codes := map[string]int{}
	for _, r := range replies {
		c, _ := field(r, "error", "data", "code").(string)
		codes[c]++
	}
	if codes["invalid"] != 5 || codes["rate_limited"] != 95 {
		t.Errorf("replies by error code = %v; want 5 invalid (checked) and 95 rate_limited", codes)
	}
	err := s.Client.Call(ctx, "auth.change_password", map[string]string{"current_password": testsite.Password, "new_password": "attacker password"}, nil)
	rpcErr(t, "right password after the guesses", err, -32004, "rate_limited", 429)
	if err := s.Client.Call(ctx, "tokens.list", nil, nil); err != nil {
		t.Errorf("the owner's session ended: %v", err)
	}
}

// TestBearerTokensCannotManageCredentials: a token may not mint tokens
// (which would outlive its own revocation), revoke them or change the
// password; the owner's browser session may.
func TestBearerTokensCannotManageCredentials(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var tok struct{ ID, Token string }
	if err := s.Client.Call(ctx, "tokens.create", map[string]string{"name": "script"}, &tok); err != nil {
		t.Fatal(err)
	}
	script := s.NewClient()
	script.Token = tok.Token
	for _, tc := range []struct {
		method string
		params any
	}{
		{"tokens.create", map[string]string{"name": "heir"}},
		{"tokens.revoke", map[string]string{"id": tok.ID}},
		{"auth.change_password", map[string]string{"current_password": testsite.Password, "new_password": "taken over pw"}},
	} {
		e := rpcErr(t, "bearer "+tc.method, script.Call(ctx, tc.method, tc.params, nil), -32003, "forbidden", 403)
		if e != nil && !strings.Contains(e.Message, "browser session") {
			t.Errorf("bearer %s message = %q; want it to name the browser session", tc.method, e.Message)
		}
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := script.Call(ctx, "tokens.list", nil, &list); err != nil || len(list.Items) != 1 {
		t.Errorf("tokens.list by the token = %d tokens, %v; want it allowed, still 1 token", len(list.Items), err)
	}
	// Revoked, the token is dead, and it left no heir behind.
	if err := s.Client.Call(ctx, "tokens.revoke", map[string]string{"id": tok.ID}, nil); err != nil {
		t.Fatal(err)
	}
	rpcErr(t, "revoked token", script.Call(ctx, "posts.list", nil, nil), -32000, "unauthorized", 401)
	s.Client.Call(ctx, "tokens.list", nil, &list)
	if len(list.Items) != 0 {
		t.Errorf("tokens after revoking the only one = %v; want none", list.Items)
	}
	c := s.NewClient()
	if err := c.Login(ctx, testsite.Password); err != nil {
		t.Errorf("the password changed: %v", err)
	}
}

// TestChangePasswordRevokeTokens: revoke_tokens ends every API token;
// without it tokens survive. Other sessions end either way.
func TestChangePasswordRevokeTokens(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	newToken := func() *client.Client {
		var tok struct{ Token string }
		if err := s.Client.Call(ctx, "tokens.create", map[string]string{"name": "script"}, &tok); err != nil {
			t.Fatal(err)
		}
		c := s.NewClient()
		c.Token = tok.Token
		return c
	}
	kept := newToken()
	other := s.NewClient()
	if err := other.Login(ctx, testsite.Password); err != nil {
		t.Fatal(err)
	}
	var res struct {
		TokensRevoked *int `json:"tokens_revoked"`
	}
	if err := s.Client.Call(ctx, "auth.change_password", map[string]any{"current_password": testsite.Password, "new_password": "second password"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.TokensRevoked == nil || *res.TokensRevoked != 0 {
		t.Errorf("tokens_revoked = %v; want 0", res.TokensRevoked)
	}
	if err := kept.Call(ctx, "posts.list", nil, nil); err != nil {
		t.Errorf("token after a change without revoke_tokens: %v; want it kept", err)
	}
	rpcErr(t, "other session after a change", other.Call(ctx, "tokens.list", nil, nil), -32000, "unauthorized", 401)
	gone := newToken()
	if err := s.Client.Call(ctx, "auth.change_password", map[string]any{"current_password": "second password", "new_password": "third password", "revoke_tokens": true}, &res); err != nil {
		t.Fatal(err)
	}
	if res.TokensRevoked == nil || *res.TokensRevoked != 2 {
		t.Errorf("tokens_revoked = %v; want 2", res.TokensRevoked)
	}
	for _, c := range []*client.Client{kept, gone} {
		rpcErr(t, "token after revoke_tokens", c.Call(ctx, "posts.list", nil, nil), -32000, "unauthorized", 401)
	}
	if err := s.Client.Call(ctx, "tokens.list", nil, nil); err != nil {
		t.Errorf("the session that changed the password ended: %v", err)
	}
}
