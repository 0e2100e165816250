package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/murlog/murlog"
)

// Password limits. The minimum follows NIST SP 800-63B; the maximum keeps
// hashing cost bounded.
const (
	MinPasswordLen = 8
	MaxPasswordLen = 256
)

// argon2id parameters: OWASP's second recommended set (19 MiB, 2 passes,
// 1 lane). Modest memory matters on shared hosts, where each CGI process
// that logs in pays it.
const (
	argonMemory  = 19 * 1024
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// ValidatePassword checks a new password against the limits.
func ValidatePassword(field, pw string) error {
	// A form can carry bytes that are not UTF-8; a password made of them
	// could be set through the setup or reset page but never typed into
	// the JSON login, which refuses them.
	if !utf8.ValidString(pw) {
		return murlog.Invalid(field, "is not valid UTF-8")
	}
	n := utf8.RuneCountInString(pw)
	if n < MinPasswordLen {
		return murlog.TooShort(field, "must be at least %d characters", MinPasswordLen)
	}
	if n > MaxPasswordLen {
		return murlog.TooLong(field, "must be at most %d characters", MaxPasswordLen)
	}
	return nil
}

// HashPassword returns an argon2id hash in PHC string format.
func HashPassword(pw string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemory, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// CheckPassword reports whether pw matches the PHC hash. Parameters are read
// from the hash, so raising them later keeps old hashes valid.
func CheckPassword(hash, pw string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errors.New("auth: unsupported password hash format")
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errors.New("auth: unsupported argon2 version")
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false, fmt.Errorf("auth: bad argon2 parameters: %w", err)
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, fmt.Errorf("auth: bad salt: %w", err)
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil {
		return false, fmt.Errorf("auth: bad hash: %w", err)
	}
	got := argon2.IDKey([]byte(pw), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
