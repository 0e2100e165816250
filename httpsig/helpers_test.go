package httpsig

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// now is the fixed clock of the tests.
var now = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// testKeys are fixed keys in testdata, made with openssl: rsa-a and rsa-b
// (2048 bits), ed-a (Ed25519).
type testKeys struct {
	rsaA, rsaB   *rsa.PrivateKey
	edA          ed25519.PrivateKey
	rsaAPub      crypto.PublicKey
	rsaBPub      crypto.PublicKey
	edAPub       crypto.PublicKey
	rsaAKey, edK Key
}

func readTestdata(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func mustPriv(tb testing.TB, name string) crypto.Signer {
	tb.Helper()
	k, err := ParsePrivateKeyPEM(readTestdata(tb, name))
	if err != nil {
		tb.Fatalf("ParsePrivateKeyPEM(%s): %v", name, err)
	}
	return k
}

func mustPub(tb testing.TB, name string) crypto.PublicKey {
	tb.Helper()
	k, err := ParsePublicKeyPEM(readTestdata(tb, name))
	if err != nil {
		tb.Fatalf("ParsePublicKeyPEM(%s): %v", name, err)
	}
	return k
}

func loadKeys(tb testing.TB) testKeys {
	tb.Helper()
	k := testKeys{
		rsaA:    mustPriv(tb, "rsa-a.pkcs8.pem").(*rsa.PrivateKey),
		rsaB:    mustPriv(tb, "rsa-b.pkcs8.pem").(*rsa.PrivateKey),
		edA:     mustPriv(tb, "ed-a.pkcs8.pem").(ed25519.PrivateKey),
		rsaAPub: mustPub(tb, "rsa-a.pub.pem"),
		rsaBPub: mustPub(tb, "rsa-b.pub.pem"),
		edAPub:  mustPub(tb, "ed-a.pub.pem"),
	}
	k.rsaAKey = Key{ID: "https://remote.example/users/alice#main-key", Private: k.rsaA}
	k.edK = Key{ID: "https://remote.example/users/alice#ed25519-key", Private: k.edA}
	return k
}

// wantReason fails unless err is an *Error whose reason contains want.
func wantReason(t *testing.T, what string, err error, want string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: got %v (%T); want *Error with reason %q", what, err, err, want)
	}
	if !strings.Contains(e.Reason, want) {
		t.Fatalf("%s: got reason %q; want %q", what, e.Reason, want)
	}
}
