package api_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/testsite"
)

type sessionResult struct {
	ID         string    `json:"id"`
	UserAgent  string    `json:"user_agent"`
	CreatedAt  time.Time `json:"created_at"`
	LastSeenAt time.Time `json:"last_seen_at"`
	ExpiresAt  time.Time `json:"expires_at"`
	Current    bool      `json:"current"`
}

func listSessions(t *testing.T, c *client.Client) []sessionResult {
	t.Helper()
	var pg struct {
		Items      []sessionResult `json:"items"`
		NextCursor *string         `json:"next_cursor"`
	}
	if err := c.Call(ctx, "sessions.list", nil, &pg); err != nil {
		t.Fatalf("sessions.list: %v", err)
	}
	if pg.NextCursor != nil {
		t.Errorf("sessions.list next_cursor = %q; want null", *pg.NextCursor)
	}
	return pg.Items
}

// loggedIn returns a new client logged in as the owner, with a User-Agent
// of its own.
func loggedIn(t *testing.T, s *testsite.Site, ua string) *client.Client {
	t.Helper()
	c := s.NewClient()
	c.HTTP.Transport = uaTransport(ua)
	if err := c.Login(ctx, testsite.Password); err != nil {
		t.Fatal(err)
	}
	return c
}

type uaTransport string

func (u uaTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", string(u))
	return http.DefaultTransport.RoundTrip(r)
}

func TestSessionsListAndRevoke(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	// The site's own sessions: the test client's, and the one the setup
	// wizard's last step logged in.
	base := len(listSessions(t, s.Client))
	phone := loggedIn(t, s, "Phone/1.0")
	laptop := loggedIn(t, s, "Laptop/2.0")
	list := listSessions(t, s.Client)
	if len(list) != base+2 {
		t.Fatalf("sessions.list = %d sessions; want %d", len(list), base+2)
	}
	hex16 := regexp.MustCompile(`^[0-9a-f]{16}$`)
	current, byUA := 0, map[string]sessionResult{}
	for _, x := range list {
		if !hex16.MatchString(x.ID) || x.CreatedAt.IsZero() || x.LastSeenAt.IsZero() || !x.ExpiresAt.After(time.Now()) {
			t.Errorf("session %+v; want a 16-hex-digit id and its times", x)
		}
		if x.Current {
			current++
			if x.UserAgent == "Phone/1.0" || x.UserAgent == "Laptop/2.0" {
				t.Errorf("the caller's current session is %q's", x.UserAgent)
			}
		}
		byUA[x.UserAgent] = x
	}
	if current != 1 {
		t.Errorf("%d sessions marked current; want exactly the caller's", current)
	}
	if mine := listSessions(t, phone); len(mine) != base+2 || !func() bool {
		for _, x := range mine {
			if x.Current {
				return x.UserAgent == "Phone/1.0"
			}
		}
		return false
	}() {
		t.Errorf("the phone's sessions.list does not mark the phone's session current: %+v", mine)
	}
	// Ending the phone's session: its cookie stops working, the others go on.
	if err := s.Client.Call(ctx, "sessions.revoke", map[string]string{"id": byUA["Phone/1.0"].ID}, nil); err != nil {
		t.Fatal(err)
	}
	rpcErr(t, "the revoked phone", phone.Call(ctx, "tokens.list", nil, nil), -32000, "unauthorized", 401)
	if err := laptop.Call(ctx, "tokens.list", nil, nil); err != nil {
		t.Errorf("the laptop after the phone was revoked: %v", err)
	}
	rpcErr(t, "revoking it again", s.Client.Call(ctx, "sessions.revoke", map[string]string{"id": byUA["Phone/1.0"].ID}, nil), -32001, "not_found", 404)
	for _, bad := range []string{"", "xyz", strings.Repeat("a", 17), "0123456789ABCDEF", strings.Repeat("f", 1000)} {
		rpcErr(t, "sessions.revoke "+bad[:min(len(bad), 20)], s.Client.Call(ctx, "sessions.revoke", map[string]string{"id": bad}, nil), -32602, "invalid", 400)
	}
	if n := len(listSessions(t, s.Client)); n != base+1 {
		t.Errorf("sessions after one revoke = %d; want %d", n, base+1)
	}
}

func TestSessionsRevokeOthers(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	before := len(listSessions(t, s.Client)) - 1 // the wizard's, beside the caller's
	others := []*client.Client{loggedIn(t, s, "A"), loggedIn(t, s, "B"), loggedIn(t, s, "C")}
	var got struct {
		Status  string `json:"status"`
		Revoked int    `json:"revoked"`
	}
	if err := s.Client.Call(ctx, "sessions.revoke_others", nil, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != "ok" || got.Revoked != before+3 {
		t.Errorf("sessions.revoke_others = %+v; want ok, %d revoked", got, before+3)
	}
	for i, c := range others {
		rpcErr(t, "another session after revoke_others #"+string(rune('A'+i)), c.Call(ctx, "tokens.list", nil, nil), -32000, "unauthorized", 401)
	}
	list := listSessions(t, s.Client)
	if len(list) != 1 || !list[0].Current {
		t.Errorf("sessions after revoke_others = %+v; want only the caller's", list)
	}
	// Revoking one's own session is a logout: the cookie goes too.
	status, hdr, _ := raw(t, s, s.Client, "application/json", `{"jsonrpc":"2.0","method":"sessions.revoke","params":{"id":"`+list[0].ID+`"},"id":1}`)
	if status != 200 || !strings.Contains(strings.Join(hdr.Values("Set-Cookie"), ";"), "murlog_session=;") {
		t.Errorf("revoking the current session = %d, Set-Cookie %v; want 200 and the session cookie cleared", status, hdr.Values("Set-Cookie"))
	}
	rpcErr(t, "after revoking itself", s.Client.Call(ctx, "tokens.list", nil, nil), -32000, "unauthorized", 401)
}
