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
