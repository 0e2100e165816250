package httpsig

import (
	"crypto/ed25519"
	"crypto/rsa"
	"net/http"
	"strings"
	"testing"
)

func TestParseKeys(t *testing.T) {
	t.Parallel()
	k := loadKeys(t)
	pkcs1 := mustPriv(t, "rsa-a.pkcs1.pem").(*rsa.PrivateKey)
	if !pkcs1.Equal(k.rsaA) {
		t.Errorf("PKCS#1 and PKCS#8 files of rsa-a parsed to different keys")
	}
	pub1 := mustPub(t, "rsa-a.pub.pkcs1.pem").(*rsa.PublicKey)
	if !pub1.Equal(k.rsaAPub) || !k.rsaA.PublicKey.Equal(k.rsaAPub) {
		t.Errorf("PKCS#1 and PKIX public keys of rsa-a differ")
	}
	if !k.edA.Public().(ed25519.PublicKey).Equal(k.edAPub) {
		t.Errorf("ed-a public key does not match its private key")
	}
	for _, bad := range []string{"", "not pem", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
		"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"} {
		if _, err := ParsePrivateKeyPEM(bad); err == nil {
			t.Errorf("ParsePrivateKeyPEM(%q) accepted", bad)
		}
		if _, err := ParsePublicKeyPEM(bad); err == nil {
			t.Errorf("ParsePublicKeyPEM(%q) accepted", bad)
		}
	}
	// A public key PEM is not a private key.
	if _, err := ParsePrivateKeyPEM(readTestdata(t, "rsa-a.pub.pem")); err == nil {
		t.Errorf("ParsePrivateKeyPEM accepted a public key")
	}
}

func TestMultikey(t *testing.T) {
	t.Parallel()
	k := loadKeys(t)
	pub := k.edAPub.(ed25519.PublicKey)
	mk := Multikey(pub)
	if !strings.HasPrefix(mk, "z6Mk") { // every Ed25519 Multikey starts so (0xed01 in base58btc)
		t.Fatalf("Multikey = %q; want prefix z6Mk", mk)
	}
	got, err := ParseMultikey(mk)
	if err != nil || !got.Equal(pub) {
		t.Fatalf("ParseMultikey(Multikey(pub)) = %x, %v; want %x", got, err, pub)
	}
	// A key with leading zero bytes survives base58's leading-zero rule.
	zero := make(ed25519.PublicKey, ed25519.PublicKeySize)
	if got, err := ParseMultikey(Multikey(zero)); err != nil || !got.Equal(zero) {
		t.Fatalf("zero key round trip: %x, %v", got, err)
	}
	bad := []struct{ in, want string }{
		{"", "no z prefix"},
		{"u7QE", "no z prefix"},
		{"z0OIl", "malformed base58"},
		{"z" + strings.Repeat("2", 70), "too long"},
		{"z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc", "not an ed25519"}, // an X25519 (0xec) multikey
		{"z6Mk", "not an ed25519"},
	}
	for _, tt := range bad {
		_, err := ParseMultikey(tt.in)
		wantReason(t, "ParseMultikey("+tt.in+")", err, tt.want)
	}
}

func TestKeyOwnerGuess(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"https://mastodon.example/users/alice#main-key", "https://mastodon.example/users/alice"},
		{"https://gts.example/users/alice/main-key", "https://gts.example/users/alice"},
		{"https://misskey.example/users/9abc#main-key", "https://misskey.example/users/9abc"},
		{"https://murlog.example/@alice#main-key", "https://murlog.example/@alice"},
		{"https://murlog.example/@alice/main-key", "https://murlog.example/@alice"},
		{"https://h.example/actor", "https://h.example/actor"},
		{"https://h.example/main-key", "https://h.example/main-key"},
		{"test-key-ed25519", "test-key-ed25519"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := KeyOwnerGuess(tt.in); got != tt.want {
			t.Errorf("KeyOwnerGuess(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestVerifyDigest(t *testing.T) {
	t.Parallel()
	body := []byte(rfcBody)
	const s256 = "X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE="
	tests := []struct {
		name, digest, content, want string
	}{
		{"Digest sha-256", "SHA-256=" + s256, "", ""},
		{"Digest lower case, with an unknown one", "md5=abc, sha-256=" + s256, "", ""},
		{"Content-Digest sha-512 (RFC 9421 B.2)", "", rfcContentDigest, ""},
		{"Content-Digest both", "", "sha-256=:" + s256 + ":, " + strings.TrimPrefix(rfcContentDigest, ""), ""},
		{"both headers", "SHA-256=" + s256, rfcContentDigest, ""},
		{"none", "", "", "digest header missing"},
		{"only unknown algorithms", "MD5=abc", "", "no supported digest algorithm"},
		{"Digest mismatch", "SHA-256=RBNvo1WzZ4oRRq0W9+hknpT7T8If536DEMBg9hyq/4o=", "", "digest mismatch"},
		{"one of two mismatches", "SHA-256=" + s256, "sha-256=:RBNvo1WzZ4oRRq0W9+hknpT7T8If536DEMBg9hyq/4o=:", "content-digest mismatch"},
		{"Digest not base64", "SHA-256=!!", "", "malformed digest header"},
		{"Digest without =", "SHA-256", "", "malformed digest header"},
		{"Content-Digest not bytes", "", `sha-256="abc"`, "malformed content-digest header"},
		{"Content-Digest malformed", "", `sha-256=:abc`, "malformed content-digest header"},
	}
	for _, tt := range tests {
		r, _ := http.NewRequest(http.MethodPost, "https://example.com/foo", nil)
		if tt.digest != "" {
			r.Header.Set("Digest", tt.digest)
		}
		if tt.content != "" {
			r.Header.Set("Content-Digest", tt.content)
		}
		err := VerifyDigest(r, body)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: got %v; want accepted", tt.name, err)
			}
			continue
		}
		wantReason(t, tt.name, err, tt.want)
	}
}
