package auth_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/auth"
)

// counting swaps the service's password functions for counting wrappers
// around the real ones, so a test can prove a refused attempt hashed
// nothing without measuring time.
func counting(s *auth.Service) (hashes, checks *atomic.Int32) {
	hashes, checks = new(atomic.Int32), new(atomic.Int32)
	s.Hash = func(pw string) (string, error) { hashes.Add(1); return auth.HashPassword(pw) }
	s.Check = func(h, pw string) (bool, error) { checks.Add(1); return auth.CheckPassword(h, pw) }
	return hashes, checks
}

func TestChangePasswordGuessesAreLimited(t *testing.T) {
	t.Parallel()
	s, _, _ := newService(t)
	_, me, _ := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "thief"})
	hashes, checks := counting(s)
	codes := map[murlog.Code]int{}
	for range 100 {
		_, err := s.ChangePassword(ctx, auth.ChangePasswordInput{Current: "guess", Next: "attacker pw", KeepSession: me.TokenHash, ClientKey: "thief"})
		codes[murlog.ErrorCode(err)]++
	}
	if codes[murlog.EInvalid] != 5 || codes[murlog.ERateLimited] != 95 {
		t.Errorf("100 wrong current passwords = %v; want 5 checked (invalid), 95 rate_limited", codes)
	}
	if checks.Load() != 5 || hashes.Load() != 0 {
		t.Errorf("argon2 ran %d checks and %d hashes; want 5 checks, no hash of a new password", checks.Load(), hashes.Load())
	}
	// Locked: even the right password is refused unchecked, and the lock
	// is the login limiter's too.
	checks.Store(0)
	if _, err := s.ChangePassword(ctx, auth.ChangePasswordInput{Current: "correct horse", Next: "attacker pw", ClientKey: "thief"}); murlog.ErrorCode(err) != murlog.ERateLimited {
		t.Errorf("right password while locked = %v; want rate_limited", err)
	}
	if _, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "thief"}); murlog.ErrorCode(err) != murlog.ERateLimited {
		t.Errorf("login from the locked address = %v; want rate_limited (one limiter)", err)
	}
	if checks.Load() != 0 {
		t.Errorf("%d password checks while locked; want none", checks.Load())
	}
	if _, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "owner"}); err != nil {
		t.Errorf("the password changed under the guesses: %v", err)
	}
}

func TestChangePasswordRevokesTokensOnRequest(t *testing.T) {
	t.Parallel()
	s, _, _ := newService(t)
	keep, _, _ := s.CreateToken(ctx, "kept")
	n, err := s.ChangePassword(ctx, auth.ChangePasswordInput{Current: "correct horse", Next: "second password", ClientKey: "a"})
	if err != nil || n != 0 {
		t.Fatalf("ChangePassword = %d, %v", n, err)
	}
	if _, err := s.Token(ctx, keep); err != nil {
		t.Errorf("a token did not survive a change without revoke_tokens: %v", err)
	}
	s.CreateToken(ctx, "second")
	n, err = s.ChangePassword(ctx, auth.ChangePasswordInput{Current: "second password", Next: "third password", RevokeTokens: true, ClientKey: "a"})
	if err != nil || n != 2 {
		t.Fatalf("ChangePassword(RevokeTokens) = %d, %v; want 2 tokens revoked", n, err)
	}
	if _, err := s.Token(ctx, keep); murlog.ErrorCode(err) != murlog.EUnauthorized {
		t.Errorf("token after a change with RevokeTokens = %v; want unauthorized", err)
	}
}

func TestResetRevokesEveryToken(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	tok, _, _ := s.CreateToken(ctx, "script")
	path := filepath.Join(t.TempDir(), "murlog.reset")
	secret, _ := auth.WriteResetFile(path, c.now())
	if err := s.ResetPassword(ctx, auth.ResetInput{Path: path, Secret: secret, Password: "brand new pw", ClientKey: "k"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Token(ctx, tok); murlog.ErrorCode(err) != murlog.EUnauthorized {
		t.Errorf("API token after a reset = %v; want unauthorized", err)
	}
}

func TestLockedResetHashesNothing(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	path := filepath.Join(t.TempDir(), "murlog.reset")
	secret, _ := auth.WriteResetFile(path, c.now())
	hashes, _ := counting(s)
	for range 5 {
		s.ResetPassword(ctx, auth.ResetInput{Path: path, Secret: "guess", Password: "brand new pw", ClientKey: "evil"})
	}
	err := s.ResetPassword(ctx, auth.ResetInput{Path: path, Secret: secret, Password: "brand new pw", ClientKey: "evil"})
	if murlog.ErrorCode(err) != murlog.ERateLimited {
		t.Errorf("right secret while locked = %v; want rate_limited", err)
	}
	if hashes.Load() != 0 {
		t.Errorf("%d password hashes for wrong or locked reset attempts; want none", hashes.Load())
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("a refused attempt used up the reset file: %v", err)
	}
}

// TestHandMadeResetFilesAreRefused: the reader accepts only what `murlog
// reset` writes, in a private file of the right owner, dated within the
// hour by both its content and its mtime. Each refusal changes nothing.
func TestHandMadeResetFilesAreRefused(t *testing.T) {
	t.Parallel()
	good := strings.Repeat("A", 42) + "w" // 43 base64url characters, 32 bytes
	stamp := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	for _, tc := range []struct {
		name    string
		body    func(now time.Time) string
		submit  string
		mode    os.FileMode
		setup   func(t *testing.T, path string, now time.Time)
		code    murlog.Code
		message string
	}{
		{name: "empty secret, far future", body: func(time.Time) string { return "\n2099-01-01T00:00:00Z\n" }, submit: "", code: murlog.EInvalid, message: "required"},
		{name: "empty secret submitted as spaces", body: func(time.Time) string { return "\n2099-01-01T00:00:00Z\n" }, submit: "   ", code: murlog.EInvalid, message: "required"},
		{name: "empty secret in the file", body: func(time.Time) string { return "\n2099-01-01T00:00:00Z\n" }, submit: "x", message: "256 random bits"},
		{name: "15-character secret", body: func(n time.Time) string { return "abcdefghijklmno\n" + stamp(n) + "\n" }, submit: "abcdefghijklmno", message: "256 random bits"},
		{name: "secret not base64url", body: func(n time.Time) string { return strings.Repeat("!", 43) + "\n" + stamp(n) + "\n" }, submit: strings.Repeat("!", 43), message: "256 random bits"},
		{name: "future date", body: func(time.Time) string { return good + "\n2099-01-01T00:00:00Z\n" }, submit: good, message: "future"},
		{name: "world-readable", body: func(n time.Time) string { return good + "\n" + stamp(n) + "\n" }, submit: good, mode: 0o644, message: "mode 0644"},
		{name: "group-writable", body: func(n time.Time) string { return good + "\n" + stamp(n) + "\n" }, submit: good, mode: 0o620, message: "mode 0620"},
		{name: "mtime older than the stated time", body: func(n time.Time) string { return good + "\n" + stamp(n) + "\n" }, submit: good,
			setup: func(t *testing.T, path string, now time.Time) {
				os.Chtimes(path, now.Add(-2*time.Hour), now.Add(-2*time.Hour))
			}, message: "expired"},
		{name: "CRLF", body: func(n time.Time) string { return good + "\r\n" + stamp(n) + "\r\n" }, submit: good, message: "not one murlog reset wrote"},
		{name: "no final newline", body: func(n time.Time) string { return good + "\n" + stamp(n) }, submit: good, message: "two lines"},
		{name: "a third line", body: func(n time.Time) string { return good + "\n" + stamp(n) + "\nmore\n" }, submit: good, message: "two lines"},
		{name: "not UTC", body: func(n time.Time) string {
			return good + "\n" + n.In(time.FixedZone("JST", 9*3600)).Format(time.RFC3339Nano) + "\n"
		}, submit: good, message: "bad time"},
		{name: "symlink", body: func(n time.Time) string { return good + "\n" + stamp(n) + "\n" }, submit: good, message: "regular file",
			setup: func(t *testing.T, path string, _ time.Time) {
				real := path + ".real"
				if err := os.Rename(path, real); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(real, path); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a FIFO (would hang a plain open)", body: func(time.Time) string { return "" }, submit: good, message: "regular file",
			setup: func(t *testing.T, path string, _ time.Time) {
				os.Remove(path)
				if err := syscall.Mkfifo(path, 0o600); err != nil {
					t.Skip("no FIFOs here:", err)
				}
			}},
		{name: "owned by another user", body: func(n time.Time) string { return good + "\n" + stamp(n) + "\n" }, submit: good, message: "another user",
			setup: func(t *testing.T, path string, _ time.Time) {
				if os.Geteuid() != 0 {
					t.Skip("needs root to give the file to another user")
				}
				if err := os.Chown(path, 65534, 65534); err != nil {
					t.Fatal(err)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _, c := newService(t)
			hashes, _ := counting(s)
			dir := t.TempDir()
			ini := filepath.Join(dir, "murlog.ini")
			os.WriteFile(ini, nil, 0o600)
			path := filepath.Join(dir, "murlog.reset")
			mode := tc.mode
			if mode == 0 {
				mode = 0o600
			}
			if err := os.WriteFile(path, []byte(tc.body(c.now())), mode); err != nil {
				t.Fatal(err)
			}
			os.Chmod(path, mode) // not subject to the umask
			if tc.setup != nil {
				tc.setup(t, path, c.now())
			}
			c.add(time.Minute)
			err := s.ResetPassword(ctx, auth.ResetInput{Path: path, OwnerRef: ini, Secret: tc.submit, Password: "attacker pw1", ClientKey: "k"})
			want := tc.code
			if want == "" {
				want = murlog.EForbidden
			}
			if murlog.ErrorCode(err) != want || !strings.Contains(err.Error(), tc.message) {
				t.Errorf("ResetPassword = %v; want %s mentioning %q", err, want, tc.message)
			}
			if hashes.Load() != 0 {
				t.Errorf("a refused reset hashed the new password")
			}
			if _, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "owner"}); err != nil {
				t.Errorf("the password changed: %v", err)
			}
		})
	}
}

// TestResetFileWrittenByResetIsAccepted: the strict reader still takes
// what WriteResetFile writes, with the ini's owner as reference.
func TestResetFileWrittenByResetIsAccepted(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	dir := t.TempDir()
	ini := filepath.Join(dir, "murlog.ini")
	os.WriteFile(ini, nil, 0o600)
	path := filepath.Join(dir, "murlog.reset")
	secret, err := auth.WriteResetFile(path, c.now())
	if err != nil {
		t.Fatal(err)
	}
	c.add(59 * time.Minute)
	if err := s.ResetPassword(ctx, auth.ResetInput{Path: path, OwnerRef: ini, Secret: " " + secret + "\n", Password: "brand new pw", ClientKey: "k"}); err != nil {
		t.Fatalf("ResetPassword with a file murlog reset wrote: %v", err)
	}
}

// TestPasswordChecksAreBoundedPerProcess: logins from many addresses (which
// the per-address limit does not bound) run at most MaxConcurrentHashes
// argon2 checks at once; one that finds no slot within HashWait is refused
// as unavailable with a Retry-After, without running a check.
//
// Not parallel: the slots are the process's, and other tests' logins would
// hold them.
func TestPasswordChecksAreBoundedPerProcess(t *testing.T) {
	s, _, _ := newService(t)
	s.HashWait = 50 * time.Millisecond
	entered, release := make(chan struct{}, auth.MaxConcurrentHashes), make(chan struct{})
	var checks atomic.Int32
	s.Check = func(h, pw string) (bool, error) {
		checks.Add(1)
		entered <- struct{}{}
		<-release
		return auth.CheckPassword(h, pw)
	}
	errs := make(chan error, auth.MaxConcurrentHashes)
	for i := range auth.MaxConcurrentHashes {
		go func() {
			_, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: fmt.Sprint("holder ", i)})
			errs <- err
		}()
	}
	for range auth.MaxConcurrentHashes {
		<-entered // every slot is held by a check
	}
	_, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "one more address"})
	var me *murlog.Error
	if murlog.ErrorCode(err) != murlog.EUnavailable || !errors.As(err, &me) || me.RetryAfter <= 0 {
		t.Errorf("login while %d checks run = %v; want unavailable with a Retry-After", auth.MaxConcurrentHashes, err)
	}
	if n := checks.Load(); n != auth.MaxConcurrentHashes {
		t.Errorf("%d checks started; want %d", n, auth.MaxConcurrentHashes)
	}
	close(release)
	for range auth.MaxConcurrentHashes {
		if err := <-errs; err != nil {
			t.Errorf("a login holding a slot failed: %v", err)
		}
	}
	s.Check = auth.CheckPassword
	if _, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "later"}); err != nil {
		t.Errorf("login once the slots are free = %v", err)
	}
}
