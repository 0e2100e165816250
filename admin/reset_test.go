package admin_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/internal/testsite"
)

func resetFile(t *testing.T, s *testsite.Site) (secret, link string) {
	t.Helper()
	link, file, err := app.Reset(ctx, app.Options{ConfigPath: filepath.Join(s.Dir, "murlog.ini"),
		Getenv: func(k string) string { return s.Env[k] }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("app.Reset: %v", err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitN(string(b), "\n", 2)[0], link
}

func TestPasswordResetPage(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	secret, link := resetFile(t, s)
	if link != "http://"+s.Domain()+"/admin/reset" {
		t.Errorf("reset link = %q; want http://%s/admin/reset", link, s.Domain())
	}
	c := s.NewClient()
	c.AcceptLanguage = "ja"
	status, _, page, _ := c.Get(ctx, "/admin/reset")
	if status != 200 || !strings.Contains(string(page), "パスワードのリセット") {
		t.Errorf("GET /admin/reset (ja) = %d; want the Japanese form", status)
	}
	status, _, body, _ := c.SubmitForm(ctx, "/admin/reset", url.Values{"secret": {"wrong"}, "password": {"a new password"}, "password_confirm": {"a new password"}})
	if status != 400 || !strings.Contains(string(body), "一致しません") {
		t.Errorf("wrong secret = %d; want 400 with a Japanese message", status)
	}
	status, _, _, _ = c.SubmitForm(ctx, "/admin/reset", url.Values{"secret": {secret}, "password": {"a new password"}, "password_confirm": {"mismatch!!"}})
	if status != 400 {
		t.Errorf("mismatched passwords = %d; want 400", status)
	}
	status, _, _, _ = c.SubmitForm(ctx, "/admin/reset", url.Values{"secret": {secret}, "password": {"a new password"}, "password_confirm": {"a new password"}})
	if status != 200 {
		t.Fatalf("reset = %d; want 200", status)
	}
	if err := s.Client.Call(ctx, "tokens.list", nil, nil); err == nil {
		t.Error("the owner's old session survived the reset")
	}
	if err := s.NewClient().Login(ctx, "a new password"); err != nil {
		t.Errorf("login with the new password: %v", err)
	}
	// Used once: the file is gone and a second submission is refused.
	if _, err := os.Stat(filepath.Join(s.Dir, "murlog.reset")); !os.IsNotExist(err) {
		t.Error("murlog.reset still exists after use")
	}
	status, _, _, _ = c.SubmitForm(ctx, "/admin/reset", url.Values{"secret": {secret}, "password": {"third password"}, "password_confirm": {"third password"}})
	if status != http.StatusForbidden {
		t.Errorf("reused secret = %d; want 403", status)
	}
}

func TestResetBeforeSetupRedirects(t *testing.T) {
	t.Parallel()
	s := testsite.Start(t, testsite.Options{Bare: true})
	resp := get(t, s, "/admin/reset", "text/html")
	if resp.StatusCode != 303 {
		t.Errorf("GET /admin/reset before setup = %d; want 303 into the wizard", resp.StatusCode)
	}
	_, _, err := app.Reset(ctx, app.Options{ConfigPath: filepath.Join(s.Dir, "murlog.ini"), Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "not set up") {
		t.Errorf("murlog reset before setup: %v; want a clear refusal", err)
	}
}

// TestResetPageRevokesTokens: a reset through the page ends every session
// and revokes every API token, and says so.
func TestResetPageRevokesTokens(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	var tok struct{ Token string }
	if err := s.Client.Call(ctx, "tokens.create", map[string]string{"name": "script"}, &tok); err != nil {
		t.Fatal(err)
	}
	secret, _ := resetFile(t, s)
	c := s.NewClient()
	status, _, body, _ := c.SubmitForm(ctx, "/admin/reset", url.Values{"secret": {secret}, "password": {"a new password"}, "password_confirm": {"a new password"}})
	if status != 200 || !strings.Contains(string(body), "API token") {
		t.Fatalf("reset = %d; want 200 saying the API tokens were revoked:\n%s", status, body)
	}
	script := s.NewClient()
	script.Token = tok.Token
	if err := script.Call(ctx, "posts.list", nil, nil); err == nil {
		t.Error("an API token survived the reset")
	}
}

// TestResetPageRefusesHandMadeFiles: the page takes only a file `murlog
// reset` wrote: an empty secret with a far-future date, a short secret, a
// world-readable file and one owned by another user are all refused, and
// the password stays.
func TestResetPageRefusesHandMadeFiles(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	path := filepath.Join(s.Dir, "murlog.reset")
	good, _ := resetFile(t, s)
	now := time.Now().UTC().Format(time.RFC3339Nano)
	for _, tc := range []struct {
		name, body, submit string
		mode               os.FileMode
		owner              int
		want               string
	}{
		{"empty secret", "\n2099-01-01T00:00:00Z\n", "", 0o600, -1, "is required"},
		{"empty secret, any submission", "\n2099-01-01T00:00:00Z\n", "x", 0o600, -1, "256 random bits"},
		{"short secret", "abcdefghijklmno\n" + now + "\n", "abcdefghijklmno", 0o600, -1, "256 random bits"},
		{"world-readable", good + "\n" + now + "\n", good, 0o644, -1, "mode 0644"},
		{"future date", good + "\n2099-01-01T00:00:00Z\n", good, 0o600, -1, "future"},
		{"another owner", good + "\n" + now + "\n", good, 0o600, 65534, "another user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.owner >= 0 && os.Geteuid() != 0 {
				t.Skip("needs root to give the file to another user")
			}
			os.Remove(path)
			if err := os.WriteFile(path, []byte(tc.body), tc.mode); err != nil {
				t.Fatal(err)
			}
			os.Chmod(path, tc.mode)
			if tc.owner >= 0 {
				if err := os.Chown(path, tc.owner, tc.owner); err != nil {
					t.Fatal(err)
				}
			}
			c := s.NewClient()
			status, _, body, _ := c.SubmitForm(ctx, "/admin/reset", url.Values{"secret": {tc.submit}, "password": {"attacker pw1"}, "password_confirm": {"attacker pw1"}})
			if status < 400 || !strings.Contains(string(body), tc.want) {
				t.Errorf("hand-made reset file = %d; want a refusal mentioning %q:\n%s", status, tc.want, body)
			}
			if err := s.Client.Call(ctx, "tokens.list", nil, nil); err != nil {
				t.Errorf("the owner's session ended: %v", err)
			}
		})
	}
}
