package auth_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/store/sqlite"
	"github.com/murlog/murlog/store/sqlite/sqlitetest"
)

var ctx = context.Background()

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// ownerHash is the argon2id hash of "correct horse" newService stores:
// hashing a password costs each case a second under -race.
var ownerHash = sync.OnceValues(func() (string, error) { return auth.HashPassword("correct horse") })

// newService opens a real SQLite file with the password "correct horse".
func newService(t *testing.T) (*auth.Service, *sqlite.DB, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)}
	db, err := sqlite.Open(ctx, sqlitetest.Path(t, t.TempDir(), "murlog.db"), sqlite.Options{Now: c.now, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h, err := ownerHash()
	if err != nil {
		t.Fatal(err)
	}
	db.Update(ctx, func(tx store.Tx) error { return tx.Settings().Set(murlog.SettingPasswordHash, h) })
	return auth.New(db), db, c
}

func TestPasswordHash(t *testing.T) {
	t.Parallel()
	h, err := auth.HashPassword("pässwörd")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("hash = %q; want an argon2id PHC string", h)
	}
	for _, tc := range []struct {
		pw   string
		want bool
	}{{"pässwörd", true}, {"passwort", false}, {"", false}} {
		if ok, err := auth.CheckPassword(h, tc.pw); ok != tc.want || err != nil {
			t.Errorf("CheckPassword(%q) = %v, %v; want %v", tc.pw, ok, err, tc.want)
		}
	}
	h2, _ := auth.HashPassword("pässwörd")
	if h == h2 {
		t.Error("two hashes of one password are equal; want a fresh salt each time")
	}
	if _, err := auth.CheckPassword("$2a$10$bcrypt", "x"); err == nil {
		t.Error("CheckPassword accepted an unknown hash format")
	}
}

func TestValidatePassword(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pw string
		ok bool
	}{{"1234567", false}, {"12345678", true}, {"日本語のパスワード", true}, {strings.Repeat("x", 257), false}, {"password\xff\xfe", false}} {
		if err := auth.ValidatePassword("password", tc.pw); (err == nil) != tc.ok {
			t.Errorf("ValidatePassword(%d chars) = %v; want ok=%v", len([]rune(tc.pw)), err, tc.ok)
		}
	}
}

func TestLoginAndSession(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	secret, sess, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "1.2.3.4", UserAgent: "test"})
	if err != nil {
		t.Fatalf("Login: %v", err)
	}
	if !sess.ExpiresAt.Equal(c.now().Add(14 * 24 * time.Hour)) {
		t.Errorf("session expires %v; want 14 days after login", sess.ExpiresAt)
	}
	if sess.TokenHash == secret || sess.TokenHash != auth.HashToken(secret) {
		t.Error("the session must be stored by hash, not by its secret")
	}
	if _, _, err := s.Session(ctx, secret); err != nil {
		t.Errorf("Session(valid) = %v", err)
	}
	if _, _, err := s.Session(ctx, secret+"x"); murlog.ErrorCode(err) != murlog.EUnauthorized {
		t.Errorf("Session(wrong) = %v; want unauthorized", err)
	}
	// Activity more than an hour later slides the expiry forward.
	c.add(2 * time.Hour)
	got, renewed, err := s.Session(ctx, secret)
	if err != nil || !renewed || !got.ExpiresAt.Equal(c.now().Add(14*24*time.Hour)) {
		t.Errorf("Session after 2h = %+v, renewed %v, %v; want renewed expiry", got, renewed, err)
	}
	if _, renewed, _ := s.Session(ctx, secret); renewed {
		t.Error("a second call within the hour renewed again; want at most one write an hour")
	}
	// Idle for the whole lifetime: expired.
	c.add(15 * 24 * time.Hour)
	if _, _, err := s.Session(ctx, secret); murlog.ErrorCode(err) != murlog.EUnauthorized || !strings.Contains(err.Error(), "expired") {
		t.Errorf("Session after expiry = %v; want unauthorized 'expired'", err)
	}
}

func TestLogout(t *testing.T) {
	t.Parallel()
	s, _, _ := newService(t)
	secret, sess, _ := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "k"})
	if err := s.Logout(ctx, sess.TokenHash); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Session(ctx, secret); murlog.ErrorCode(err) != murlog.EUnauthorized {
		t.Errorf("Session after logout = %v; want unauthorized", err)
	}
}

func TestLoginRateLimit(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	login := func(pw, key string) error {
		_, _, err := s.Login(ctx, auth.LoginInput{Password: pw, ClientKey: key})
		return err
	}
	for i := 1; i <= 5; i++ {
		if err := login("wrong", "1.2.3.4"); murlog.ErrorCode(err) != murlog.EUnauthorized {
			t.Fatalf("failure %d = %v; want unauthorized", i, err)
		}
	}
	err := login("correct horse", "1.2.3.4")
	e := murlog.AsError(err)
	if e.Code != murlog.ERateLimited || e.RetryAfter <= 0 || e.RetryAfter > 5*time.Minute {
		t.Fatalf("6th attempt (right password) = %v (retry after %v); want rate_limited for up to 5 minutes", err, e.RetryAfter)
	}
	if err := login("correct horse", "5.6.7.8"); err != nil {
		t.Errorf("another client address is not locked out: %v", err)
	}
	c.add(5*time.Minute + time.Second)
	if err := login("correct horse", "1.2.3.4"); err != nil {
		t.Errorf("after the lockout: %v; want success", err)
	}
	// Success cleared the count: four more failures do not lock.
	for i := 0; i < 4; i++ {
		login("wrong", "1.2.3.4")
	}
	if err := login("correct horse", "1.2.3.4"); err != nil {
		t.Errorf("4 failures after a success locked the client: %v", err)
	}
}

func TestParallelGuessesCannotSlipPastTheLimit(t *testing.T) {
	t.Parallel()
	s, _, _ := newService(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	checked := 0
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := s.Login(ctx, auth.LoginInput{Password: "wrong", ClientKey: "9.9.9.9"})
			if murlog.ErrorCode(err) == murlog.EUnauthorized {
				mu.Lock()
				checked++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if checked > 5 {
		t.Errorf("%d of 20 parallel guesses had their password checked; want at most 5", checked)
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	s, _, _ := newService(t)
	secret, tok, err := s.CreateToken(ctx, "  deploy script  ")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "mlg_") || tok.Name != "deploy script" || !strings.HasPrefix(secret, tok.Prefix) {
		t.Errorf("CreateToken = %q, %+v", secret, tok)
	}
	got, err := s.Token(ctx, secret)
	if err != nil || got.ID != tok.ID {
		t.Fatalf("Token(secret) = %+v, %v", got, err)
	}
	list, _ := s.ListTokens(ctx)
	if len(list) != 1 || list[0].LastUsedAt == nil {
		t.Errorf("ListTokens = %+v; want one token with last_used_at set", list)
	}
	for _, bad := range []string{"", "mlg_nope", "not-a-token"} {
		if _, err := s.Token(ctx, bad); murlog.ErrorCode(err) != murlog.EUnauthorized {
			t.Errorf("Token(%q) = %v; want unauthorized", bad, err)
		}
	}
	if err := s.RevokeToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Token(ctx, secret); murlog.ErrorCode(err) != murlog.EUnauthorized {
		t.Errorf("revoked token = %v; want unauthorized", err)
	}
	for _, tc := range []struct {
		name string
		code murlog.Code
	}{{"", murlog.EInvalid}, {strings.Repeat("n", 101), murlog.EInvalid}} {
		if _, _, err := s.CreateToken(ctx, tc.name); murlog.ErrorCode(err) != tc.code {
			t.Errorf("CreateToken(%d chars) = %v; want %s", len(tc.name), err, tc.code)
		}
	}
	if err := s.RevokeToken(ctx, "nope"); murlog.ErrorCode(err) != murlog.EInvalid {
		t.Errorf("RevokeToken(bad id) = %v; want invalid", err)
	}
}

func TestChangePassword(t *testing.T) {
	t.Parallel()
	s, _, _ := newService(t)
	mine, me, _ := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "a"})
	other, _, _ := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "b"})
	change := func(current, next string) error {
		_, err := s.ChangePassword(ctx, auth.ChangePasswordInput{Current: current, Next: next, KeepSession: me.TokenHash, ClientKey: "a"})
		return err
	}
	if err := change("wrong", "new password"); murlog.ErrorCode(err) != murlog.EInvalid {
		t.Errorf("wrong current password = %v; want invalid", err)
	}
	if err := change("correct horse", "short"); murlog.ErrorCode(err) != murlog.EInvalid {
		t.Errorf("too short = %v; want invalid", err)
	}
	if err := change("correct horse", "new password"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Session(ctx, mine); err != nil {
		t.Errorf("own session ended by a password change: %v", err)
	}
	if _, _, err := s.Session(ctx, other); murlog.ErrorCode(err) != murlog.EUnauthorized {
		t.Errorf("other session survived a password change: %v", err)
	}
	if _, _, err := s.Login(ctx, auth.LoginInput{Password: "new password", ClientKey: "c"}); err != nil {
		t.Errorf("login with the new password: %v", err)
	}
}

func TestResetPassword(t *testing.T) {
	t.Parallel()
	s, db, c := newService(t)
	path := filepath.Join(t.TempDir(), "murlog.reset")
	old, _, _ := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "a"})
	secret, err := auth.WriteResetFile(path, c.now())
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("reset file mode %v; want 0600", st.Mode().Perm())
	}
	c.add(10 * time.Minute)
	in := auth.ResetInput{Path: path, Secret: secret, Password: "brand new pw", ClientKey: "k"}
	if err := s.ResetPassword(ctx, auth.ResetInput{Path: path, Secret: "wrong", Password: "brand new pw", ClientKey: "k"}); murlog.ErrorCode(err) != murlog.EInvalid {
		t.Errorf("wrong secret = %v; want invalid", err)
	}
	if err := s.ResetPassword(ctx, auth.ResetInput{Path: path, Secret: secret, Password: "short", ClientKey: "k"}); murlog.ErrorCode(err) != murlog.EInvalid {
		t.Errorf("short password = %v; want invalid", err)
	}
	if err := s.ResetPassword(ctx, in); err != nil {
		t.Fatalf("ResetPassword: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("the reset file still exists after use")
	}
	if _, _, err := s.Session(ctx, old); murlog.ErrorCode(err) != murlog.EUnauthorized {
		t.Errorf("a session survived the reset: %v", err)
	}
	if _, _, err := s.Login(ctx, auth.LoginInput{Password: "brand new pw", ClientKey: "z"}); err != nil {
		t.Errorf("login with the reset password: %v", err)
	}
	var last string
	db.View(ctx, func(tx store.Tx) error { last, _ = tx.Settings().Get(murlog.SettingLastPasswordReset); return nil })
	if last == "" {
		t.Error("last_password_reset_at not recorded")
	}
	// A copy of the used file put back is ignored: it is older than the last reset.
	c.add(time.Minute)
	os.WriteFile(path, []byte(secret+"\n"+c.now().Add(-11*time.Minute).Format(time.RFC3339Nano)+"\n"), 0o600)
	if err := s.ResetPassword(ctx, in); murlog.ErrorCode(err) != murlog.EForbidden || !strings.Contains(err.Error(), "already used") {
		t.Errorf("replayed reset file = %v; want forbidden 'already used'", err)
	}
	// A new file works once more, but only within the hour.
	secret2, _ := auth.WriteResetFile(path, c.now())
	c.add(61 * time.Minute)
	if err := s.ResetPassword(ctx, auth.ResetInput{Path: path, Secret: secret2, Password: "another pw1", ClientKey: "k"}); murlog.ErrorCode(err) != murlog.EForbidden || !strings.Contains(err.Error(), "expired") {
		t.Errorf("expired reset file = %v; want forbidden 'expired'", err)
	}
	os.Remove(path)
	if err := s.ResetPassword(ctx, in); murlog.ErrorCode(err) != murlog.EForbidden {
		t.Errorf("no reset file = %v; want forbidden", err)
	}
}

func TestResetSecretGuessesAreRateLimited(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	path := filepath.Join(t.TempDir(), "murlog.reset")
	auth.WriteResetFile(path, c.now())
	var err error
	for i := 0; i < 6; i++ {
		err = s.ResetPassword(ctx, auth.ResetInput{Path: path, Secret: "guess", Password: "brand new pw", ClientKey: "evil"})
	}
	if murlog.ErrorCode(err) != murlog.ERateLimited {
		t.Errorf("6th wrong reset secret = %v; want rate_limited", err)
	}
}

func TestLoginPrunesStaleAttempts(t *testing.T) {
	t.Parallel()
	s, db, c := newService(t)
	s.Login(ctx, auth.LoginInput{Password: "wrong", ClientKey: "old.client"})
	c.add(time.Hour)
	if _, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "owner"}); err != nil {
		t.Fatal(err)
	}
	db.View(ctx, func(tx store.Tx) error {
		if a, _ := tx.LoginAttempts().Get("old.client"); a.Failures != 0 {
			t.Errorf("a failure an hour old survived a login: %+v", a)
		}
		return nil
	})
}
