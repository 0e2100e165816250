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
	codes, err := s.VerifyTOTP(ctx, code(t, setup.Secret, c.now()))
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
	codes, err := s.VerifyTOTP(ctx, code(t, again.Secret, c.now().Add(-auth.TOTPPeriod)))
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
	_, err := s.VerifyTOTP(ctx, code)
	return err
}

func TestLoginWithTOTP(t *testing.T) {
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
