package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// newSecret returns 32 random bytes, base64url-encoded: 256 bits, so the
// stored SHA-256 needs no salt or slow hash.
func newSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("auth: crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashToken returns the hex SHA-256 under which a session or API token
// secret is stored.
func HashToken(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// tokenPrefix marks murlog API tokens so secret scanners can find leaks.
const tokenPrefix = "mlg_"
