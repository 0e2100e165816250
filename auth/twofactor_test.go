package auth_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/auth"
)

// enrol turns two-factor login on and returns the secret and the
// recovery codes. The clock moves on a step so the verifying code is not
// the one a test uses next.
func enrol(t *testing.T, s *auth.Service, c *clock) (string, []string) {
	t.Helper()
	setup, err := s.SetupTOTP(ctx, auth.SetupTOTPInput{Account: "alice@example.com", Password: "correct horse", ClientKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	codes, err := s.VerifyTOTP(ctx, auth.VerifyTOTPInput{Code: code(t, setup.Secret, c.now()), ClientKey: "k"})
	if err != nil {
		t.Fatalf("VerifyTOTP with the current code: %v", err)
	}
	c.add(auth.TOTPPeriod)
	return setup.Secret, codes
}

func code(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	s, err := auth.TOTPCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// wantField asserts err is code on field.
func wantField(t *testing.T, what string, err error, c murlog.Code, field, msg string) {
	t.Helper()
	e := murlog.AsError(err)
	if err == nil || e.Code != c || e.Field != field || (msg != "" && e.Message != msg) {
		t.Errorf("%s: err = %v; want %s on field %q %q", what, err, c, field, msg)
	}
}

func TestTOTPSetupTakesEffectOnlyWhenVerified(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	setup, err := s.SetupTOTP(ctx, auth.SetupTOTPInput{Account: "alice@blog.example", Password: "correct horse", ClientKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	want := "otpauth://totp/murlog:alice@blog.example?secret=" + setup.Secret + "&issuer=murlog&algorithm=SHA1&digits=6&period=30"
	if setup.URI != want || len(setup.Secret) != 32 {
		t.Errorf("SetupTOTP = %+v; want a 32-character secret and URI %s", setup, want)
	}
	if st, _ := s.TOTPStatus(ctx); st.Enabled || !st.Pending {
		t.Errorf("status after setup = %+v; want pending, not enabled", st)
	}
	// Login goes on without a code until it is verified.
	if _, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "k"}); err != nil {
		t.Errorf("login without a code while only pending: %v", err)
	}
	// A second setup replaces the pending secret: the first one's code no
	// longer verifies.
	again, _ := s.SetupTOTP(ctx, auth.SetupTOTPInput{Account: "alice@blog.example", Password: "correct horse", ClientKey: "k"})
	if again.Secret == setup.Secret {
		t.Fatal("a second setup kept the secret")
	}
	wantField(t, "verify with the replaced secret's code", verify(s, code(t, setup.Secret, c.now())), murlog.EInvalid, "code", "")
	for _, bad := range []string{"", "12345", "1234567", "abcdef", strings.Repeat("1", 1000), "abcd-efgh"} {
		wantField(t, "verify "+bad[:min(len(bad), 10)], verify(s, bad), murlog.EInvalid, "code", "")
	}
	codes, err := s.VerifyTOTP(ctx, auth.VerifyTOTPInput{Code: code(t, again.Secret, c.now().Add(-auth.TOTPPeriod)), ClientKey: "k"})
	if err != nil {
		t.Fatalf("verify with the previous step's code: %v", err)
	}
	if len(codes) != auth.RecoveryCodes {
		t.Fatalf("VerifyTOTP gave %d recovery codes; want %d", len(codes), auth.RecoveryCodes)
	}
	shape := regexp.MustCompile(`^[a-z2-7]{4}-[a-z2-7]{4}$`)
	seen := map[string]bool{}
	for _, rc := range codes {
		if !shape.MatchString(rc) || seen[rc] {
			t.Errorf("recovery code %q: want a unique xxxx-xxxx of lower-case base32", rc)
		}
		seen[rc] = true
	}
	if st, _ := s.TOTPStatus(ctx); !st.Enabled || st.Pending || st.RecoveryCodesLeft != 10 {
		t.Errorf("status after verify = %+v; want enabled, 10 codes left", st)
	}
	if err := verify(s, code(t, again.Secret, c.now())); murlog.ErrorCode(err) != murlog.EConflict {
		t.Errorf("verify again once on = %v; want conflict", err)
	}
	if _, err := s.SetupTOTP(ctx, auth.SetupTOTPInput{Account: "alice@blog.example", Password: "correct horse", ClientKey: "k"}); murlog.ErrorCode(err) != murlog.EConflict {
		t.Errorf("setup while on = %v; want conflict (disable first)", err)
	}
}

func verify(s *auth.Service, code string) error {
	_, err := s.VerifyTOTP(ctx, auth.VerifyTOTPInput{Code: code, ClientKey: "k"})
	return err
}

func TestLoginWithTOTP(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	secret, _ := enrol(t, s, c)
	login := func(pw, code string) error {
		_, _, err := s.Login(ctx, auth.LoginInput{Password: pw, TOTPCode: code, ClientKey: "k"})
		return err
	}
	now := code(t, secret, c.now())
	wantField(t, "no code", login("correct horse", ""), murlog.EUnauthorized, "totp_code", "two-factor code required")
	// A wrong password is the plain answer, and the right code sent with
	// it is not used up.
	if err := login("wrong horse", now); murlog.ErrorCode(err) != murlog.EUnauthorized || murlog.AsError(err).Field != "" {
		t.Errorf("wrong password with the right code = %v; want the plain wrong-password error", err)
	}
	wrong := "000000"
	if wrong == now {
		wrong = "111111"
	}
	wantField(t, "wrong code", login("correct horse", wrong), murlog.EUnauthorized, "totp_code", "wrong or already used code")
	if err := login("correct horse", now[:3]+" "+now[3:]); err != nil {
		t.Fatalf("login with the current code (typed with a space): %v", err)
	}
	wantField(t, "the same code again", login("correct horse", now), murlog.EUnauthorized, "totp_code", "wrong or already used code")
	// The previous step's code is older than the one used: refused too.
	wantField(t, "an older code", login("correct horse", code(t, secret, c.now().Add(-auth.TOTPPeriod))), murlog.EUnauthorized, "totp_code", "")
	c.add(auth.TOTPPeriod)
	if err := login("correct horse", code(t, secret, c.now())); err != nil {
		t.Errorf("login with the next step's code: %v", err)
	}
	for _, bad := range []string{"12345", "1234567", "12a456", strings.Repeat("9", 1000), "abcd-efg1"} {
		wantField(t, "malformed code", login("correct horse", bad), murlog.EInvalid, "totp_code", "")
	}
}

func TestLoginWithRecoveryCode(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	_, codes := enrol(t, s, c)
	in := auth.LoginInput{Password: "correct horse", TOTPCode: strings.ToUpper(strings.Replace(codes[3], "-", "", 1)), ClientKey: "k"}
	if _, _, err := s.Login(ctx, in); err != nil {
		t.Fatalf("login with a recovery code (upper case, no hyphen): %v", err)
	}
	in.TOTPCode = codes[3]
	_, _, err := s.Login(ctx, in)
	wantField(t, "the recovery code again", err, murlog.EUnauthorized, "totp_code", "wrong or already used code")
	in.TOTPCode = "aaaa-aaaa"
	_, _, err = s.Login(ctx, in)
	wantField(t, "an unknown recovery code", err, murlog.EUnauthorized, "totp_code", "")
	if st, _ := s.TOTPStatus(ctx); st.RecoveryCodesLeft != 9 {
		t.Errorf("recovery codes left = %d; want 9", st.RecoveryCodesLeft)
	}
	// A new enrolment's codes replace the old ones.
	if err := s.DisableTOTP(ctx, auth.DisableTOTPInput{Password: "correct horse", Code: codes[0], ClientKey: "k"}); err != nil {
		t.Fatal(err)
	}
	_, fresh := enrol(t, s, c)
	in.TOTPCode = codes[1]
	_, _, err = s.Login(ctx, in)
	wantField(t, "an old enrolment's recovery code", err, murlog.EUnauthorized, "totp_code", "")
	in.TOTPCode = fresh[1]
	if _, _, err := s.Login(ctx, in); err != nil {
		t.Errorf("the new enrolment's recovery code: %v", err)
	}
}

// TestFailedCodesCountInTheLoginLimit: with the right password, five wrong
// codes lock the address like five wrong passwords, and the right code is
// then refused too.
func TestFailedCodesCountInTheLoginLimit(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	secret, _ := enrol(t, s, c)
	_, checks := counting(s)
	for i := 0; i < 5; i++ {
		_, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", TOTPCode: "aaaa-aaaa", ClientKey: "evil"})
		wantField(t, "wrong code", err, murlog.EUnauthorized, "totp_code", "")
	}
	_, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", TOTPCode: code(t, secret, c.now()), ClientKey: "evil"})
	if murlog.ErrorCode(err) != murlog.ERateLimited {
		t.Errorf("right code after 5 wrong ones = %v; want rate_limited", err)
	}
	if n := checks.Load(); n != 5 {
		t.Errorf("%d password checks; want 5 (the locked attempt hashes nothing)", n)
	}
	// Another address is not locked, and a success there works.
	if _, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", TOTPCode: code(t, secret, c.now()), ClientKey: "home"}); err != nil {
		t.Errorf("login from another address: %v", err)
	}
}

// TestOneCodeOneSession: logins racing with the same code get one session.
func TestOneCodeOneSession(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	secret, _ := enrol(t, s, c)
	now := code(t, secret, c.now())
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, refused := 0, 0
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", TOTPCode: now, ClientKey: string(rune('a' + i))})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case murlog.AsError(err).Field == "totp_code":
				refused++
			default:
				t.Errorf("login: %v", err)
			}
		}()
	}
	wg.Wait()
	if ok != 1 || refused != 3 {
		t.Errorf("4 logins with one code: %d sessions, %d refused; want 1 and 3", ok, refused)
	}
}

func TestDisableTOTPNeedsPasswordAndCode(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	secret, codes := enrol(t, s, c)
	dis := func(pw, code string) error {
		return s.DisableTOTP(ctx, auth.DisableTOTPInput{Password: pw, Code: code, ClientKey: "k"})
	}
	now := code(t, secret, c.now())
	wantField(t, "no password", dis("", now), murlog.EInvalid, "password", "")
	wantField(t, "no code", dis("correct horse", ""), murlog.EInvalid, "code", "")
	wantField(t, "malformed code", dis("correct horse", strings.Repeat("x", 1000)), murlog.EInvalid, "code", "")
	wantField(t, "wrong password", dis("wrong horse", now), murlog.EInvalid, "password", "")
	wantField(t, "wrong code", dis("correct horse", "aaaa-aaaa"), murlog.EInvalid, "code", "")
	if st, _ := s.TOTPStatus(ctx); !st.Enabled {
		t.Fatal("two-factor login went off without both factors")
	}
	if err := dis("correct horse", now); err != nil {
		t.Fatalf("disable with the password and the current code: %v", err)
	}
	if st, _ := s.TOTPStatus(ctx); st.Enabled || st.Pending || st.RecoveryCodesLeft != 0 {
		t.Errorf("status after disable = %+v; want off, no codes", st)
	}
	if _, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "k"}); err != nil {
		t.Errorf("login without a code once off: %v", err)
	}
	if err := dis("correct horse", codes[0]); murlog.ErrorCode(err) != murlog.EConflict {
		t.Errorf("disable while off = %v; want conflict", err)
	}
	// A recovery code disables too.
	_, codes = enrol(t, s, c)
	if err := dis("correct horse", codes[9]); err != nil {
		t.Errorf("disable with a recovery code: %v", err)
	}
}

// TestResetTurnsTwoFactorOff: the reset file proves shell access, the way
// back in when the phone and the recovery codes are both lost.
func TestResetTurnsTwoFactorOff(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	enrol(t, s, c)
	path := filepath.Join(t.TempDir(), "murlog.reset")
	secret, _ := auth.WriteResetFile(path, c.now())
	if err := s.ResetPassword(ctx, auth.ResetInput{Path: path, Secret: secret, Password: "brand new pw", ClientKey: "k"}); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.TOTPStatus(ctx); st.Enabled || st.RecoveryCodesLeft != 0 {
		t.Errorf("status after a reset = %+v; want off", st)
	}
	if _, _, err := s.Login(ctx, auth.LoginInput{Password: "brand new pw", ClientKey: "k"}); err != nil {
		t.Errorf("login with the new password and no code: %v", err)
	}
}

// TestDisableTOTPWrongCodesAreLimited: with the right password, wrong
// codes at totp.disable count like wrong passwords. The fifth locks the
// address, the right code is then refused until the lockout has passed,
// and the right password that came with each guess cleared nothing.
func TestDisableTOTPWrongCodesAreLimited(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	secret, codes := enrol(t, s, c)
	_, checks := counting(s)
	right := code(t, secret, c.now())
	got := map[murlog.Code]int{}
	for i := range 40 {
		wrong := wrongTOTP(t, secret, c.now())
		if i%2 == 1 {
			wrong = "aaaa-aaaa" // an unknown recovery code counts the same
		}
		err := s.DisableTOTP(ctx, auth.DisableTOTPInput{Password: "correct horse", Code: wrong, ClientKey: "thief"})
		if e := murlog.AsError(err); e.Code == murlog.EInvalid && e.Field != "code" {
			t.Fatalf("guess %d: %v; want a refusal of the code", i+1, err)
		}
		got[murlog.ErrorCode(err)]++
	}
	if got[murlog.EInvalid] != auth.DefaultMaxFailures || got[murlog.ERateLimited] != 40-auth.DefaultMaxFailures {
		t.Errorf("40 wrong codes with the right password = %v; want %d invalid, then rate_limited", got, auth.DefaultMaxFailures)
	}
	if n := checks.Load(); n != auth.DefaultMaxFailures {
		t.Errorf("%d password checks; want %d (a locked attempt hashes nothing)", n, auth.DefaultMaxFailures)
	}
	for _, rc := range []string{right, codes[0]} {
		err := s.DisableTOTP(ctx, auth.DisableTOTPInput{Password: "correct horse", Code: rc, ClientKey: "thief"})
		if murlog.ErrorCode(err) != murlog.ERateLimited {
			t.Errorf("totp.disable with a right code while locked = %v; want rate_limited", err)
		}
	}
	if _, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", TOTPCode: right, ClientKey: "thief"}); murlog.ErrorCode(err) != murlog.ERateLimited {
		t.Errorf("login with both factors from the locked address = %v; want rate_limited (one limit)", err)
	}
	if st, _ := s.TOTPStatus(ctx); !st.Enabled || st.RecoveryCodesLeft != auth.RecoveryCodes {
		t.Fatalf("status after the guesses = %+v; want on with every recovery code", st)
	}
	c.add(auth.DefaultLockout)
	if err := s.DisableTOTP(ctx, auth.DisableTOTPInput{Password: "correct horse", Code: code(t, secret, c.now()), ClientKey: "thief"}); err != nil {
		t.Errorf("totp.disable with both factors once the lockout passed: %v", err)
	}
}

// TestRightPasswordKeepsTheCodeCount: four wrong codes, then a call
// that checks only the right password (and so would clear the count of a
// plain password limiter): the code count stands, the fifth attempt
// locks, and the right code is refused.
func TestRightPasswordKeepsTheCodeCount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		what string
		call func(s *auth.Service, secret string) error
	}{
		{"totp.setup", func(s *auth.Service, _ string) error {
			_, err := s.SetupTOTP(ctx, auth.SetupTOTPInput{Account: "a@b", Password: "correct horse", ClientKey: "thief"})
			return err
		}},
		{"auth.change_password", func(s *auth.Service, _ string) error {
			_, err := s.ChangePassword(ctx, auth.ChangePasswordInput{Current: "correct horse", Next: "correct horse", ClientKey: "thief"})
			return err
		}},
		{"auth.login without a code", func(s *auth.Service, _ string) error {
			_, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", ClientKey: "thief"})
			return err
		}},
	} {
		t.Run(tc.what, func(t *testing.T) {
			t.Parallel()
			s, _, c := newService(t)
			secret, _ := enrol(t, s, c)
			right := code(t, secret, c.now())
			for range auth.DefaultMaxFailures - 1 {
				_, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", TOTPCode: wrongTOTP(t, secret, c.now()), ClientKey: "thief"})
				wantField(t, "wrong code", err, murlog.EUnauthorized, "totp_code", "")
			}
			if err := tc.call(s, secret); murlog.ErrorCode(err) == murlog.ERateLimited {
				t.Fatalf("%s as the fifth attempt: %v; want it checked", tc.what, err)
			}
			_, _, err := s.Login(ctx, auth.LoginInput{Password: "correct horse", TOTPCode: right, ClientKey: "thief"})
			if murlog.ErrorCode(err) != murlog.ERateLimited {
				t.Errorf("login with the right code after 4 wrong codes and %s = %v; want rate_limited", tc.what, err)
			}
		})
	}
}

// TestVerifyTOTPCodesCount: the enrolment's code is counted like any
// other code, and a right one clears the count.
func TestVerifyTOTPCodesCount(t *testing.T) {
	t.Parallel()
	s, _, c := newService(t)
	setup, err := s.SetupTOTP(ctx, auth.SetupTOTPInput{Account: "a@b", Password: "correct horse", ClientKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	right := code(t, setup.Secret, c.now())
	for range auth.DefaultMaxFailures {
		wantField(t, "wrong enrolment code", verify(s, wrongTOTP(t, setup.Secret, c.now())), murlog.EInvalid, "code", "")
	}
	if err := verify(s, right); murlog.ErrorCode(err) != murlog.ERateLimited {
		t.Errorf("the right enrolment code after %d wrong ones = %v; want rate_limited", auth.DefaultMaxFailures, err)
	}
	c.add(auth.DefaultLockout)
	if err := verify(s, code(t, setup.Secret, c.now())); err != nil {
		t.Fatalf("verify once the lockout passed: %v", err)
	}
	// The right code cleared the count: a wrong password now is the first
	// of five again.
	for range auth.DefaultMaxFailures - 1 {
		if _, _, err := s.Login(ctx, auth.LoginInput{Password: "wrong", ClientKey: "k"}); murlog.ErrorCode(err) != murlog.EUnauthorized {
			t.Fatalf("wrong password after a verified enrolment = %v; want unauthorized", err)
		}
	}
}

// wrongTOTP returns a well-formed 6-digit code that is not right for
// secret at at, nor a step either side of it.
func wrongTOTP(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	near := map[string]bool{}
	for _, d := range []time.Duration{-auth.TOTPPeriod, 0, auth.TOTPPeriod} {
		near[code(t, secret, at.Add(d))] = true
	}
	for _, c := range []string{"000000", "111111", "222222", "333333"} {
		if !near[c] {
			return c
		}
	}
	panic("unreachable: three steps cannot hold four codes")
}
