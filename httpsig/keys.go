package httpsig

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"net/url"
	"strings"
)

// maxRSABits refuses absurd remote keys, whose verification would cost a
// request's worth of CPU each.
const maxRSABits = 8192

// ParsePrivateKeyPEM reads a private key from PEM: PKCS#8 ("PRIVATE KEY",
// RSA or Ed25519, what murlog stores) or PKCS#1 ("RSA PRIVATE KEY").
func ParsePrivateKeyPEM(pemText string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, fail("private key: no PEM block")
	}
	switch block.Type {
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fail("private key: malformed PKCS#8")
		}
		switch k := k.(type) {
		case *rsa.PrivateKey:
			return k, nil
		case ed25519.PrivateKey:
			return k, nil
		}
		return nil, fail("private key: unsupported key type")
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, fail("private key: malformed PKCS#1")
		}
		return k, nil
	}
	return nil, fail("private key: unsupported PEM type " + block.Type)
}

// ParsePublicKeyPEM reads an actor's publicKeyPem: PKIX ("PUBLIC KEY", RSA or
// Ed25519) or PKCS#1 ("RSA PUBLIC KEY", which some older servers publish).
// It returns *rsa.PublicKey or ed25519.PublicKey.
func ParsePublicKeyPEM(pemText string) (crypto.PublicKey, error) {
	block, _ := pem.Decode([]byte(strings.TrimSpace(pemText)))
	if block == nil {
		return nil, fail("public key: no PEM block")
	}
	var k any
	var err error
	switch block.Type {
	case "PUBLIC KEY":
		k, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		k, err = x509.ParsePKCS1PublicKey(block.Bytes)
	default:
		return nil, fail("public key: unsupported PEM type " + block.Type)
	}
	if err != nil {
		return nil, fail("public key: malformed " + strings.ToLower(block.Type))
	}
	switch k := k.(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() > maxRSABits {
			return nil, fail("rsa key too large")
		}
		return k, nil
	case ed25519.PublicKey:
		return k, nil
	}
	return nil, fail("public key: unsupported key type")
}

// multicodecEd25519 prefixes an Ed25519 public key in a Multikey (the
// varint of multicodec 0xed).
var multicodecEd25519 = [2]byte{0xed, 0x01}

// ParseMultikey reads the publicKeyMultibase of a FEP-521a Multikey: "z"
// (base58btc) followed by the multicodec prefix 0xed01 and 32 key bytes.
func ParseMultikey(multibase string) (ed25519.PublicKey, error) {
	if !strings.HasPrefix(multibase, "z") {
		return nil, fail("multikey: not base58btc (no z prefix)")
	}
	if len(multibase) > 64 {
		return nil, fail("multikey: too long")
	}
	b, ok := base58Decode(multibase[1:])
	if !ok {
		return nil, fail("multikey: malformed base58")
	}
	if len(b) != 2+ed25519.PublicKeySize || b[0] != multicodecEd25519[0] || b[1] != multicodecEd25519[1] {
		return nil, fail("multikey: not an ed25519 public key")
	}
	return ed25519.PublicKey(b[2:]), nil
}

// Multikey encodes an Ed25519 public key as FEP-521a publicKeyMultibase.
func Multikey(pub ed25519.PublicKey) string {
	return "z" + base58Encode(append(multicodecEd25519[:], pub...))
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

func base58Decode(s string) ([]byte, bool) {
	n := new(big.Int)
	radix := big.NewInt(58)
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(base58Alphabet, s[i])
		if d < 0 {
			return nil, false
		}
		n.Mul(n, radix)
		n.Add(n, big.NewInt(int64(d)))
	}
	return append(make([]byte, zeros), n.Bytes()...), true
}

func base58Encode(b []byte) string {
	n := new(big.Int).SetBytes(b)
	radix, mod := big.NewInt(58), new(big.Int)
	var out []byte
	for n.Sign() > 0 {
		n.DivMod(n, radix, mod)
		out = append(out, base58Alphabet[mod.Int64()])
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append(out, '1')
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

// KeyOwnerGuess guesses the actor a keyId belongs to, without fetching: the
// URL without its fragment (Mastodon, Misskey, murlog: …/users/a#main-key)
// and without a last path segment "main-key" (GoToSocial: …/users/a/main-key).
// It is only a guess, good for checking blocks and rate limits before any
// fetch; the owner is confirmed by fetching the key and reading its owner.
// A keyId that is not an absolute URL comes back unchanged.
func KeyOwnerGuess(keyID string) string {
	u, err := url.Parse(keyID)
	if err != nil || u.Host == "" {
		return keyID
	}
	u.Fragment, u.RawFragment = "", ""
	if p := strings.TrimSuffix(u.Path, "/main-key"); p != u.Path && p != "" {
		u.Path, u.RawPath = p, ""
	}
	return u.String()
}
