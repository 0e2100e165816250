package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"strings"
	"time"
)

// TOTP parameters (RFC 6238 with the values every authenticator app
// assumes): HMAC-SHA1, 6 digits, a 30-second step, and one step of clock
// skew accepted either way.
const (
	TOTPDigits     = 6
	TOTPPeriod     = 30 * time.Second
	TOTPSkew       = 1  // steps accepted before and after the current one
	totpSecretSize = 20 // bytes: the 160 bits RFC 4226 recommends (SHA-1's output size)
)

// totpEncoding is base32 without padding, as the otpauth URI and the
// authenticator apps spell secrets.
var totpEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewTOTPSecret returns a fresh 20-byte secret from crypto/rand, base32
// without padding (32 characters).
func NewTOTPSecret() string {
	b := make([]byte, totpSecretSize)
	if _, err := rand.Read(b); err != nil {
		panic("auth: crypto/rand failed: " + err.Error())
	}
	return totpEncoding.EncodeToString(b)
}

// decodeTOTPSecret reads a base32 secret as apps accept it: any case,
// spaces and trailing padding ignored.
func decodeTOTPSecret(secret string) ([]byte, error) {
	s := strings.ToUpper(strings.ReplaceAll(secret, " ", ""))
	key, err := totpEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil || len(key) == 0 {
		return nil, errors.New("auth: the TOTP secret is not base32")
	}
	return key, nil
}

// TOTPStep is the RFC 6238 time step T of t: whole periods since the Unix
// epoch.
func TOTPStep(t time.Time) int64 { return t.Unix() / int64(TOTPPeriod/time.Second) }

// TOTPCode returns the 6-digit code of secret at time t, as an
// authenticator app shows it. Tests and tools use it; the server itself
// only compares.
func TOTPCode(secret string, t time.Time) (string, error) {
	key, err := decodeTOTPSecret(secret)
	if err != nil {
		return "", err
	}
	return hotp(key, uint64(TOTPStep(t)), TOTPDigits), nil
}

// hotp is RFC 4226's HOTP: HMAC-SHA1 of the big-endian counter, dynamic
// truncation, the low digits in decimal with leading zeros.
func hotp(key []byte, counter uint64, digits int) string {
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], counter)
	m := hmac.New(sha1.New, key)
	m.Write(msg[:])
	sum := m.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	v := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	out := make([]byte, digits)
	for i := digits - 1; i >= 0; i-- {
		out[i] = byte('0' + v%10)
		v /= 10
	}
	return string(out)
}

// matchTOTP looks for code among the steps within TOTPSkew of now that
// come after last (the step of the last code accepted), and returns the
// earliest matching step. A step at or before last is never accepted, so a
// code works once and an older code never works after a newer one. Every
// candidate is compared, in constant time, so the answer's timing says
// nothing about which step (if any) was close.
func matchTOTP(key []byte, code string, now time.Time, last int64) (int64, bool) {
	cur := TOTPStep(now)
	found, ok := int64(0), 0
	for step := cur - TOTPSkew; step <= cur+TOTPSkew; step++ {
		eq := subtle.ConstantTimeCompare([]byte(hotp(key, uint64(step), TOTPDigits)), []byte(code))
		if eq == 1 && step > last && ok == 0 {
			found, ok = step, 1
		}
	}
	return found, ok == 1
}

// isTOTPCode reports whether s is six ASCII digits.
func isTOTPCode(s string) bool {
	if len(s) != TOTPDigits {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
