package auth

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"net/url"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// RecoveryCodes is how many recovery codes an enrolment gives: each works
// once instead of a TOTP code, for the day the phone is lost.
const RecoveryCodes = 10

// TOTPIssuer names murlog in authenticator apps.
const TOTPIssuer = "murlog"

// maxCodeInput bounds a submitted code before anything else looks at it.
const maxCodeInput = 64

// recoveryEncoding spells recovery codes in lower-case base32 (a–z, 2–7):
// nothing to confuse with 0, 1 or 8, and case does not matter.
var recoveryEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newRecoveryCode returns "xxxx-xxxx": 5 random bytes, 40 bits. Their hash
// is a plain SHA-256: a guess costs an online login attempt, and a stolen
// database holds the TOTP secret itself anyway.
func newRecoveryCode() string {
	b := make([]byte, 5)
	if _, err := rand.Read(b); err != nil {
		panic("auth: crypto/rand failed: " + err.Error())
	}
	s := recoveryEncoding.EncodeToString(b)
	return s[:4] + "-" + s[4:]
}

// codeKind is what a submitted second-factor code is.
type codeKind int

const (
	totpCode codeKind = iota + 1
	recoveryCode
)

// parseCode reads a second-factor code as people type it: spaces and
// surrounding whitespace ignored (apps show "123 456"), recovery codes in
// either case, with or without their hyphen. It returns the code in its
// canonical form ("123456" or "abcd-efgh"). Anything else is invalid, with
// a message that does not repeat the input.
func parseCode(field, s string, recoveryOK bool) (codeKind, string, error) {
	want := "must be the 6-digit code from your authenticator app"
	if recoveryOK {
		want = "must be the 6-digit code from your authenticator app or a recovery code (xxxx-xxxx)"
	}
	if len(s) > maxCodeInput {
		return 0, "", murlog.Invalid(field, "%s", want)
	}
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	if isTOTPCode(s) {
		return totpCode, s, nil
	}
	if recoveryOK {
		r := strings.ToLower(s)
		if len(r) == 9 && r[4] == '-' {
			r = r[:4] + r[5:]
		}
		if len(r) == 8 {
			if _, err := recoveryEncoding.DecodeString(r); err == nil {
				return recoveryCode, r[:4] + "-" + r[4:], nil
			}
		}
	}
	return 0, "", murlog.Invalid(field, "%s", want)
}

// useCode checks a parsed code against the state and consumes it: a TOTP
// code's step becomes the last one used, a recovery code is marked used.
// It reports false for a wrong, stale or already used code; the caller
// decides what error that is.
func useCode(tx store.Tx, st *murlog.TOTP, kind codeKind, code string) (bool, error) {
	if kind == recoveryCode {
		return tx.TwoFactor().UseRecoveryCode(HashToken(code), tx.Now())
	}
	key, err := decodeTOTPSecret(st.Secret)
	if err != nil {
		return false, murlog.Internal(err)
	}
	step, ok := matchTOTP(key, code, tx.Now(), st.LastStep)
	if !ok {
		return false, nil
	}
	return tx.TwoFactor().UseStep(step)
}

// errCodeRequired and errWrongCode are auth.login's answers about the
// second factor, once the password was right.
func errCodeRequired() error {
	return &murlog.Error{Code: murlog.EUnauthorized, Field: "totp_code", Message: "two-factor code required"}
}

func errWrongCode() error {
	return &murlog.Error{Code: murlog.EUnauthorized, Field: "totp_code", Message: "wrong or already used code"}
}

// secondFactor is Login's check after the password: nothing while
// two-factor login is off; otherwise the code must be there and right,
// and it is used up in tx.
func secondFactor(tx store.Tx, kind codeKind, code string) error {
	st, err := tx.TwoFactor().Get()
	if err != nil || !st.Enabled() {
		return err
	}
	if code == "" {
		return errCodeRequired()
	}
	ok, err := useCode(tx, st, kind, code)
	if err != nil {
		return err
	}
	if !ok {
		return errWrongCode()
	}
	return nil
}

// TOTPStatus is the owner's two-factor state without its secrets.
type TOTPStatus struct {
	Enabled           bool
	Pending           bool // an enrolment was started and not verified
	RecoveryCodesLeft int
}

// TOTPStatus reports whether two-factor login is on.
func (s *Service) TOTPStatus(ctx context.Context) (*TOTPStatus, error) {
	var out TOTPStatus
	err := s.store.View(ctx, func(tx store.Tx) error {
		st, err := tx.TwoFactor().Get()
		if err != nil {
			return err
		}
		out.Enabled, out.Pending = st.Enabled(), st.Pending != ""
		if out.Enabled {
			out.RecoveryCodesLeft, err = tx.TwoFactor().RecoveryCodesLeft()
		}
		return err
	})
	return &out, err
}

// TOTPSetup is an enrolment in progress: the secret to type in and the
// otpauth URI to scan.
type TOTPSetup struct {
	Secret string
	URI    string
}

// OTPAuthURI is the Key URI Format that authenticator apps scan, with
// every parameter spelled out (some apps ignore defaults they do not
// see). account is "user@domain".
func OTPAuthURI(secret, account string) string {
	return "otpauth://totp/" + url.PathEscape(TOTPIssuer) + ":" + url.PathEscape(account) +
		"?secret=" + secret + "&issuer=" + url.QueryEscape(TOTPIssuer) + "&algorithm=SHA1&digits=6&period=30"
}

// SetupTOTP starts an enrolment, or starts it again with a new secret: the
// pending secret changes nothing for login until VerifyTOTP. While
// two-factor login is on it is refused: replacing the key in force must
// go through DisableTOTP, which asks for the password and a code, so a
// stolen session cannot swap in the thief's authenticator.
func (s *Service) SetupTOTP(ctx context.Context, in SetupTOTPInput) (*TOTPSetup, error) {
	// The password first: a session stolen from an account without two-
	// factor login must not be able to enrol the thief's authenticator
	// and lock the owner out.
	if err := s.checkOwnerPassword(ctx, in.ClientKey, in.Password); err != nil {
		return nil, err
	}
	secret := NewTOTPSecret()
	err := s.store.Update(ctx, func(tx store.Tx) error {
		st, err := tx.TwoFactor().Get()
		if err != nil {
			return err
		}
		if st.Enabled() {
			return murlog.Errorf(murlog.EConflict, "two-factor login is already on; turn it off first (totp.disable) to enrol another authenticator")
		}
		st.Pending = secret
		return tx.TwoFactor().Put(st)
	})
	if err != nil {
		return nil, err
	}
	return &TOTPSetup{Secret: secret, URI: OTPAuthURI(secret, in.Account)}, nil
}

// SetupTOTPInput starts an enrolment: Account names it in the
// authenticator app (user@domain); Password is the owner's, checked (and
// counted as a login attempt of ClientKey) before anything changes.
type SetupTOTPInput struct {
	Account   string
	Password  string
	ClientKey string
}

// checkOwnerPassword counts an attempt for clientKey and checks pw
// against the owner's password: field "password" is EInvalid when it is
// missing or wrong. A right one clears clientKey's count only while
// two-factor login is off (see clearAfterPassword).
func (s *Service) checkOwnerPassword(ctx context.Context, clientKey, pw string) error {
	if pw == "" {
		return murlog.Invalid("password", "is required")
	}
	var hash string
	if err := s.store.Update(ctx, func(tx store.Tx) error {
		if err := s.countAttempt(tx, clientKey); err != nil {
			return err
		}
		var err error
		hash, err = tx.Settings().Get(murlog.SettingPasswordHash)
		return err
	}); err != nil {
		return err
	}
	ok, err := s.check(ctx, hash, pw)
	if err != nil {
		return err
	}
	if !ok {
		return murlog.Invalid("password", "does not match")
	}
	return s.store.Update(ctx, func(tx store.Tx) error { return clearAfterPassword(tx, clientKey) })
}

// clearAfterPassword clears key's attempt count after a right password,
// unless two-factor login is on. Then only a right code clears it (a
// login or totp.disable that passes both factors): whoever has the
// password must not be able to wipe the count of the codes they guess
// between guesses, with totp.setup, totp.disable or a password change.
func clearAfterPassword(tx store.Tx, key string) error {
	st, err := tx.TwoFactor().Get()
	if err != nil {
		return err
	}
	if st.Enabled() {
		return nil
	}
	return tx.LoginAttempts().Delete(key)
}

// VerifyTOTPInput is the code that confirms an enrolment.
type VerifyTOTPInput struct {
	Code      string
	ClientKey string // rate-limit key, shared with login
}

// VerifyTOTP turns two-factor login on once the code, from the app that
// took the pending secret, is right (within one step either way). The
// code's step counts as used. It returns RecoveryCodes fresh recovery
// codes, to be shown once; earlier ones stop working. Like every code
// check, each attempt counts against the login limit first, and only a
// right code clears the count.
func (s *Service) VerifyTOTP(ctx context.Context, in VerifyTOTPInput) ([]string, error) {
	_, code, err := parseCode("code", in.Code, false)
	if err != nil {
		return nil, err
	}
	if err := s.store.Update(ctx, func(tx store.Tx) error { return s.countAttempt(tx, in.ClientKey) }); err != nil {
		return nil, err
	}
	codes := make([]string, RecoveryCodes)
	hashes := make([]string, RecoveryCodes)
	for i := range codes {
		codes[i] = newRecoveryCode()
		hashes[i] = HashToken(codes[i])
	}
	err = s.store.Update(ctx, func(tx store.Tx) error {
		st, err := tx.TwoFactor().Get()
		if err != nil {
			return err
		}
		if st.Pending == "" {
			if st.Enabled() {
				return murlog.Errorf(murlog.EConflict, "two-factor login is already on")
			}
			return murlog.Errorf(murlog.EConflict, "no two-factor enrolment in progress; call totp.setup first")
		}
		key, err := decodeTOTPSecret(st.Pending)
		if err != nil {
			return murlog.Internal(err)
		}
		step, ok := matchTOTP(key, code, tx.Now(), 0)
		if !ok {
			return murlog.Invalid("code", "is wrong; check that the clock of the device with the app is right and try the next code")
		}
		now := tx.Now()
		if err := tx.LoginAttempts().Delete(in.ClientKey); err != nil {
			return err
		}
		if err := tx.TwoFactor().Put(&murlog.TOTP{Secret: st.Pending, LastStep: step, EnabledAt: &now}); err != nil {
			return err
		}
		return tx.TwoFactor().ReplaceRecoveryCodes(hashes, now)
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// DisableTOTPInput is a request to turn two-factor login off.
type DisableTOTPInput struct {
	Password  string
	Code      string // a current TOTP code or an unused recovery code
	ClientKey string // rate-limit key, shared with login
}

// DisableTOTP turns two-factor login off and deletes the recovery codes.
// It needs both factors, like a login: the password, and a TOTP or
// recovery code, which is used up. Each attempt counts against the login
// limit before the password is hashed, and the right password alone does
// not clear the count: a wrong code leaves its attempt counted, so
// totp.disable is no more an oracle for codes than auth.login is.
func (s *Service) DisableTOTP(ctx context.Context, in DisableTOTPInput) error {
	if in.Password == "" {
		return murlog.Invalid("password", "is required")
	}
	if in.Code == "" {
		return murlog.Invalid("code", "is required")
	}
	kind, code, err := parseCode("code", in.Code, true)
	if err != nil {
		return err
	}
	if err := s.store.View(ctx, func(tx store.Tx) error {
		st, err := tx.TwoFactor().Get()
		if err != nil {
			return err
		}
		if !st.Enabled() {
			return murlog.Errorf(murlog.EConflict, "two-factor login is not on")
		}
		return nil
	}); err != nil {
		return err
	}
	if err := s.checkOwnerPassword(ctx, in.ClientKey, in.Password); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		st, err := tx.TwoFactor().Get()
		if err != nil {
			return err
		}
		if !st.Enabled() {
			return murlog.Errorf(murlog.EConflict, "two-factor login is not on")
		}
		ok, err := useCode(tx, st, kind, code)
		if err != nil {
			return err
		}
		if !ok {
			return murlog.Invalid("code", "is wrong or already used")
		}
		if err := tx.LoginAttempts().Delete(in.ClientKey); err != nil {
			return err
		}
		return turnOffTOTP(tx)
	})
}

// turnOffTOTP forgets the TOTP keys and the recovery codes.
func turnOffTOTP(tx store.Tx) error {
	if err := tx.TwoFactor().Put(&murlog.TOTP{}); err != nil {
		return err
	}
	return tx.TwoFactor().ReplaceRecoveryCodes(nil, tx.Now())
}
