package auth

import (
	"encoding/base32"
	"strings"
	"testing"
	"time"
)

// rfcSecret is RFC 6238 Appendix B's SHA-1 key, the ASCII string
// "12345678901234567890".
var rfcSecret = []byte("12345678901234567890")

// TestTOTPRFC6238Vectors checks the 8-digit SHA-1 values of RFC 6238
// Appendix B, and that the 6-digit codes murlog uses are their last six
// digits (RFC 4226's truncation keeps the low decimal digits).
func TestTOTPRFC6238Vectors(t *testing.T) {
	t.Parallel()
	secret := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(rfcSecret)
	for _, tc := range []struct {
		unix int64
		step int64
		want string
	}{
		{59, 0x1, "94287082"},
		{1111111109, 0x23523EC, "07081804"},
		{1111111111, 0x23523ED, "14050471"},
		{1234567890, 0x273EF07, "89005924"},
		{2000000000, 0x3F940AA, "69279037"},
		{20000000000, 0x27BC86AA, "65353130"},
	} {
		at := time.Unix(tc.unix, 0).UTC()
		if got := TOTPStep(at); got != tc.step {
			t.Errorf("TOTPStep(%d) = %#x; want %#x", tc.unix, got, tc.step)
		}
		if got := hotp(rfcSecret, uint64(TOTPStep(at)), 8); got != tc.want {
			t.Errorf("8-digit TOTP at %d = %s; want %s (RFC 6238 Appendix B)", tc.unix, got, tc.want)
		}
		got, err := TOTPCode(secret, at)
		if err != nil || got != tc.want[2:] {
			t.Errorf("TOTPCode at %d = %q, %v; want %s, the last 6 digits", tc.unix, got, err, tc.want[2:])
		}
		// Lower case and spaces, as people copy secrets, read the same.
		if got, _ := TOTPCode(strings.ToLower(secret[:4])+" "+secret[4:], at); got != tc.want[2:] {
			t.Errorf("TOTPCode of the secret in lower case with a space at %d = %q; want %s", tc.unix, got, tc.want[2:])
		}
	}
	if _, err := TOTPCode("not base32!", time.Unix(59, 0)); err == nil {
		t.Error("TOTPCode of a secret that is not base32: no error")
	}
}

// TestTOTPWindow: the codes of the current step and one step either side
// are accepted, two steps away are not, and after a code is accepted no
// code of that step or an earlier one is.
func TestTOTPWindow(t *testing.T) {
	t.Parallel()
	now := time.Unix(1111111111, 0).UTC() // step 0x23523ED
	cur := TOTPStep(now)
	code := func(step int64) string { return hotp(rfcSecret, uint64(step), TOTPDigits) }
	for _, tc := range []struct {
		offset int64
		ok     bool
	}{{-2, false}, {-1, true}, {0, true}, {1, true}, {2, false}} {
		step, ok := matchTOTP(rfcSecret, code(cur+tc.offset), now, 0)
		if ok != tc.ok || (ok && step != cur+tc.offset) {
			t.Errorf("code of step now%+d = step %d, %v; want accepted %v at step %d", tc.offset, step, ok, tc.ok, cur+tc.offset)
		}
	}
	// Used once: the step of the last code accepted and every earlier one
	// are refused; a later step in the window is still fine.
	if _, ok := matchTOTP(rfcSecret, code(cur), now, cur); ok {
		t.Error("a code for the step last used was accepted again")
	}
	if _, ok := matchTOTP(rfcSecret, code(cur-1), now, cur); ok {
		t.Error("a code for a step before the last used one was accepted")
	}
	if step, ok := matchTOTP(rfcSecret, code(cur+1), now, cur); !ok || step != cur+1 {
		t.Errorf("the next step's code after the current one was used = %d, %v; want accepted", step, ok)
	}
	for _, bad := range []string{"", "12345", "1234567", "abcdef", code(cur)[:5] + "x"} {
		if _, ok := matchTOTP(rfcSecret, bad, now, 0); ok {
			t.Errorf("matchTOTP(%q) accepted", bad)
		}
	}
	// A step boundary: 29 s into a step still accepts the previous one.
	edge := time.Unix((cur+1)*30+29, 0)
	if _, ok := matchTOTP(rfcSecret, code(cur), edge, 0); !ok {
		t.Error("the previous step's code 29 s into the next step was refused")
	}
	if _, ok := matchTOTP(rfcSecret, code(cur), edge.Add(time.Second), 0); ok {
		t.Error("a code two steps old was accepted")
	}
}

func TestNewTOTPSecret(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 20 {
		s := NewTOTPSecret()
		key, err := decodeTOTPSecret(s)
		if err != nil || len(key) != 20 || len(s) != 32 || strings.ContainsAny(s, "=") {
			t.Fatalf("NewTOTPSecret = %q (%d bytes, %v); want 20 random bytes as 32 base32 characters without padding", s, len(key), err)
		}
		if seen[s] {
			t.Fatalf("NewTOTPSecret repeated %q", s)
		}
		seen[s] = true
	}
}
